"""The command line as README's "Command line" section describes it.

A newcomer reads the README, then `beamtalk CMD --help`: the two must agree,
and every documented spelling of an option must work.
"""

from __future__ import annotations

from conftest import run_beamtalk


def test_check_help_names_forms_and_semantics():
    proc = run_beamtalk(["check", "--help"])
    assert proc.returncode == 0
    assert "forms" in proc.stdout          # README: --emit ast|source|forms
    assert "Check the syntax of" not in proc.stdout  # it checks more than syntax


def test_check_emit_equals_forms(tmp_path):
    f = tmp_path / "calc.bt"
    f.write_text("Object subclass: Calc\n  twice: x => x * 2\n")
    for args in (["--emit", "forms", str(f)], ["--emit=forms", str(f)]):
        proc = run_beamtalk(["check", *args])
        assert proc.returncode == 0, proc.stderr
        assert "{function," in proc.stdout and "twice:" in proc.stdout


def test_check_emit_forms_needs_one_file(tmp_path):
    proc = run_beamtalk(["check", "--emit", "forms"], cwd=tmp_path)
    assert proc.returncode == 2
    assert "needs exactly one FILE" in proc.stderr or "no PATH given" in proc.stderr
    assert "Traceback" not in proc.stderr
