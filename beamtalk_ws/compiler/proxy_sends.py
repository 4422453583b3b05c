"""Which sends carry the Erlang function a module proxy would call.

`p reverse: xs` with `p := Erlang lists` is an Erlang call made through a
value: the runtime cannot know before the send that `p` is a proxy, but the
function it would call is a fact about the selector alone (its first
keyword, `reverse`), unless the selector is one of the ErlangModule class's
own (its methods and ProtoObject's: `printString`, `call:args:`, ...).
Both classes are protected stdlib classes that nobody can change or extend
(beamtalk_class refuses it), so that set is known from their source here.
A send whose selector is not in it names the function in the call
(runtime_abi.SEND_CALLING); the runtime's proxy clause calls it without a
per-process lookup, which was most of the cost of such a call next to the
call written out (`Erlang lists reverse: xs`, scripts/bench_runtime.py).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from beamtalk_ws.interop_names import PROXY_OWN_SELECTORS
from beamtalk_ws.syntax import ast, parse

#: stdlib/ (compiler/stdlib.py has the same; importing it here would make a
#: cycle through the code generator)
STDLIB = Path(__file__).resolve().parents[2] / "stdlib"

#: The classes whose instance methods a proxy answers itself.
PROXY_CLASS_FILES = ("erlang_module.bt", "proto_object.bt")


@lru_cache(maxsize=1)
def proxy_method_selectors() -> frozenset:
    """The selectors a module proxy answers with a method, not a call."""
    selectors = set(PROXY_OWN_SELECTORS)
    for name in PROXY_CLASS_FILES:
        path = STDLIB / name
        module = parse(path.read_text(encoding="utf-8"), str(path))
        for item in module.items:
            if isinstance(item, ast.ClassDef):
                selectors.update(m.selector for m in item.methods if not m.class_side)
    return frozenset(selectors)


def proxy_function(selector: str):
    """The Erlang function a proxy would call for `selector`, or None when a
    proxy answers it with a method or it is a binary selector."""
    if not (selector[:1].isalpha() or selector[:1] == "_") or selector in proxy_method_selectors():
        return None
    return selector.split(":", 1)[0]
