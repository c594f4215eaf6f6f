"""Shared by the Python module's tests: run by ctest (python_spec) with PYTHONPATH=build/python and
MEEPLE_EXE=build/meeple, or by hand: PYTHONPATH=build/python MEEPLE_EXE=build/meeple python3 -m pytest tests/python"""
import os
import shutil

import pytest


@pytest.fixture(scope="session")
def meeple_exe():
    exe = os.environ.get("MEEPLE_EXE") or shutil.which("meeple")
    if not exe:
        pytest.fail("MEEPLE_EXE is not set: the Lua side of the comparison needs the meeple executable")
    return exe
