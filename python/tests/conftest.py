"""Shared fixtures of the module's tests (run by ctest `python/pytest` from the source root, with
PYTHONPATH naming build/python and MLS_EXECUTABLE the command line built beside it)."""

import os
import subprocess

import pytest

import mls

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THOUSAND = os.path.join("scenarios", "thousand_gpus.mls")


@pytest.fixture(scope="session", autouse=True)
def at_root():
    os.chdir(ROOT)


@pytest.fixture(scope="session")
def thousand():
    return mls.run(THOUSAND)


def cli(*args):
    """The command line's stdout for the same question (MLS_EXECUTABLE, else build/mls)."""
    exe = os.environ.get("MLS_EXECUTABLE", os.path.join(ROOT, "build", "mls"))
    return subprocess.run([exe, *args], capture_output=True, cwd=ROOT).stdout
