# Shared fixtures of the Python tests: the napkin module (PYTHONPATH points at
# the build's site-packages), the napkin command to compare with, tests/data.
import json
import os
import subprocess

import pytest


@pytest.fixture(scope="session")
def data_dir():
    path = os.environ.get("NAPKIN_TEST_DATA_DIR")
    if not path:
        path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def napkin_cli():
    """Runs `napkin <args> --json` and returns the parsed output."""
    path = os.environ.get("NAPKIN_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("NAPKIN_CLI does not name the napkin command (ctest sets it)")

    def run(*args):
        out = subprocess.run([path, *map(str, args), "--json"], check=True, capture_output=True, text=True)
        return json.loads(out.stdout)

    return run
