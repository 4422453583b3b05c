"""A `beamtalk repl --json` process driven line by line, for the hardening tests.

Replies are read on a thread into a queue, so a client that goes silent fails
the test with a clear message after a generous wait instead of hanging it.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading

from conftest import beamtalk_cmd

WAIT = 60.0


def strict_loads(line: str):
    """json.loads that refuses NaN/Infinity: a reply must be valid JSON."""
    def bad(name):
        raise ValueError(f"reply holds {name}, which is not JSON")
    return json.loads(line, parse_constant=bad)


class JsonClient:
    def __init__(self, workspace: str, session: str = "default", env=None):
        self.proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--workspace", workspace,
                                                       "--session", session],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj) -> None:
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def line(self, wait: float = WAIT):
        try:
            raw = self.lines.get(timeout=wait)
        except queue.Empty:
            raise AssertionError(f"no reply within {wait} s (the client went silent); "
                                 f"stderr: {b''.join(self.stderr)[-2000:]!r}") from None
        if raw is None:
            raise AssertionError(f"the client exited (status {self.proc.poll()}); "
                                 f"stderr: {b''.join(self.stderr)[-2000:]!r}")
        return strict_loads(raw.decode("utf-8"))

    def reply(self, wait: float = WAIT) -> dict:
        """The next final reply (output and push lines are collected in `self.seen`)."""
        self.seen = []
        while True:
            msg = self.line(wait)
            if "push" in msg or "output" in msg:
                self.seen.append(msg)
                continue
            return msg

    def ask(self, obj) -> dict:
        self.send(obj)
        return self.reply()

    def close(self) -> int | None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None
