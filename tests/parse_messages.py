#!/usr/bin/env python3
"""parse_messages.py — every message of grammar/parse.cpp's error_message table is shown by a
golden test: tests/golden/parse_error/msg_RULE.mls, whose recorded output contains the message.
A new must<> target without such a golden fails this test.

usage: parse_messages.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    with open(os.path.join(ROOT, "grammar", "parse.cpp"), encoding="utf-8") as f:
        table = re.findall(r'^MLS_(?:MSG|CLOSE)\((\w+), "((?:[^"\\]|\\.)*)"\);', f.read(), re.M)
    if not table:
        print("no MLS_MSG entries found in grammar/parse.cpp")
        return 1
    missing = []
    for rule, text in table:
        text = text.replace('\\"', '"').replace("\\\\", "\\")
        out = os.path.join(ROOT, "tests", "golden", "parse_error", "msg_%s.out" % rule)
        if not os.path.exists(out):
            missing.append("%s: no golden tests/golden/parse_error/msg_%s.mls" % (rule, rule))
        elif "]: %s, got " % text not in open(out, encoding="utf-8").read():
            missing.append("%s: msg_%s.out does not show \"%s\"" % (rule, rule, text))
    print("\n".join(missing) if missing else "parse messages: all %d shown by goldens" % len(table))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
