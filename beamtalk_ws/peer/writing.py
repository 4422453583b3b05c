"""`Workspace flush` on the node: the peer writes the pending changes the
node sends (`{writeback, [Change]}`, see beamtalk_changes.erl) with
`package/writeback.py`, and tells its watches the hash of what it wrote, so
a watch on `src/` does not reload a file whose content is already live.
"""

from __future__ import annotations

from pathlib import Path

from beamtalk_ws.dist.terms import Atom
from beamtalk_ws.package import writeback

OK = Atom("ok")
ERROR = Atom("error")
NIL = Atom("nil")


def _text(v) -> str | None:
    if v is None or v == NIL or v == Atom("none"):
        return None
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("utf-8")
    return str(v)


def change_of(t) -> writeback.Change:
    """`{Id, Class, Kind, Selector, ClassSide, Source, Doc, File, BaseHash}`."""
    id_, cls, kind, sel, side, source, doc, file, base = t
    return writeback.Change(int(id_), str(cls), str(kind), _text(sel), side is True, _text(source), _text(doc),
                            Path(_text(file)), _text(base))


def flush(terms, live_hashes: dict) -> tuple:
    """`{ok, [{ok, File, Hash, Ids, Text} | {error, File, Text, Ids}]}`."""
    results = writeback.flush([change_of(t) for t in terms])
    out = []
    for r in results:
        if r[0] == "ok":
            _, path, digest, ids, text = r
            live_hashes[path.resolve()] = digest
            out.append((OK, str(path).encode(), digest.encode(), list(ids), text.encode()))
        else:
            _, path, text, ids = r
            out.append((ERROR, str(path).encode(), text.encode(), list(ids)))
    return (OK, out)
