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


def test_runtime_provides_every_abi_function(ebin):
    """Every (module, function) of runtime_abi.py is exported, with the arity
    its comment documents where it does."""
    from beamtalk_ws.compiler import runtime_abi

    arities = {
        "send": 3, "super_send": 4, "self_send": 4, "super_self_send": 5, "cast": 3,
        "class_of": 1, "responds_to": 2, "global": 1, "define": 1, "class_var": 2,
        "set_class_var": 3, "value": 2, "on_do": 3, "ensure": 2, "if_curtailed": 2,
        "user_error": 2, "raise": 5, "print_string": 1, "display_string": 1, "concat": 2,
        "array_from_list": 1, "association": 2, "call": 3, "no_match": 1, "make_ref": 0,
        "info": 1, "add_method": 4, "elements": 1, "cell": 2, "cell_run": 2, "state_kept": 4, "invoke": 3, "missing_field": 2,
        "times_count": 1, "loop_bounds": 4,
    }
    pairs = sorted({v for k, v in vars(runtime_abi).items()
                    if k.isupper() and isinstance(v, tuple) and len(v) == 2})
    assert pairs
    checks = ", ".join(f"{{{m}, {f}, {arities[f]}}}" for m, f in pairs)
    code = (
        f"Missing = [{{M, F, A}} || {{M, F, A}} <- [{checks}], "
        "not (code:ensure_loaded(M) =:= {module, M} andalso erlang:function_exported(M, F, A))], "
        "io:format(\"~p~n\", [Missing]), halt(0)."
    )
    proc = subprocess.run(["erl", "-noshell", "-pa", str(ebin), "-eval", code],
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


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
