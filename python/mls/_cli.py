"""_cli.py — the `mls` command `pip install .` makes (pyproject.toml's console script): it runs the
command line built with the module (mls/bin/mls, put there by setup.py), the same program as
build/mls, with the same arguments, stdin/stdout and exit code. In the CMake build tree
(build/python/mls) it runs build/mls beside it."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def executable():
    """The command line: the installed package's bin/mls, else the CMake build's (build/mls)."""
    for exe in (os.path.join(HERE, "bin", "mls"), os.path.join(HERE, os.pardir, os.pardir, "mls")):
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return os.path.normpath(exe)
    return None


def main():
    exe = executable()
    if exe is None:
        sys.stderr.write("mls: the command line is not installed beside the module %s (pip install . puts it in bin/)\n" % HERE)
        return 2
    os.execv(exe, ["mls", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
