"""Packages without a node: names (seed ADR 0026 §8), manifests (§2), the
scaffold (§7), module naming (§4) and the `.app` text (§3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from beamtalk_ws.package import build, manifest, scaffold
from beamtalk_ws.package.manifest import PackageError, name_problem
from beamtalk_ws.repl.loader import module_namer


@pytest.mark.parametrize("name", ["my_counter", "json_parser", "web_utils", "a", "x1_2"])
def test_valid_names(name):
    assert name_problem(name) is None


@pytest.mark.parametrize("name, message", [
    ("MyApp", "Package name 'MyApp' is invalid — must be lowercase (try 'my_app')"),
    ("CamelCase", "Package name 'CamelCase' is invalid — must be lowercase (try 'camel_case')"),
    ("MyCounter", "Package name 'MyCounter' is invalid — must be lowercase (try 'my_counter')"),
    ("stdlib", "'stdlib' is a reserved package name (conflicts with Beamtalk standard library)"),
    ("beamtalk", "'beamtalk' is a reserved package name (conflicts with Beamtalk itself)"),
    ("kernel", "'kernel' is a reserved package name (conflicts with the Erlang/OTP application kernel)"),
    ("crypto", "'crypto' is a reserved package name (conflicts with the Erlang/OTP application crypto)"),
    ("123app", "Package name '123app' is invalid — must start with a lowercase letter (try 'app')"),
    ("-dashes-", "Package name '-dashes-' is invalid — must start with a lowercase letter (try 'dashes')"),
    ("my-app", "Package name 'my-app' is invalid — must contain only lowercase letters, digits and "
               "underscores (try 'my_app')"),
    ("a" * 65, "Package name 'aaaaaaaaaaaaaaaaaaaa…' is invalid — must be at most 64 characters"),
])
def test_invalid_names_say_why(name, message):
    assert name_problem(name) == message


def parse(text: str):
    return manifest.parse(text, Path("/p/beamtalk.toml"))


def error_of(text: str) -> str:
    with pytest.raises(PackageError) as e:
        parse(text)
    return str(e.value)


def test_a_full_manifest():
    m = parse('[package]\nname = "my_counter"\nversion = "0.1.0"\ndescription = "A counter"\n'
              'licenses = ["Apache-2.0"]\nstart = "app"\n\n[dependencies]\n')
    assert (m.name, m.version, m.description, m.licenses, m.start) == \
        ("my_counter", "0.1.0", "A counter", ("Apache-2.0",), "app")
    assert m.ebin == Path("/p/_build/dev/ebin")
    assert m.start_file == Path("/p/src/app.bt")
    assert m.warnings == ()


def test_toml_syntax_error_has_line_column_and_caret():
    text = error_of('[package]\nname = "x"\nversion = 0.1.0\n')
    assert text.startswith("/p/beamtalk.toml:3:")
    assert "invalid TOML" in text
    assert "  version = 0.1.0\n" in text and "^" in text


def test_missing_package_table():
    text = error_of('name = "x"\n')
    assert text.startswith("/p/beamtalk.toml:1:1: the manifest has no [package] table")
    assert "Hint:" in text


def test_missing_name_and_version():
    assert "[package] has no name" in error_of('[package]\nversion = "0.1.0"\n')
    assert "[package] has no version" in error_of('[package]\nname = "x"\n')


def test_bad_values_point_at_the_value():
    text = error_of('[package]\nname = "x"\nversion = "1.0"\n')
    assert text.splitlines()[0] == "/p/beamtalk.toml:3:11: version '1.0' is not a semantic version"
    assert text.splitlines()[2] == "            ^"
    assert "/p/beamtalk.toml:2:8: Package name 'Foo' is invalid" in error_of('[package]\nname = "Foo"\n'
                                                                            'version = "0.1.0"\n')
    assert "licenses must be a list of strings" in error_of('[package]\nname = "x"\nversion = "0.1.0"\n'
                                                           'licenses = "MIT"\n')
    assert "is not the name of a file in src/" in error_of('[package]\nname = "x"\nversion = "0.1.0"\n'
                                                          'start = "../x"\n')


def test_unknown_keys_and_dependencies_are_warnings():
    m = parse('[package]\nname = "x"\nversion = "0.1.0"\nauthor = "me"\n[dependencies]\njson = "1.0"\n')
    assert m.warnings == ("/p/beamtalk.toml:4: unknown key package.author (ignored)",
                          "/p/beamtalk.toml:5: [dependencies] are not supported yet (ignored: json); "
                          "load another package's classes with :load path/to/it/src")


def test_dev_dependencies_are_warned_like_dependencies():
    """Seed ADR 0026 reserves both tables; ignoring [dev-dependencies] in
    silence left a user wondering why its classes were missing."""
    m = parse('[package]\nname = "x"\nversion = "0.1.0"\n\n[dev-dependencies]\n'
              'helper = { path = "../helper" }\nother = "1.0"\n')
    assert m.warnings == ("/p/beamtalk.toml:5: [dev-dependencies] are not supported yet (ignored: helper, "
                          "other); load another package's classes with :load path/to/it/src",)
    assert parse('[package]\nname = "x"\nversion = "0.1.0"\n[dev-dependencies]\n').warnings == ()


def test_find_root_walks_up(tmp_path):
    (tmp_path / "beamtalk.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    deep = tmp_path / "src" / "a" / "b"
    deep.mkdir(parents=True)
    assert manifest.find_root(deep) == tmp_path.resolve()
    assert manifest.find(deep).name == "x"
    assert manifest.find_root(tmp_path.parent) != tmp_path.resolve()


def test_scaffold_is_a_buildable_package(tmp_path):
    root = scaffold.new("my_counter", tmp_path)
    made = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    assert made == [".github", ".github/copilot-instructions.md", ".gitignore", "AGENTS.md", "README.md",
                    "beamtalk.toml", "src", "src/main.bt", "test"]
    m = manifest.load(root)
    assert (m.name, m.version, m.start) == ("my_counter", "0.1.0", "main")
    assert "_build/" in (root / ".gitignore").read_text()
    plan, supers = build.compile_sources(build.source_files(m.src))
    assert plan.errors == []
    assert [(mod, name) for mod, _, name, _ in plan.modules] == [("bt@my_counter@main", "Main")]
    assert supers == {"Main": "Object"}


def test_scaffold_refuses_bad_names_and_existing_directories(tmp_path):
    with pytest.raises(PackageError, match="reserved package name"):
        scaffold.new("stdlib", tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("")
    with pytest.raises(PackageError, match="'taken' already exists"):
        scaffold.new("taken", tmp_path)


def test_module_names_follow_the_path_in_src(tmp_path):
    root = scaffold.new("my_app", tmp_path)
    (root / "src" / "util").mkdir()
    assert module_namer(root / "src" / "util" / "math.bt")("Math") == "bt@my_app@util@math"
    assert module_namer(root / "src" / "counter.bt")("Counter") == "bt@my_app@counter"
    # outside src/ (tests) and outside any package: named after the class
    assert module_namer(root / "test" / "counter_test.bt")("CounterTest") == "bt@counter_test"
    assert module_namer(tmp_path / "loose.bt")("LooseThing") == "bt@loose_thing"


def test_app_text_quotes_what_erlang_needs():
    m = manifest.Manifest(Path("/p"), "my_counter", "0.1.0", 'A "quoted" caf\u00e9', ("MIT",), "main")
    text = build.app_text(m, [(Path("/p/src/counter.bt"), "bt@my_counter@counter", "Counter", "Actor"),
                              (Path("/p/src/main.bt"), "bt@my_counter@main", "Main", None)])
    assert text.startswith("{application, my_counter, [\n")
    assert '{description, "A \\"quoted\\" caf\\x{E9}"}' in text
    assert "{modules, ['bt@my_counter@counter', 'bt@my_counter@main']}" in text
    assert "{'bt@my_counter@counter', 'Counter', 'Actor'}" in text
    assert "{'bt@my_counter@main', 'Main', nil}" in text
    assert "{applications, [kernel, stdlib, beamtalk_runtime, beamtalk_stdlib]}" in text
    assert "{mod, {beamtalk_app, {package, my_counter}}}" in text
    assert build.atom("when") == "'when'" and build.atom("main") == "main"


def test_run_entry():
    m = parse('[package]\nname = "x"\nversion = "0.1.0"\n[run]\nentry = "Main start"\nwhen = 1\n')
    assert m.run_entry == "Main start"
    assert m.warnings == ("/p/beamtalk.toml:6: unknown key run.when (ignored)",)
    assert "[run] entry must be a Beamtalk expression" in error_of(
        '[package]\nname = "x"\nversion = "0.1.0"\n[run]\nentry = 3\n')


def test_manifest_in_the_current_directory_is_named_as_typed(tmp_path, monkeypatch):
    """README: a bad manifest is `beamtalk.toml:line:col: message`, the path as
    `beamtalk build` names src/ files (relative to the current directory)."""
    (tmp_path / "beamtalk.toml").write_text('[package]\nname = "x"\nversion = "1.0"\nfoo = 1\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PackageError) as e:
        manifest.load(tmp_path)
    assert str(e.value).splitlines()[0] == "beamtalk.toml:3:11: version '1.0' is not a semantic version"
    (tmp_path / "beamtalk.toml").write_text('[package]\nname = "x"\nversion = "1.0.0"\nfoo = 1\n')
    assert manifest.load(tmp_path).warnings == ("beamtalk.toml:4: unknown key package.foo (ignored)",)
