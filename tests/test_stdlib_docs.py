"""The stdlib's documentation as a learner reads it at the prompt: every
class has a doc comment, every selector spec/stdlib.md lists answers
`:help C sel` with text (not "No documentation."), and every example in a
stdlib doc comment (```beamtalk blocks, `// =>` lines) gives the answer it
states, run as `beamtalk test` runs a doc-test file.
"""

from __future__ import annotations

import re
from pathlib import Path

from spec_selectors import load_rows

from beamtalk_ws import doctest
from beamtalk_ws.repl.commands import _methods, _text

STDLIB = Path(__file__).resolve().parents[1] / "stdlib"


def _class_of(path: Path) -> str:
    return re.search(r"subclass:\s*(\w+)", re.sub(r"(?m)^\s*///.*$", "", path.read_text())).group(1)


def doc_examples(text: str) -> list[str]:
    """The ```beamtalk blocks of the `///` comments of one file."""
    blocks, current = [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*/// ?(.*)$", line)
        if not m:
            current = None
            continue
        body = m.group(1)
        if body.strip().startswith("```"):
            if current is None and body.strip() in ("```", "```beamtalk"):
                current = []
                blocks.append(current)
            else:
                current = None
            continue
        if current is not None:
            current.append(body)
    return ["\n".join(b) + "\n" for b in blocks]


def test_the_example_reader_finds_fenced_blocks_only():
    text = ("/// Intro `3 + 4`.\n///\n/// ```beamtalk\n/// 3 + 4   // => 7\n/// ```\n"
            "Object subclass: A\n  /// ```\n  /// 1 + 1 // => 2\n  /// ```\n  foo => 1\n")
    assert doc_examples(text) == ["3 + 4   // => 7\n", "1 + 1 // => 2\n"]


async def test_every_stdlib_class_has_a_doc_comment(client):
    missing = []
    for path in sorted(STDLIB.glob("*.bt")):
        name = _class_of(path)
        docs = await client.class_docs(name)
        assert docs is not None, name
        if not _text(docs.get("doc")):
            missing.append(name)
    assert not missing


async def test_every_selector_the_spec_lists_has_documentation(client):
    rows, source = load_rows()
    undocumented = []
    cache = {}
    for cls, side, sel in rows:
        if cls not in cache:
            cache[cls] = await client.class_docs(cls)
        docs = cache[cls]
        assert docs is not None, (cls, source)
        found = {s: doc for s, _, doc in _methods(docs, side)}
        if not found.get(sel):
            undocumented.append(f"{cls}{' class' if side == 'class' else ''} >> {sel}")
    assert not undocumented, undocumented


async def test_every_example_in_a_stdlib_doc_comment_answers_what_it_states(repl, tmp_path):
    ran, failed = 0, []
    for path in sorted(STDLIB.glob("*.bt")):
        for n, block in enumerate(doc_examples(path.read_text())):
            file = tmp_path / f"{path.stem}_{n}.bt"
            file.write_text(block)
            for result in await doctest.run_file(repl, file):
                ran += 1
                if result.status != "pass":
                    failed.append((path.name, result.message))
    assert ran >= 12
    assert not failed, failed
