"""Fault injection: a stream of evaluations through `beamtalk repl --json`,
with the client and the node killed (SIGKILL) at random points, checking
that nothing confirmed is lost.

Why a separate client process: a kill must be a real one (no `finally`, no
goodbye on the socket), as a crashed editor or a closed terminal would be.

What is checked:
* after a client kill (between requests or with a request in flight), a new
  client on the same session finds every binding whose evaluation was
  confirmed (a reply with a value), with its value; a request that was in
  flight may or may not have happened, but if it did, wholly;
* after a node kill, the client in use says so in a clear message (no
  Python traceback), and a new client starts a new node that evaluates and
  has restored every confirmed binding from the workspace's store (durable
  state; `expect_durable=False` skips that check).

Used by tests/test_fault_injection.py (a short budget) and scripts/soak.py.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from beamtalk_ws.workspace import launcher, paths

REPLY_TIMEOUT = 60.0


@dataclass
class Summary:
    evaluations: int = 0
    client_kills: int = 0
    node_kills: int = 0
    lost: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"soak: {self.evaluations} evaluations, {self.client_kills} client kills, "
                f"{self.node_kills} node kills, {self.lost} lost confirmations in {self.seconds:.1f} s")


class ClientGone(Exception):
    """The client process ended; `text` is what it wrote on stderr."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class JsonClient:
    """One `beamtalk repl --json` process, read by a thread so that a reply
    can be waited for with a timeout."""

    def __init__(self, cmd: list[str], workspace: str, session: str):
        self.proc = subprocess.Popen(
            [*cmd, "repl", "--json", "--workspace", workspace, "--session", session,
             "--timeout", "600"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, code: str) -> int:
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"id": self.next_id, "op": "eval", "code": code}) + "\n")
        self.proc.stdin.flush()
        return self.next_id

    def reply(self, rid: int, timeout: float = REPLY_TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no reply to request {rid} within {timeout:g} s") from None
            if line is None:
                self.proc.wait(timeout=10)
                raise ClientGone(self.proc.stderr.read())
            msg = json.loads(line)
            if msg.get("id") == rid and ("value" in msg or "error" in msg):
                return msg

    def eval(self, code: str) -> dict:
        return self.reply(self.send(code))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()


def report_of_node_loss(client: JsonClient, summary: Summary) -> str:
    """What the client says about its node being killed: the reply to the
    next request, or what it writes when it ends.  A client that says
    nothing until its stdin closes is noted (it is not lost state, but it
    is silence)."""
    try:
        if client.proc.poll() is None:
            rid = client.send("1 + 1")
            try:
                r = client.reply(rid, timeout=10)
            except TimeoutError:
                summary.notes.append("after a node kill the JSON client answered nothing until its stdin closed")
                client.proc.stdin.close()
                r = client.reply(rid, timeout=15)
            if "value" in r:
                summary.problems.append("a request after a node kill answered a value")
            return r.get("error", "")
        client.reply(-1, timeout=10)
    except ClientGone as gone:
        return gone.text
    except TimeoutError:
        return ""
    return ""


def _clear(text: str) -> bool:
    return bool(text.strip()) and "Traceback" not in text


def run(cmd: list[str], budget: float, *, workspace: str | None = None, seed: int | None = None,
        expect_durable: bool = True, say=lambda text: None) -> Summary:
    """Evaluate, kill and check for `budget` seconds; answer the summary."""
    rng = random.Random(seed)
    name = workspace or f"soak-{os.getpid()}-{rng.randrange(1 << 30):x}"
    ws = paths.resolve(name)
    summary = Summary()
    confirmed: dict[str, tuple[str, str]] = {}   # name -> (expression, its printString)
    started = time.monotonic()
    n = 0
    client = JsonClient(cmd, name, "soak")

    def check(c: JsonClient, why: str):
        """Every confirmed binding, 40 to an input; a part that differs is
        looked at name by name to count what was lost."""
        names = sorted(confirmed)
        for i in range(0, len(names), 40):
            part = names[i:i + 40]
            r = c.eval("#(" + ", ".join(f"({confirmed[k][0]})" for k in part) + ")")
            if r.get("value") == "#(" + ", ".join(confirmed[k][1] for k in part) + ")":
                continue
            for k in part:
                one = c.eval(confirmed[k][0])
                if one.get("value") != confirmed[k][1]:
                    summary.lost += 1
                    summary.problems.append(f"after {why}: {k} is {one.get('value') or one.get('error')!r}, "
                                            f"confirmed {confirmed[k][1]!r}")

    try:
        while time.monotonic() - started < budget:
            roll = rng.random()
            if roll < 0.06 and n > 3:
                # Kill the client, half the time with a request in flight.
                pending = None
                if rng.random() < 0.5:
                    n += 1
                    pending = (f"v{n}", str(n * 7))
                    client.send(f"{pending[0]} := {pending[1]}")
                    time.sleep(rng.random() * 0.05)
                client.kill()
                summary.client_kills += 1
                client = JsonClient(cmd, name, "soak")
                if pending:
                    # Applied or not, but not otherwise.
                    r = client.eval(pending[0])
                    if "value" in r and r["value"] != pending[1]:
                        summary.problems.append(f"in-flight {pending[0]} half applied: {r}")
                check(client, "a client kill")
                say(f"client kill {summary.client_kills}: {len(confirmed)} bindings checked")
            elif roll < 0.08 and n > 3:
                info = launcher.running_info(ws)
                if info is None:
                    continue
                os.kill(info.os_pid, signal.SIGKILL)
                summary.node_kills += 1
                launcher.wait_stopped(ws)
                text = report_of_node_loss(client, summary)
                if not _clear(text):
                    summary.problems.append(f"unclear report of a node kill: {text!r}")
                client.close()
                client = JsonClient(cmd, name, "soak")
                r = client.eval("40 + 2")
                if r.get("value") != "42":
                    summary.problems.append(f"the new node does not evaluate: {r}")
                if expect_durable:
                    check(client, "a node kill")
                else:
                    confirmed.clear()
                say(f"node kill {summary.node_kills}: new node evaluates")
            else:
                n += 1
                key = f"v{n}" if n % 4 else f"b{n}"
                code = f"{key} := {n * 7}" if n % 4 else f"{key} := [:x | x + {n}]. {key} value: {n * 6}"
                r = client.eval(code)
                summary.evaluations += 1
                if "value" in r:
                    confirmed[key] = (key, str(n * 7)) if n % 4 else (f"{key} value: 0", str(n))
                else:
                    summary.problems.append(f"{code!r} failed: {r.get('error')!r}")
        check(client, "the run")
    finally:
        client.close()
        summary.seconds = time.monotonic() - started
        if workspace is None:
            launcher.kill(ws)
    return summary
