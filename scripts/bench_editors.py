"""Start-up of `beamtalk lsp` and `beamtalk mcp` to their first answer.

Each round spawns the server, sends `initialize` and times the reply (the
process start, Python's imports and the SDK's set-up are all inside it);
beside it, in the same rounds, a bare `python -c pass` and the imports
alone.  No node is needed: `initialize` never waits for the workspace.

    .venv/bin/python scripts/bench_editors.py [ROUNDS]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEAMTALK = str(Path(sys.executable).with_name("beamtalk"))


def _lsp_frame(msg: dict) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def lsp_round() -> float:
    t = time.perf_counter()
    p = subprocess.Popen([BEAMTALK, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write(_lsp_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                              "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
    p.stdin.flush()
    while p.stdout.readline().strip():
        pass                                   # headers up to the blank line
    elapsed = time.perf_counter() - t
    p.kill()
    p.wait()
    return elapsed


def mcp_round() -> float:
    t = time.perf_counter()
    p = subprocess.Popen([BEAMTALK, "mcp", "--workspace", "bench-editors-unused"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    req = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "bench", "version": "0"}}}
    p.stdin.write((json.dumps(req) + "\n").encode())
    p.stdin.flush()
    p.stdout.readline()
    elapsed = time.perf_counter() - t
    p.kill()
    p.wait()
    return elapsed


def cmd_round(args) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable] + args, check=True)
    return time.perf_counter() - t


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    times: dict[str, list[float]] = {k: [] for k in ("lsp", "mcp", "python", "lsp imports", "mcp imports")}
    for _ in range(rounds):
        times["python"].append(cmd_round(["-c", "pass"]))
        times["lsp imports"].append(cmd_round(["-c", "import beamtalk_ws.cli, beamtalk_ws.lsp.server"]))
        times["mcp imports"].append(cmd_round(["-c", "import beamtalk_ws.cli, beamtalk_ws.mcp.server"]))
        times["lsp"].append(lsp_round())
        times["mcp"].append(mcp_round())
    for k, v in times.items():
        print(f"{k:12s} median {statistics.median(v) * 1000:6.0f} ms   min {min(v) * 1000:6.0f} ms   "
              f"max {max(v) * 1000:6.0f} ms")


if __name__ == "__main__":
    main()
