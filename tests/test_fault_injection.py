"""Fault injection (issue 15): a stream of evaluations through
`beamtalk repl --json` with the client and the node killed (SIGKILL) at
random points, in a fixed budget.  Nothing confirmed is lost across client
kills; a node kill is reported clearly and a new node evaluates with every
confirmed binding restored from the store.
`scripts/soak.py SECONDS` runs the same for longer."""

from __future__ import annotations

from beamtalk_ws import soak

from conftest import beamtalk_cmd

BUDGET = 15.0


def test_kills_at_random_points_lose_no_confirmed_binding(bt_home):
    summary = soak.run(beamtalk_cmd(), BUDGET, seed=1)
    print("\n" + summary.line())
    for note in sorted(set(summary.notes)):
        print("note:", note)
    assert summary.problems == []
    assert summary.lost == 0
    assert summary.evaluations > 20
    assert summary.client_kills >= 1 and summary.node_kills >= 1
