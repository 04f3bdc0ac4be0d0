#!/usr/bin/env python3
"""setup.py — the CMake build behind `pip install .` (pyproject.toml): builds the extension
mls._mls and the command line `mls` with the repository's CMake (no second build description),
then puts both in the package: the extension as mls/_mls*.so, the command line as mls/bin/mls,
which the `mls` console script (mls/_cli.py) runs.

The CMake build directory is $MLS_BUILD_DIR, else build/ (the README's; configured here, for this
interpreter, when it is not yet). setuptools' own files go under build/setuptools so they never mix
with CMake's.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(mls VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("MLS_BUILD_DIR") or os.path.join(ROOT, "build"))
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            subprocess.check_call(
                ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DPython_EXECUTABLE=" + sys.executable]
            )
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build, "--target", "mls_python", "mls", "-j", jobs])
        # The extension must be this interpreter's: a build dir configured for another Python is refused.
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = glob.glob(os.path.join(build, "python", "mls", "_mls*" + suffix))
        if not built:
            found = glob.glob(os.path.join(build, "python", "mls", "_mls*"))
            sys.exit(
                "setup.py: %s holds no extension for this Python (%s; found %s): set MLS_BUILD_DIR to a fresh "
                "directory, or configure with -DPython_EXECUTABLE=%s" % (build, suffix, found or "none", sys.executable)
            )
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.join(os.path.dirname(dest), "bin"), exist_ok=True)
        shutil.copy2(built[0], dest)
        shutil.copy2(os.path.join(build, "mls"), os.path.join(os.path.dirname(dest), "bin", "mls"))


setup(
    version=version(),
    packages=["mls"],
    package_dir={"": "python"},
    ext_modules=[Extension("mls._mls", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join("build", "setuptools")}, "egg_info": {"egg_base": "build"}},
    zip_safe=False,
)
