"""Pinned code generation: source beside the Erlang it becomes (snapshot files
in tests/snapshots; regenerate with `python tests/snapshot_tool.py`)."""

from __future__ import annotations

import pytest

from beamtalk_ws.compiler.forms import format_forms
from snapshot_tool import DIR, erl_pretty, forms_for, split

SNAPS = sorted(DIR.glob("*.snap"))


@pytest.mark.parametrize("path", SNAPS, ids=[p.stem for p in SNAPS])
def test_forms_match_snapshot(path):
    source, _, forms = split(path)
    assert format_forms(forms_for(source)) == forms


@pytest.mark.parametrize("path", SNAPS, ids=[p.stem for p in SNAPS])
def test_printed_erlang_is_what_erl_pp_prints(path):
    # Keeps the human-readable half of each snapshot honest (uses erl, no workspace).
    _, erlang, forms = split(path)
    assert erl_pretty(forms).rstrip("\n") == erlang
