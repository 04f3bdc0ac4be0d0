#!/usr/bin/env python3
"""check_grammar.py — the TextMate grammar (editors/vscode/syntaxes/mls.tmLanguage.json) highlights
every scenario, mls test file and stdlib file without an invalid character or an unclosed region
(tests/check_grammar.js, with vscode-textmate and vscode-oniguruma from npm, installed into the
build directory by cmake/setup.sh). A self-check first: a file with a stray character and an
unclosed parenthesis must be reported, so the test can fail.

Skips (exit 77) when the npm packages are not installed, unless MLS_REQUIRE_NPM=1 (CI).
usage: check_grammar.py REPO_DIR NODE_MODULES
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

REPO, NODE_MODULES = (os.path.abspath(a) for a in sys.argv[1:3])
GRAMMAR = os.path.join(REPO, "editors", "vscode", "syntaxes", "mls.tmLanguage.json")
SCRIPT = os.path.join(REPO, "tests", "check_grammar.js")

node = shutil.which("node") or shutil.which("nodejs")
have = node and all(os.path.isdir(os.path.join(NODE_MODULES, p)) for p in ("vscode-textmate", "vscode-oniguruma"))
if not have:
    why = "node is not installed" if not node else "vscode-textmate/vscode-oniguruma are not in " + NODE_MODULES
    if os.environ.get("MLS_REQUIRE_NPM") == "1":
        print("check_grammar: MLS_REQUIRE_NPM=1 but %s (run cmake/setup.sh)" % why)
        sys.exit(1)
    print("check_grammar: skipped: %s (cmake/setup.sh installs them; MLS_REQUIRE_NPM=1 makes this an error)" % why)
    sys.exit(77)


def run(files):
    return subprocess.run([node, SCRIPT, NODE_MODULES, GRAMMAR, *files], capture_output=True, text=True, timeout=300)


# The checker must see a stray character and an unclosed region.
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.mls")
    with open(bad, "w", encoding="utf-8") as f:
        f.write("let x = 1 $ 2\nlet y = (1 +\n  2\n")
    r = run([bad])
    if r.returncode != 1 or "bad.mls:1:11: invalid" not in r.stdout or "bad.mls:2: a region" not in r.stdout:
        print("check_grammar: the self-check was not reported as expected:\n" + r.stdout + r.stderr)
        sys.exit(1)

files = sorted(glob.glob(os.path.join(REPO, "scenarios", "**", "*.mls"), recursive=True) +
               glob.glob(os.path.join(REPO, "tests", "mls", "*.mls")) +
               glob.glob(os.path.join(REPO, "stdlib", "*.mls")))
r = run(files)
sys.stdout.write(r.stdout + r.stderr)
sys.exit(0 if r.returncode == 0 and len(files) > 20 else 1)
