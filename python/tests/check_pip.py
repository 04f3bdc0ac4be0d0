#!/usr/bin/env python3
"""check_pip.py BUILD_DIR — `pip install .` (pyproject.toml, setup.py) installs the module and the
`mls` command: installs into a temporary --target from the CMake build BUILD_DIR (setup.py reuses
it: nothing is compiled twice), then checks that the installed `mls` command prints what BUILD_DIR's
mls prints and that the installed module imports and runs a scenario, from outside the repository.
Exit 0 when both hold; 1 saying what did not."""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "thousand_gpus.mls")


def main():
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as target:
        env = dict(os.environ, MLS_BUILD_DIR=build, CMAKE_BUILD_PARALLEL_LEVEL="1", PIP_ROOT_USER_ACTION="ignore")
        env.pop("PYTHONPATH", None)
        pip = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "-q"]
        subprocess.run([*pip, "--target", target, ROOT], check=True, env=env, cwd=target)
        env["PYTHONPATH"] = target
        want = subprocess.run([os.path.join(build, "mls"), "run", SCENARIO], capture_output=True).stdout
        got = subprocess.run([os.path.join(target, "bin", "mls"), "run", SCENARIO], capture_output=True, env=env)
        problems = []
        if got.returncode != 0 or got.stdout != want or not want:
            problems.append("the installed mls command printed other bytes than %s/mls (exit %d)" % (build, got.returncode))
        code = "import mls; r = mls.run(%r); print(mls.__file__); print(r.tables['scale'].to_records()[0]['gpus'])"
        py = subprocess.run([sys.executable, "-c", code % SCENARIO], capture_output=True, text=True, env=env, cwd=target)
        lines = py.stdout.split()
        if py.returncode != 0 or len(lines) != 2 or not lines[0].startswith(target) or lines[1] != "64":
            problems.append("the installed module did not run the scenario: %s%s" % (py.stdout, py.stderr[-2000:]))
    for p in problems:
        print("pip:", p)
    print("pip install .: %d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
