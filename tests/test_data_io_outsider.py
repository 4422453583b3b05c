"""Data in and out as an outsider meets it (files, JSON, DateTime): the
defects the outsider check found, each against a real node.

A Python user compares with `pathlib.read_text`, `json.loads` and
`datetime`: a file that is not UTF-8 is an error at the read (not a raw
binary printed as `<<99, 97, ...>>` that fails later), a JSON error in a
multi-line text names its line and column, and a DateTime never prints
`****` for its year.
"""

from __future__ import annotations


async def _err(repl, code: str) -> str:
    out = await repl.evaluate(code)
    assert not out.ok, (code, out.text)
    return out.text


async def _ok(repl, code: str) -> str:
    out = await repl.evaluate(code)
    assert out.ok, (code, out.text)
    return out.text


# --- files ---------------------------------------------------------------

async def test_a_file_that_is_not_utf8_is_an_error_at_the_read(repl, tmp_path):
    p = tmp_path / "latin.txt"
    p.write_bytes(b"caf\xe9\nok\n")
    await _ok(repl, "keep := 41 + 1")
    for code in (f'File readAll: "{p}"', f'File readLines: "{p}"', f'(File lines: "{p}") asList',
                 f'File open: "{p}" do: [:h | h readLines]'):
        text = await _err(repl, code)
        assert f'Cannot read "{p}": the file is not UTF-8 text (byte 0xE9 at offset 3)' in text, text
        assert "<<" not in text and "Hint:" in text and "iconv" in text, text
    assert await _ok(repl, "keep") == "42"
    kind = await _ok(repl, f'[File readAll: "{p}"] on: Error do: [:e | e kind]')
    assert kind == "#runtime_error"


async def test_a_utf8_file_still_reads_whole_and_by_lines(repl, tmp_path):
    p = tmp_path / "ok.txt"
    p.write_bytes("größe ✓ 😀\r\nzwei".encode())
    assert await _ok(repl, f'File readLines: "{p}"') == '#("größe ✓ 😀", "zwei")'
    assert await _ok(repl, f'(File readAll: "{p}") size') == "14"   # graphemes: "\r\n" is one


async def test_a_missing_directory_of_an_absolute_path_is_named(repl, tmp_path):
    target = tmp_path / "no_such_dir" / "x.txt"
    text = await _err(repl, f'File writeAll: "{target}" contents: "x"')
    assert f'Cannot write "{target}": No such file or directory' in text
    assert f"Hint: The directory {tmp_path / 'no_such_dir'} does not exist" in text, text
    # an absolute path gets no hint about where relative paths start
    text = await _err(repl, f'File readAll: "{tmp_path / "nope.txt"}"')
    assert "Relative paths" not in text, text
    text = await _err(repl, 'File readAll: "surely/not/here.txt"')
    assert "Hint: Relative paths start at the workspace directory" in text, text


# --- JSON ----------------------------------------------------------------

async def test_a_json_error_in_a_multi_line_text_names_line_and_column(repl, tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{\n  "a": 1,\n  "b": [1, 2,]\n}\n')
    text = await _err(repl, f'JSON parse: (File readAll: "{p}")')
    assert ("JSON parse error at offset 25 (line 3, column 14): "
            "expected a JSON value, found ']'") in text, text
    # one-line texts keep the short form the README shows
    text = await _err(repl, 'JSON parse: "[1,]"')
    assert "JSON parse error at offset 3: expected a JSON value, found ']'" in text, text


async def test_json_written_with_a_backslash_brace_gets_a_hint(repl):
    text = await _err(repl, 'JSON parse: "\\{""a"": 1}"')
    assert "found '\\'" in text and "\\{" in text and 'drop: 1' in text, text


async def test_json_with_a_byte_order_mark_parses(repl, tmp_path):
    p = tmp_path / "bom.json"
    p.write_bytes(b'\xef\xbb\xbf[1, "x"]')
    assert await _ok(repl, f'JSON parse: (File readAll: "{p}")') == '#(1, "x")'


async def test_json_parse_of_bytes_that_are_not_utf8_says_so(repl):
    text = await _err(repl, "JSON parse: (Erlang erlang list_to_binary: #(91, 233, 93))")
    assert "JSON parse: the text is not UTF-8 (byte 0xE9 at offset 1)" in text, text


async def test_json_nil_key_is_written_as_null_like_python(repl):
    assert await _ok(repl, "JSON generate: #{nil => 1}") == '"{""null"":1}"'


# --- DateTime ------------------------------------------------------------

async def test_a_datetime_after_year_9999_is_refused_not_printed_as_stars(repl):
    for code in ("DateTime fromTimestamp: 253402300800",
                 "DateTime year: 10000 month: 1 day: 1",
                 "(DateTime year: 9999 month: 12 day: 31) addDays: 1",
                 "(DateTime year: 9999 month: 12 day: 31 hour: 23 minute: 59 second: 59) addSeconds: 1"):
        text = await _err(repl, code)
        assert "DateTime after year 9999 is not supported" in text and "****" not in text, text
    assert await _ok(repl, "(DateTime fromTimestamp: 253402300799) asString") == '"9999-12-31T23:59:59Z"'


async def test_an_invalid_date_is_named_in_iso_form(repl):
    text = await _err(repl, 'DateTime fromString: "2024-02-30"')
    assert "Invalid date and time: 2024-02-30T00:00:00" in text, text


# --- streams -------------------------------------------------------------

async def test_write_stream_and_delay_name_the_beamtalk_way(repl):
    text = await _err(repl, "WriteStream on: String new")
    assert "Class 'WriteStream' not found" in text and "join:" in text and "++" in text, text
    text = await _err(repl, "(Delay forSeconds: 1) wait")
    assert "Class 'Delay' not found" in text and "Erlang timer sleep: 1000" in text, text
    assert await _ok(repl, "Erlang timer sleep: 10") == "#ok"
    text = await _err(repl, "ReadStream on: #(1, 2)")
    assert "#(1, 2, 3) stream" in text, text


async def test_json_typed_as_a_string_literal_gets_the_brace_hint(repl):
    text = await _err(repl, 'JSON parse: "{""a"": 1}"')
    assert "Unexpected token in string interpolation" in text, text
    assert "for a literal brace (JSON text) write \\{" in text, text
    # the hint's own example works as written
    assert await _ok(repl, 'JSON parse: ("\\{" drop: 1) ++ """a"": 1}"') == '#{"a" => 1}'
    # an interpolation that is an expression keeps its own hint
    text = await _err(repl, '"{x := 1}"')
    assert "an interpolation holds one expression" in text, text


# --- the names other languages use ----------------------------------------

async def test_python_and_pharo_names_for_data_selectors_get_the_beamtalk_one(repl):
    expected = {
        "JSON dumps: #(1)": "JSON generate: value",
        "JSON stringify: #(1)": "JSON generate: value",
        'JSON loads: "[1]"': "JSON parse: text",
        'File appendAll: "x.txt" contents: "y"': "(File readAll: p) ++ more",
        'File delete: "x.txt"': "Erlang file delete: p",
        "10 atRandom": "Random nextInteger: n",
        "Random between: 1 and: 10": "Random nextInteger: n",
        "#(1, 2, 3) shuffled": "Random next -> x",
    }
    for code, hint in expected.items():
        text = await _err(repl, code)
        assert "does not understand" in text and hint in text, (code, text)
    # the shuffle the hint shows works as written
    out = await _ok(repl, "c := #(1, 2, 3, 4, 5). ((c collect: [:x | Random next -> x]) sort "
                          "collect: [:a | a value]) sort")
    assert out == "#(1, 2, 3, 4, 5)"


async def test_file_read_lines_names_itself_in_a_type_error(repl):
    text = await _err(repl, 'File readLines: "x.txt" size')
    assert "File readLines: expects a path String, not an Integer" in text, text


async def test_json_generate_refuses_a_key_written_twice_and_bytes_that_are_not_text(repl):
    text = await _err(repl, 'JSON generate: #{"a" => 1, #a => 2}')
    assert 'would write the key "a" twice (from #a and "a")' in text, text
    text = await _err(repl, "JSON generate: (Erlang erlang list_to_binary: #(233))")
    assert "cannot encode bytes that are not UTF-8 text" in text and "<<" not in text, text
