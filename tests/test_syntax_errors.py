"""Diagnostics: spec wording, spans, rendering, error recovery, and the
``beamtalk check`` command."""

import os

import pytest

from beamtalk_ws.syntax import (
    Diagnostic,
    Span,
    SyntaxErrors,
    parse,
    parse_with_diagnostics,
    render_diagnostic,
)
from beamtalk_ws.syntax.check import check_main, collect_files


def diags(src):
    return parse_with_diagnostics(src)[1]


# every error message quoted by spec/syntax.md (and repl.md §7), with the
# position (line, col) it is reported at
SPEC_MESSAGES = [
    ("]", "Unexpected token: expected expression, found ]", (1, 1)),
    ("[:x | x + 1", "Expected ']' to close block", (1, 12)),
    ("123 + ", "Unexpected token: expected expression, found +", (1, 5)),
    ("(1 + 2]", "Expected ')' to close parentheses", (1, 7)),
    ("[:x x + 1]", "Expected '|' after block parameters", (1, 5)),
    ("obj foo:", "Unexpected token: expected expression, found foo:", (1, 5)),
    ("1 + + 2", "Unexpected token: expected expression, found +", (1, 5)),
    ("1; 2; 3", "Expected message selector in cascade", (1, 4)),
    ('"{}"', "empty interpolation {} is not allowed, use \\{ for literal brace", (1, 2)),
    ('x := "a {  } b"', "empty interpolation {} is not allowed, use \\{ for literal brace", (1, 9)),
    ("'hello'", 'single-quoted strings are no longer supported, use double quotes: "hello"', (1, 1)),
    ("x := 9223372036854775808", "Invalid integer: 9223372036854775808", (1, 6)),
    ("x := 2r102", "Invalid integer: 2r102", (1, 6)),
    ("Foo := 3", "Assignment target must be an identifier or field access", (1, 1)),
    ("Transcript := 3", "Transcript is a system name and cannot be shadowed", (1, 1)),
    ("x := Workspace := 3", "Workspace is a system name and cannot be shadowed", (1, 6)),
    ("x := " + "(" * 65 + "1" + ")" * 65, "Expression nesting is too deep", (1, 70)),
    ("Object subclass: #Foo", "Expected class name", (1, 18)),
    ('@primitive "+"', "@primitive can only appear inside a method body (after =>)", (1, 1)),
    ("Object subclass: A\n  foo =>\n  bar => 1", "Method `foo` has an empty body", (2, 7)),
    ("x := a b!", "Cast '!' can only follow a message send", (1, 9)),
    ("{1, 2}", "Unexpected token: expected expression, found {", (1, 1)),
    ('x > 0\n  ifTrue: ["pos"]', "a keyword message cannot start a line: join it to the line above", (2, 3)),
]


@pytest.mark.parametrize("src,msg,pos", SPEC_MESSAGES)
def test_spec_error_messages(src, msg, pos):
    ds = diags(src)
    assert ds, src
    assert ds[0].message == msg
    assert (ds[0].span.line, ds[0].span.col) == pos
    assert ds[0].severity == "error"


@pytest.mark.parametrize(
    "src,fragment",
    [
        ('"hello', '"hello'),
        ("#", "#"),
        ("café := 1", "é"),
        ("counter🚀", "🚀"),
        ("计数器", "计"),
        ("42$", "$"),
    ],
)
def test_error_messages_mention_the_offending_text(src, fragment):
    assert fragment in diags(src)[0].message


def test_every_diagnostic_has_a_span_inside_the_source():
    for src, _msg, _pos in SPEC_MESSAGES:
        for d in diags(src):
            assert isinstance(d.span, Span)
            assert 0 <= d.span.start <= d.span.end <= len(src)


# ----------------------------------------------------------------- rendering

def test_render_format():
    src = "x := 1\ny := ]\n"
    with pytest.raises(SyntaxErrors) as ei:
        parse(src, "demo.bt")
    text = ei.value.render()
    assert text == (
        "demo.bt:2:6: Unexpected token: expected expression, found ]\n"
        "  y := ]\n"
        "       ^"
    )


def test_render_underlines_the_whole_token():
    src = "x := foo bar: baz:"
    text = parse_with_diagnostics(src)[1][0].render(src, "f.bt")
    assert text.splitlines()[1:] == ["  x := foo bar: baz:", "                ^^^^"]


def test_render_keeps_tabs_aligned():
    src = "\tx := ]"
    text = render_diagnostic(diags(src)[0], src, "t.bt")
    assert text.splitlines()[2] == "  \t     ^"


def test_render_aligns_the_caret_after_wide_and_combining_characters():
    """A terminal shows CJK and emoji two columns wide and a combining mark
    or ZWJ in none: the caret stood left of the error after `"日本語"`."""
    src = 'x := "日本語" + .'
    lines = render_diagnostic(diags(src)[0], src, "t.bt").splitlines()
    assert lines[2] == "  " + " " * 16 + "^"   # 5 + quote + 3 * 2 + quote + " + "
    src = 'y := "cafe\u0301 👨\u200d👩\u200d👧" + ]'
    lines = render_diagnostic(diags(src)[0], src, "t.bt").splitlines()
    assert lines[2] == "  " + " " * len('y := "cafe xxxxxx" + ') + "^"
    # a wide token is underlined across its columns
    d = Diagnostic("Unexpected character", Span(5, 7, 1, 6))
    assert render_diagnostic(d, "x := 日本", "t.bt").splitlines()[2] == "       ^^^^"


def test_render_hint():
    d = Diagnostic("Something", Span(0, 1, 1, 1), hint="try this")
    assert render_diagnostic(d, "x", "a.bt") == "a.bt:1:1: Something\n  x\n  ^\n  hint: try this"


def test_render_warning_prefix():
    d = Diagnostic("Unused variable", Span(0, 1, 1, 1), severity="warning")
    assert render_diagnostic(d, "x", "a.bt").startswith("a.bt:1:1: warning: Unused variable")


def test_render_at_end_of_input():
    src = "[:x | x + 1"
    text = render_diagnostic(diags(src)[0], src, "e.bt")
    assert text.splitlines() == ["e.bt:1:12: Expected ']' to close block", "  [:x | x + 1", "             ^"]


def test_syntax_errors_exception():
    with pytest.raises(SyntaxErrors) as ei:
        parse("]\n)", "x.bt")
    e = ei.value
    assert len(e.diagnostics) == 2
    assert str(e).startswith("x.bt:1:1: ")
    assert e.messages() == [
        "Unexpected token: expected expression, found ]",
        "Unexpected token: expected expression, found )",
    ]


# ----------------------------------------------------------------- recovery

def test_several_independent_errors_in_a_file():
    src = "x := 1 + + 2\ny := ]\nok := 3\nz := (1 + 2]\nw := [:a a]\n"
    ds = diags(src)
    assert [(d.span.line, d.message) for d in ds] == [
        (1, "Unexpected token: expected expression, found +"),
        (2, "Unexpected token: expected expression, found ]"),
        (4, "Expected ')' to close parentheses"),
        (5, "Expected '|' after block parameters"),
    ]


def test_recovery_after_period_on_same_line():
    ds = diags("x := ]. y := )")
    assert [d.message for d in ds] == [
        "Unexpected token: expected expression, found ]",
        "Unexpected token: expected expression, found )",
    ]


def test_recovery_keeps_good_statements():
    m, ds = parse_with_diagnostics("a := 1\nb := ]\nc := 3")
    assert len(ds) == 1
    assert [type(i).__name__ for i in m.items] == ["Assignment", "Assignment"]


def test_error_inside_block_does_not_cascade():
    ds = diags("x := [:a | a + + 1. a]\ny := 2")
    assert [d.message for d in ds] == ["Unexpected token: expected expression, found +"]


# ----------------------------------------------------------------- beamtalk check

@pytest.fixture
def tree(tmp_path):
    (tmp_path / "good.bt").write_text("Object subclass: A\n  foo => 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.bt").write_text("x := ]\ny := 1 + + 2\n")
    (tmp_path / "sub" / "notes.txt").write_text("]]]")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.bt").write_text("]")
    return tmp_path


def test_check_reports_and_exit_status(tree, capsys):
    rc = check_main([str(tree)])
    out, err = capsys.readouterr()
    bad = os.path.join(str(tree), "sub", "bad.bt")
    assert rc == 1
    assert out.splitlines() == [
        f"{bad}:1:6: Unexpected token: expected expression, found ]",
        "  x := ]",
        "       ^",
        f"{bad}:2:10: Unexpected token: expected expression, found +",
        "  y := 1 + + 2",
        "           ^",
    ]
    assert "2 files checked: 2 errors" in err


def test_check_ok(tree, capsys):
    assert check_main([str(tree / "good.bt")]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "1 file checked, no errors" in err


def test_check_emit_ast(tree, capsys):
    assert check_main(["--emit", "ast", str(tree / "good.bt")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Module\n  items: [\n    ClassDef\n      name: 'A'")
    assert "MethodDef" in out and "selector: 'foo'" in out


def test_check_emit_source(tree, capsys):
    assert check_main(["--emit", "source", str(tree / "good.bt")]) == 0
    assert capsys.readouterr().out == "Object subclass: A\n  foo =>\n    1\n"


def test_check_emit_ast_of_bad_file(tree, capsys):
    assert check_main(["--emit", "ast", str(tree / "sub" / "bad.bt")]) == 1
    assert "Module" not in capsys.readouterr().out


def test_check_usage_errors(tree, capsys):
    assert check_main([]) == 2
    assert check_main([str(tree / "missing.bt")]) == 2
    assert check_main(["--emit", "ast", str(tree)]) == 2
    assert check_main(["--bogus"]) == 2


def test_check_extra_passes(tree, capsys):
    seen = []

    def semantic(module, source, filename):
        seen.append(filename)
        return [Diagnostic("Undefined variable: foo", Span(0, 6, 1, 1))]

    def warn(module, source, filename):
        return [Diagnostic("just saying", Span(0, 1, 1, 1), severity="warning")]

    assert check_main([str(tree / "good.bt")], extra_passes=[warn]) == 0
    assert check_main([str(tree)], extra_passes=[semantic]) == 1
    out = capsys.readouterr().out
    assert "good.bt:1:1: Undefined variable: foo" in out
    # extra passes only run on files that parsed
    assert seen == [str(tree / "good.bt")]


def test_collect_files(tree):
    files, missing = collect_files([str(tree), str(tree / "nope")])
    assert [os.path.relpath(f, tree) for f in files] == ["good.bt", os.path.join("sub", "bad.bt")]
    assert missing == [str(tree / "nope")]
    # a file reached by two of the paths is checked once
    files, _ = collect_files([str(tree), str(tree / "sub"), str(tree / "good.bt")])
    assert [os.path.relpath(f, tree) for f in files] == ["good.bt", os.path.join("sub", "bad.bt")]


def test_check_invalid_utf8(tmp_path, capsys):
    f = tmp_path / "bin.bt"
    f.write_bytes(b"x := \xff\xfe 1\n")
    assert check_main([str(f)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{f}:1:6: the file is not UTF-8 text: byte 0xff")
    assert "hint: Beamtalk source is UTF-8" in out


def test_check_invalid_utf8_inside_a_string_is_an_error_too(tmp_path, capsys):
    # it decoded to U+FFFD and the file passed ("no errors") before
    f = tmp_path / "str.bt"
    f.write_bytes(b'x := 1.\ny := "caf\xe9"\n')
    assert check_main([str(f)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"{f}:2:10: the file is not UTF-8 text: byte 0xe9")
    assert "1 file checked: 1 error" in err


def test_check_emit_forms_of_invalid_utf8_is_located_not_internal(tmp_path):
    from beamtalk_ws.compiler.check import emit_forms
    import io

    f = tmp_path / "str.bt"
    f.write_bytes(b'y := "caf\xe9"\n')
    out = io.StringIO()
    assert emit_forms(str(f), out) == 1
    assert out.getvalue().startswith(f"{f}:1:10: the file is not UTF-8 text")


def test_a_byte_order_mark_at_the_start_of_a_file_is_not_a_character(tmp_path, capsys):
    f = tmp_path / "bom.bt"
    f.write_bytes("\ufeffObject subclass: Bom\n  bar => 1\n".encode("utf-8"))
    assert check_main([str(f)]) == 0
    assert "no errors" in capsys.readouterr().err


def test_unclosed_bracket_in_a_method_does_not_swallow_the_next_methods():
    src = "Object subclass: A\n  foo => [:x | x\n  bar => ]\n  baz => 1 + + 2\n  ok => 1\n"
    m, ds = parse_with_diagnostics(src)
    assert [(d.span.line, d.message) for d in ds] == [
        (3, "Expected ']' to close block"),
        (3, "Unexpected token: expected expression, found ]"),
        (4, "Unexpected token: expected expression, found +"),
    ]
    assert [x.selector for x in m.items[0].methods] == ["ok"]


def test_an_error_in_a_method_does_not_end_the_class_body():
    """A broken method (a keyword on the next line, Pharo temporaries) is
    skipped up to the next method: a period inside it used to end the class
    body, and every later method was reported as outside a class."""
    src = ("Actor subclass: Inv\n  state: items = #{}\n\n  add: x =>\n    (self.items includesKey: x)\n"
           "      ifTrue: [^self error: \"dup\"].\n    self.items := self.items at: x put: 1.\n    ^x\n\n"
           "  take: n =>\n    | item |\n    item := self.items at: n.\n    ^item\n\n"
           "  value => ^self.items size\n\n  countWhere: aBlock =>\n    n := 0.\n    ^n\n")
    found = diags(src)
    assert [(d.span.line, d.message.split(":")[0]) for d in found] == [
        (6, "a keyword message cannot start a line"),
        (11, "Unexpected token")]
    module, _ = parse_with_diagnostics(src)
    assert [m.selector for m in module.items[0].methods] == ["value", "countWhere:"]


def test_a_very_long_source_line_is_shown_around_the_caret():
    # an error on a 100 000-character line printed the whole line and a
    # caret line as long (200 000 characters for one diagnostic)
    src = "x := " + "1 + " * 25000 + "]"
    d = diags(src)[0]
    out = render_diagnostic(d, src)
    first, line, caret = out.splitlines()[:3]
    assert first == f"<input>:1:{len(src)}: Unexpected token: expected expression, found ]"
    assert len(line) < 200 and line.startswith("  …") and line.endswith("]")
    assert caret.endswith("^") and len(caret) == len(line)
    assert line[caret.index("^")] == "]"


def test_a_short_line_is_shown_whole():
    out = render_diagnostic(diags("x := ]")[0], "x := ]")
    assert out.splitlines()[1:] == ["  x := ]", "       ^"]
