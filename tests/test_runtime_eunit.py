"""The Erlang runtime's eunit suites (erl_support/test/*_tests.erl).

The runtime sources and the test modules are compiled once into a temporary
directory with `erlc`; each eunit module then runs on a fresh
`erl -noshell` node, so a suite cannot leak classes, actors or persistent
terms into another.  One pytest test per eunit module: a failure shows that
module's eunit output.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "erl_support"
TESTS = SRC / "test"
EUNIT_MODULES = sorted(p.stem for p in TESTS.glob("*_tests.erl"))

pytestmark = pytest.mark.skipif(shutil.which("erlc") is None, reason="Erlang/OTP is not installed")


@pytest.fixture(scope="module")
def ebin(tmp_path_factory):
    out = tmp_path_factory.mktemp("bt-runtime-ebin")
    sources = sorted(SRC.glob("*.erl")) + sorted(TESTS.glob("*.erl"))
    proc = subprocess.run(
        ["erlc", "-o", str(out), *map(str, sources)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, "erlc failed:\n" + proc.stdout + proc.stderr
    return out


def test_every_runtime_module_has_a_suite():
    assert EUNIT_MODULES, "no eunit modules found in erl_support/test"


@pytest.mark.parametrize("module", EUNIT_MODULES)
def test_eunit(ebin, module):
    code = (
        f"case eunit:test({module}, [verbose]) of "
        "ok -> halt(0); _ -> halt(1) end."
    )
    proc = subprocess.run(
        ["erl", "-noshell", "-pa", str(ebin), "-eval", code],
        capture_output=True, text=True, timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"eunit {module} failed:\n{output}"
    assert "passed" in output or "Test passed" in output, output
