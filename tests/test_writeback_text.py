"""The text edits of package/writeback.py on their own (no node): what a
flush writes into a file, and what it keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from beamtalk_ws.package import writeback as wb
from beamtalk_ws.syntax import parse

FILE = """\
/// A stack.
Object subclass: Stack
  state: items = #()

  // the top, or nil
  top => self.items isEmpty ifTrue: [nil] ifFalse: [self.items first]

  /// How many.
  size => self.items size
"""


def change(kind, sel=None, source=None, side=False, doc=None, base="x"):
    return wb.Change(1, "Stack", kind, sel, side, source, doc, Path("/p/src/stack.bt"), base)


def test_a_multi_line_method_is_indented_like_the_others_and_parses():
    src = "drain =>\n      n := self size.\n      n * 2"
    out = wb.apply_changes(FILE, [change("method", "drain", src)], "stack.bt")
    assert out.startswith(FILE)
    assert out[len(FILE):] == "\n  drain =>\n    n := self size.\n    n * 2\n"
    names = [m.selector for m in parse(out).items[0].methods]
    assert names == ["top", "size", "drain"]


def test_a_class_side_method_and_a_new_doc():
    out = wb.apply_changes(FILE, [change("method", "empty", "empty => self new", side=True, doc="An empty one.")],
                           "stack.bt")
    assert out.endswith("\n  /// An empty one.\n  class empty => self new\n")


def test_replacing_with_a_doc_replaces_the_doc_and_removing_takes_the_doc_along():
    out = wb.apply_changes(FILE, [change("method", "size", "size => 0", doc="Always none.")], "stack.bt")
    assert "  /// Always none.\n  size => 0\n" in out and "How many" not in out
    out = wb.apply_changes(FILE, [change("remove", "size")], "stack.bt")
    # (with the blank line that separated it)
    assert out == FILE[: FILE.index("\n  /// How many.")]


def test_a_file_that_no_longer_parses_is_refused_with_its_error():
    with pytest.raises(wb.WritebackError, match="does not parse any more"):
        wb.apply_changes("Object subclass: Stack\n  top => (\n", [change("method", "x", "x => 1")], "stack.bt")


def test_a_file_without_the_class_is_refused():
    with pytest.raises(wb.WritebackError, match="does not define class Stack"):
        wb.apply_changes("Object subclass: Other\n  a => 1\n", [change("method", "x", "x => 1")], "stack.bt")


def test_flush_file_is_atomic_and_checks_the_hash(tmp_path):
    f = tmp_path / "stack.bt"
    f.write_text(FILE)
    c = wb.Change(1, "Stack", "method", "x", False, "x => 1", None, f, wb.sha256(FILE.encode()))
    digest, text = wb.flush_file(f, [c], "src/stack.bt")
    assert text == "Wrote src/stack.bt (1 change)"
    assert wb.sha256(f.read_bytes()) == digest
    assert [p.name for p in tmp_path.iterdir()] == ["stack.bt"]
    with pytest.raises(wb.WritebackError, match="changed on disk"):
        wb.flush_file(f, [c], "src/stack.bt")   # the base hash is the old file's


@pytest.mark.parametrize("umask, mode", [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)])
def test_a_new_file_follows_the_umask_like_an_editor(tmp_path, umask, mode):
    """A new `src/` file was 0644 whatever the umask: a user who keeps files
    private (umask 077) got world-readable source from a flush."""
    import os
    import stat

    old = os.umask(umask)
    try:
        wb.write_atomic(tmp_path / "new.bt", b"Object subclass: A\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.bt").stat().st_mode) == mode
