"""Text as a Python or Elixir user processes it (outsider check of Strings,
code points and the CLI's text encoding), against a real node.

Inputs holding a CR or a Unicode space are written here rather than in a
`.scn` transcript, whose lines are split at every line end.
"""

from __future__ import annotations

import os
import subprocess
import uuid

from conftest import beamtalk_cmd
from helpers import ok


# -- lines: Windows line ends -------------------------------------------------------

async def test_lines_drop_the_cr_of_crlf(repl):
    # Python: "a\r\nb\r\nc".splitlines() == ["a", "b", "c"]; README: `File
    # lines:` drops a "\r" before "\n" "as String lines" does.
    assert await ok(repl, '"a\r\nb\r\nc" lines') == '#("a", "b", "c")'
    assert await ok(repl, '"a\r\nb\r\n" lines') == '#("a", "b")'
    assert await ok(repl, '"a\r\n\r\nb" lines') == '#("a", "", "b")'
    assert await ok(repl, '"héllo\r\nwörld" lines') == '#("héllo", "wörld")'
    # A CR not before LF is text, as in File lines: (and the spec's "split at \n").
    assert await ok(repl, '"a\rb\nc" lines') == '#("a\rb", "c")'
    assert await ok(repl, '("x\r\ny" lines collect: [:l | l size])') == "#(1, 1)"


# -- whitespace is Unicode's ----------------------------------------------------------

async def test_trim_removes_unicode_spaces(repl):
    # Python: "\u2003hi\u3000".strip() == "hi"; "\xa0x\xa0".strip() == "x"
    assert await ok(repl, '"\u2003hi\u3000" trim') == '"hi"'
    assert await ok(repl, '"\u00a0 x \u00a0" trim') == '"x"'
    assert await ok(repl, '"\u2003hi " trimLeft') == '"hi "'
    assert await ok(repl, '" hi\u3000" trimRight') == '" hi"'
    assert await ok(repl, '"\u2003\u00a0" isBlank') == "true"
    assert await ok(repl, '"\u2003x" isBlank') == "false"
    # A combining mark after a space belongs to a grapheme that is not blank.
    assert await ok(repl, '"é " trim size') == "1"


async def test_words_split_at_unicode_spaces(repl):
    # Python: "日本\u3000語 x\u2003y".split() == ["日本", "語", "x", "y"]
    assert await ok(repl, '"日本\u3000語 x\u2003y" words') == '#("日本", "語", "x", "y")'
    assert await ok(repl, '"a\u00a0b" words') == '#("a", "b")'
    assert await ok(repl, '"one\ttwo\r\nthree" words') == '#("one", "two", "three")'


# -- capitalize is title case ---------------------------------------------------------

async def test_capitalize_uses_title_case(repl):
    # Python: "ßa".capitalize()[0:2] == "Ss", "ǆemal" -> "ǅemal" (title case)
    assert await ok(repl, '"ßa" capitalize') == '"Ssa"'
    assert await ok(repl, '"ǆemal" capitalize') == '"ǅemal"'
    assert await ok(repl, '"éclair" capitalize') == '"Éclair"'
    assert await ok(repl, '"hello World" capitalize') == '"Hello World"'


# -- character predicates on code points are Unicode's ------------------------------

async def test_character_predicates_are_unicode(repl):
    # Python: "é".isalpha(), "Ω".isupper(), "ω".islower(), "\u3000".isspace()
    for code, expected in [
        ("$é isLetter", "true"), ("$日 isLetter", "true"), ("$1 isLetter", "false"),
        ("$Ω isUppercase", "true"), ("$ω isUppercase", "false"),
        ("$ω isLowercase", "true"), ("$É isLowercase", "false"),
        ("(Character value: 16r3000) isWhitespace", "true"),
        ("(Character value: 16rA0) isWhitespace", "true"),
        ("$a isWhitespace", "false"),
        ("$a isLetter", "true"), ("$Z isUppercase", "true"), ("$z isLowercase", "true"),
        ("$5 isDigit", "true"), ("$x isDigit", "false"),
        ("$é isVowel", "false"),
        ("-1 isLetter", "false"), ("16r110000 isLetter", "false"),
    ]:
        assert await ok(repl, code) == expected, code


# -- the CLI in a C locale without Python's UTF-8 mode ----------------------------------

def _c_locale_env():
    """The environment of a C locale where Python keeps ASCII stdio (no locale
    coercion, no UTF-8 mode): what a minimal container or cron job gives."""
    env = dict(os.environ, LC_ALL="C", LANG="C", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0")
    env.pop("PYTHONIOENCODING", None)
    return env


def test_repl_reads_and_writes_utf8_in_an_ascii_locale(workspace):
    code = '"é" size\n"日本 🎉" reverse\nTranscript showCr: "wörld"\n'.encode("utf-8")
    proc = subprocess.run(beamtalk_cmd() + ["repl", "--workspace", workspace.id, "--session",
                                            "c" + uuid.uuid4().hex[:6]],
                          input=code, capture_output=True, timeout=60, env=_c_locale_env())
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert "badarg" not in out and "internal error" not in proc.stderr.decode("utf-8", "replace")
    assert out.splitlines()[:3] == ["1", '"🎉 本日"', "wörld"], out


def test_run_writes_utf8_in_an_ascii_locale(workspace, tmp_path):
    pkg = tmp_path / "textc"
    (pkg / "src").mkdir(parents=True)
    (pkg / "beamtalk.toml").write_text('[package]\nname = "textc"\nversion = "0.1.0"\nstart = "main"\n')
    (pkg / "src" / "main.bt").write_text(
        'Object subclass: Main\n  class start =>\n    Transcript showCr: "Ünïcödé {"日本" size}"\n',
        encoding="utf-8")
    proc = subprocess.run(beamtalk_cmd() + ["run", "--workspace", workspace.id], cwd=pkg,
                          capture_output=True, timeout=120, env=_c_locale_env())
    err_text = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err_text
    assert "internal error" not in err_text
    assert "Ünïcödé 2" in proc.stdout.decode("utf-8")


def test_piped_input_that_is_not_utf8_is_a_located_error_and_the_session_goes_on(workspace):
    # a Latin-1 file piped in (`beamtalk repl < old.st`): the byte 0xE9 used to
    # answer a bare `badarg` from the node
    code = b'x := 41.\n"caf\xe9" size\nx + 1\n'
    proc = subprocess.run(beamtalk_cmd() + ["repl", "--workspace", workspace.id, "--session",
                                            "n" + uuid.uuid4().hex[:6]],
                          input=code, capture_output=True, timeout=60)
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    assert "badarg" not in out, out
    assert "<input>:1:5: the input is not UTF-8 text: byte 0xe9" in out, out
    assert "42" in out.splitlines(), out
