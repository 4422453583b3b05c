"""The stdlib against spec/stdlib.md: every class and selector the spec lists
is understood by the node, class by class.

The selector table is read from the live spec at test time
(`tests/spec_selectors.py`); where the spec is absent (a checkout without
`../shared`) the committed copy `tests/data/stdlib_spec_selectors.tsv` is used.
"""

from __future__ import annotations

from collections import defaultdict

from spec_selectors import COPY, extract, load_rows, spec_candidates


def _symbols(selectors) -> str:
    return "#(" + ", ".join("#'" + s.replace("'", "''") + "'" for s in selectors) + ")"


async def _missing(repl, cls: str, side: str, selectors: list[str]) -> list[str]:
    receiver = cls if side == "instance" else f"{cls} class"
    code = f"{_symbols(selectors)} reject: [:s | {receiver} canUnderstand: s]"
    out = await repl.evaluate(code)
    assert out.ok, (code, out.text)
    text = out.text.strip()
    assert text.startswith("#(") and text.endswith(")"), text
    body = text[2:-1].strip()
    return [s.strip().lstrip("#").strip("'") for s in body.split(", ")] if body else []


def test_the_table_is_read_from_the_spec_and_matches_the_copy():
    rows, source = load_rows()
    assert len(rows) > 400, source
    live = next((p for p in spec_candidates() if p.is_file()), None)
    if live is not None:
        copy = [tuple(line.split("\t")) for line in COPY.read_text().splitlines()
                if line and not line.startswith("#")]
        assert extract(live.read_text()) == copy, (
            "tests/data/stdlib_spec_selectors.tsv is stale: run python tests/spec_selectors.py")


def test_the_reader_follows_the_spec_conventions():
    text = """| class | superclass |
|---|---|
| Foo | Object |
| Bar | Object |

## 1. Foo

Foo **[core]** (abstract): `size`, C `make: n`, `at: i put: v` **[core]** → `x`;
`=:= <`; `sin cos atan2:` (`notThis`). (No `gone`.)
Bar (class side): `open: p do: [:h | …]`, `Bar new` → `#()`.

## 12. Most used
`ignored`
"""
    assert extract(text) == [
        ("Bar", "class", "new"), ("Bar", "class", "open:do:"),
        ("Foo", "class", "make:"), ("Foo", "instance", "<"), ("Foo", "instance", "=:="),
        ("Foo", "instance", "at:put:"), ("Foo", "instance", "atan2:"),
        ("Foo", "instance", "cos"), ("Foo", "instance", "sin"), ("Foo", "instance", "size")]


async def test_the_question_tells_a_missing_selector(repl):
    """The reflection the test relies on is not a yes to everything."""
    assert await _missing(repl, "Float", "instance", ["asin", "noSuchSelectorHere"]) == ["noSuchSelectorHere"]
    assert await _missing(repl, "TranscriptStream", "class", ["current:", "show:"]) == ["show:"]


async def test_every_spec_selector_is_understood_by_the_node(repl):
    rows, source = load_rows()
    by_class: dict[tuple[str, str], list[str]] = defaultdict(list)
    for cls, side, sel in rows:
        by_class[(cls, side)].append(sel)
    missing = []
    for (cls, side), sels in sorted(by_class.items()):
        out = await repl.evaluate(cls)
        if not out.ok:
            missing.append(f"{cls}: class missing ({out.text.strip()})")
            continue
        for sel in await _missing(repl, cls, side, sels):
            missing.append(f"{cls}{' class' if side == 'class' else ''} >> {sel}")
    assert missing == [], f"{len(missing)} selectors of {source} missing on the node:\n" + "\n".join(missing)


def test_without_the_spec_the_committed_copy_is_used(monkeypatch, tmp_path):
    import spec_selectors
    monkeypatch.setattr(spec_selectors, "spec_candidates", lambda: [tmp_path / "absent.md"])
    rows, source = spec_selectors.load_rows()
    assert source == str(COPY)
    assert ("Float", "instance", "asin") in rows and ("TranscriptStream", "class", "current:") in rows


KINDS = {
    '[File readAll: "no/such/file.txt"] on: Error do: [:e | e kind]': "#file_not_found",
    '[File readAll: "/proc/1/mem"] on: Error do: [:e | e kind]': "#permission_denied",
    '[JSON parse: "[1,]"] on: Error do: [:e | e kind]': "#parse_error",
    '[Regex from: "("] on: Error do: [:e | e kind]': "#regex_error",
    '[Integer new] on: Error do: [:e | e kind]': "#instantiation_error",
    '[#(1, 2) at: "x"] on: Error do: [:e | e kind]': "#type_error",
    '[JSON parse: "[1,]"] on: RuntimeError do: [:e | e class]': "RuntimeError",
}


async def test_error_kinds_by_name(repl):
    for code, kind in KINDS.items():
        out = await repl.evaluate(code)
        assert out.ok and out.text == kind, (code, out.text)
