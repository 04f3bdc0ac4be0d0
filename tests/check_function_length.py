#!/usr/bin/env python3
"""check_function_length.py — no function in grammar/, interpreter/, cli/ or python/ is longer than 120 lines
(issue #37), save those on the allowlist below, which may hold at most 5 and only shrinks: an entry
whose function is no longer over the limit (or is gone) fails the check too, so it must be removed.

A function is counted from the line of its body's opening brace to the line of its closing brace.
The scanner is lexical (comments, strings, raw strings and preprocessor lines removed, braces
matched): a brace block at namespace or class scope whose head ends in a parameter list (with
qualifiers or a trailing return type) is a function body; one whose head names a namespace, class,
struct, union or enum is a scope that may hold functions; any other (an initializer) is neither.
Lambdas and local classes count toward the function they are written in. The self-test feeds the
scanner a function of 121 lines, and one of 120, and fails unless exactly the first is reported.

usage: check_function_length.py REPO_ROOT
"""
import os
import re
import sys

LIMIT = 120
SCANNED = ["grammar", "interpreter", "cli", "python"]

# Functions allowed over the limit, each with why it is not split yet. At most 5; remove an entry
# when its function is split (the check fails while a stale entry remains).
ALLOWLIST = {
    # The compiled machine's scalar loop: one switch over every FastOp, the hottest code of a
    # sweep; split, each instruction would pay a call (the bench measures it, bench/README.md).
    ("interpreter/runtime/fastpath_run.cpp", "execute"): "the scalar machine's dispatch loop",
    # A chart as SVG: axes, panels, series and regime marks in one pass over the layout. The
    # report's charts are being reworked (issue #37 round, "planner"); split with that work.
    ("interpreter/report/chart.cpp", "chart_svg"): "split with the report chart work under way",
}
MAX_ALLOWED = 5

CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum|extern)\b")
FUNCTION_HEAD = re.compile(
    r"\)\s*(?:(?:const|noexcept(?:\s*\([^()]*\))?|override|final|mutable|volatile|&&|&)\s*)*(?:->[^{};]*)?$")


def strip(text):
    """The text with comments, string and character literals and preprocessor lines blanked
    (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # A preprocessor line, with its continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c == "\n":
            at_line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:i + 40])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def function_name(head):
    """The name before the parameter list that ends `head` ("Scenario::run", "operator<")."""
    head = re.sub(r"->[^{};]*$", "", head.rstrip())
    init = re.search(r"\)\s*(?:noexcept\s*)?:(?!:)", head)  # a constructor's initializer list
    if init:
        head = head[:init.start() + 1]
    close = head.rfind(")")
    depth, i = 0, close
    while i >= 0:
        if head[i] == ")":
            depth += 1
        elif head[i] == "(":
            depth -= 1
            if depth == 0:
                break
        i -= 1
    m = re.search(r"((?:[A-Za-z_]\w*\s*(?:<[^<>()]*>)?\s*::\s*)*~?(?:operator\s*[^\s(]+|[A-Za-z_]\w*))\s*$", head[:max(i, 0)])
    return re.sub(r"\s+", "", m.group(1)) if m else "?"


def functions(text):
    """(name, first line, last line) of every function body in C++ `text`; a member function
    defined in its class is named Class::name."""
    s = strip(text)
    found = []
    stack = []  # (kind, class name): "scope" (may hold functions), "fn" (a function body), "other"
    head_start = 0
    line = 1
    starts = []
    for i, c in enumerate(s):
        if c == "\n":
            line += 1
        elif c == ";":
            if not stack or stack[-1][0] == "scope":
                head_start = i + 1
        elif c == "{":
            head = s[head_start:i]
            name = ""
            if stack and stack[-1][0] != "scope":
                kind = "other"
            elif FUNCTION_HEAD.search(head.rstrip()):
                kind = "fn"
            elif CONTAINER.search(head):
                kind = "scope"
                m = re.search(r"\b(?:class|struct|union)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)", head)
                name = m.group(1) if m else ""
            else:
                kind = "other"  # an initializer: its head goes on (a constructor's `a_{1}, b_(2) {`)
            stack.append((kind, name))
            starts.append((line, head))
            if kind == "scope":
                head_start = i + 1
        elif c == "}":
            if not stack:
                continue
            kind, _ = stack.pop()
            first, head = starts.pop()
            if kind == "fn":
                owner = "::".join(n for k, n in stack if k == "scope" and n)
                name = function_name(head)
                found.append(((owner + "::" if owner and "::" not in name else "") + name, first, line))
            if kind != "other" and (not stack or stack[-1][0] == "scope"):
                head_start = i + 1
    return found


def self_test():
    def body(n):  # a function whose braces span n lines
        return "int f(int x) {\n" + "  x += 1;\n" * (n - 2) + "}\n"
    long_ = [f for f in functions("namespace a {\n" + body(LIMIT + 1) + "}\n") if f[2] - f[1] + 1 > LIMIT]
    short = [f for f in functions("namespace a {\n" + body(LIMIT) + "}\n") if f[2] - f[1] + 1 > LIMIT]
    tricky = functions('struct S {\n  auto g() const -> int {\n    const char* s = "}";\n    return 1;\n  }\n};\n'
                       'static const int t[] = {1, 2};\nS::S() : a_{1}, b_(2) {\n}\n')
    problems = []
    if len(long_) != 1 or long_[0][0] != "f" or short:
        problems.append("self-test: a function of %d lines was not reported, or one of %d was" % (LIMIT + 1, LIMIT))
    if [f[0] for f in tricky] != ["S::g", "S::S"]:
        problems.append("self-test: member, trailing-return and constructor bodies found as %r" % tricky)
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    problems = self_test()
    over = {}
    for top in SCANNED:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    for name, first, last in functions(f.read()):
                        if last - first + 1 > LIMIT:
                            over[(rel, name)] = (first, last - first + 1)
    if len(ALLOWLIST) > MAX_ALLOWED:
        problems.append("the allowlist holds %d functions; at most %d" % (len(ALLOWLIST), MAX_ALLOWED))
    for (rel, name), (first, n) in sorted(over.items()):
        if (rel, name) not in ALLOWLIST:
            problems.append("%s:%d: %s is %d lines (limit %d): split it" % (rel, first, name, n, LIMIT))
    for key, why in sorted(ALLOWLIST.items()):
        if key not in over:
            problems.append("%s: %s is on the allowlist (%s) but no longer over %d lines: remove the entry" %
                            (key[0], key[1], why, LIMIT))
    for p in problems:
        print(p)
    listed = ", ".join("%s %s (%d lines)" % (k[0], k[1], v[1]) for k, v in sorted(over.items()))
    print("functions over %d lines: %d (%s); allowlisted: %d of at most %d; %d problems" %
          (LIMIT, len(over), listed or "none", len(ALLOWLIST), MAX_ALLOWED, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
