"""Deeply nested programs: where the compiler's recursive passes run.

Why: the passes (scope check, lint, code generation, form printing) follow
the AST recursively, and a plain chain of sends is a deep tree
(`x := 0 + 1 + 1 ...` with 600 operators nests 600 levels).  On the
caller's thread Python stops at its recursion limit (about 330 sends) with a
`RecursionError`.  Rewriting every pass iteratively would make them much
harder to read, so instead they run on one long-lived worker thread with a
large stack and a recursion limit sized for it.  The parser already accepts
any chain length and caps bracket nesting itself; here nesting beyond
`MAX_DEPTH` levels (absurd for hand-written code) is a located "nested too
deeply" diagnostic before any pass runs, and a `RecursionError` that still
escapes becomes the same diagnostic instead of a traceback.

The hand-off to the worker costs tens of microseconds per input on a quiet
machine and up to a millisecond on a busy one (two thread switches under
the GIL): a quarter of the REPL's `3 + 4` round trip.  So input that nests
at most `INLINE_DEPTH` levels, nearly every line typed, is compiled on the
caller's thread, where it needs a few hundred frames at most; should the
caller's own stack still be too deep, the RecursionError sends it to the
worker after all.  The thread is made once, on first use.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.diagnostics import Diagnostic

from .errors import CompileError

#: AST nesting the compiler accepts; deeper input is refused with a location.
MAX_DEPTH = 10_000
#: AST nesting compiled on the caller's thread (12 frames a level: ~300 frames)
INLINE_DEPTH = 24
#: Python frames per AST level the passes may use, with room to spare.
_FRAMES_PER_LEVEL = 12
_STACK_BYTES = 512 * 1024 * 1024   # address space only: pages are touched as used

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_local = threading.local()


def _mark_worker() -> None:
    _local.worker = True


def _worker() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            old = threading.stack_size()
            threading.stack_size(_STACK_BYTES)
            try:
                ex = ThreadPoolExecutor(1, thread_name_prefix="beamtalk-compiler", initializer=_mark_worker)
                ex.submit(int).result()   # the thread starts now, with the large stack
            finally:
                threading.stack_size(old)
            _executor = ex
    return _executor


def deepest(nodes, limit: int = MAX_DEPTH):
    """(depth, node) of the deepest node below `nodes`, or of the first node
    deeper than `limit` (iterative: it must not itself hit the limit)."""
    best = (0, None)
    stack = [(n, 1) for n in nodes if isinstance(n, ast.Node)]
    while stack:
        node, d = stack.pop()
        if d > best[0]:
            best = (d, node)
            if d > limit:
                return best
        stack.extend((c, d + 1) for c in node.children())
    return best


def too_deep(node, source: str, filename: str) -> CompileError:
    return CompileError([Diagnostic(
        "Expression nested too deeply", node.span,
        hint=f"the compiler accepts at most {MAX_DEPTH} levels of nested sends, blocks and literals; "
             f"split it with temporaries")], source, filename)


def run(fn, module, source: str, filename: str, *args, **kwargs):
    """`fn(*args, **kwargs)` on the compiler's worker thread, after checking
    that `module` (an ast.Module or a list of nodes) nests at most MAX_DEPTH
    levels.  Raises CompileError (located) for deeper input."""
    items = module.items if isinstance(module, ast.Module) else list(module)
    depth, node = deepest(items)
    if depth > MAX_DEPTH:
        raise too_deep(node, source, filename)
    if depth <= INLINE_DEPTH or getattr(_local, "worker", False):
        try:
            return fn(*args, **kwargs)
        except RecursionError:
            if getattr(_local, "worker", False):
                raise
    return _worker().submit(_call, fn, items, source, filename, args, kwargs).result()


def _call(fn, items, source, filename, args, kwargs):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 1000 + MAX_DEPTH * _FRAMES_PER_LEVEL))
    try:
        return fn(*args, **kwargs)
    except RecursionError:
        _, node = deepest(items)
        raise too_deep(node, source, filename) from None
    finally:
        sys.setrecursionlimit(old)
