"""`node.log` rotates (erl_support/beamtalk_log_rotate.erl): copied to
`node.log.1` (older copies shifted, at most BEAMTALK_LOG_KEEP kept) and
truncated once it exceeds BEAMTALK_LOG_MAX_BYTES, and the node goes on
appending to it.  A real node with small limits; the test appends to the log
as the node's stderr would."""

from __future__ import annotations

import time
import uuid

from beamtalk_ws.workspace import launcher, paths


def wait_for(pred, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def test_node_log_rotates_and_keeps_a_bounded_number_of_files(workspace, monkeypatch):
    monkeypatch.setenv("BEAMTALK_LOG_MAX_BYTES", "4000")
    monkeypatch.setenv("BEAMTALK_LOG_KEEP", "2")
    monkeypatch.setenv("BEAMTALK_LOG_CHECK_MS", "100")
    ws = paths.resolve("log" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None)
    try:
        rotated = [ws.log.with_name(f"node.log.{n}") for n in (1, 2, 3)]
        for round_ in range(3):
            marker = f"round {round_} " + "x" * 100 + "\n"
            with open(ws.log, "a") as f:
                f.write(marker * 60)            # 6 KB, over the limit
            wait_for(lambda: ws.log.stat().st_size < 4000 and marker in rotated[0].read_text(),
                     f"rotation {round_}")
        assert "round 1" in rotated[1].read_text()
        assert not rotated[2].exists()          # BEAMTALK_LOG_KEEP=2
        # the node still appends to node.log after truncating it
        with open(ws.log, "a") as f:
            f.write("after rotation\n")
        assert "after rotation" in ws.log.read_text()
        assert launcher.running_info(ws) is not None
    finally:
        launcher.kill(ws)
