"""`beamtalk new NAME`: a complete, buildable package (seed ADR 0026 §5, §7).

The scaffold is an *application*: its manifest names `src/main.bt` as the
start module, so `beamtalk run` works in a fresh package the way `cargo run`
does; deleting the `start` line makes it a library.
"""

from __future__ import annotations

from pathlib import Path

from .manifest import PackageError, name_problem


def files(name: str) -> dict[str, str]:
    """Relative path → text of every file of a new package."""
    return {
        "beamtalk.toml": f'''[package]
name = "{name}"
version = "0.1.0"
# The file of src/ whose class answers `start` (beamtalk run); remove to make a library.
start = "main"

[dependencies]
''',
        "src/main.bt": f'''/// The entry point of {name}: `beamtalk run` sends it `start`.
Object subclass: Main
  /// Print a greeting on the Transcript.
  class start =>
    Transcript showCr: "Hello from {name}!"
''',
        ".gitignore": "_build/\nbuild/\n",
        "README.md": f'''# {name}

A Beamtalk package.

    beamtalk build      # compile src/ into _build/dev/ebin/ (an OTP application)
    beamtalk run        # build, then send `start` to the class of src/main.bt
    beamtalk repl       # a live workspace with the package's classes loaded
    beamtalk test       # run the BUnit tests in test/
''',
        "AGENTS.md": f'''# Working on {name}

This is a Beamtalk package: a Smalltalk-style language running on the Erlang BEAM.

## Commands

- `beamtalk build` compiles every `.bt` file of `src/` into `_build/dev/ebin/`
  (module `bt@{name}@<path>` per file, plus `{name}.app`).
- `beamtalk test` runs every `TestCase` subclass found in `test/`.
- `beamtalk run` builds the package and sends `start` to the class of the
  manifest's `start` file.
- `beamtalk repl` opens the package's workspace; `:reload` rebuilds `src/` and
  hot-reloads the changed classes while actors keep running.
- `beamtalk check src` reports syntax and compile errors with file:line:col.

## Layout

- `beamtalk.toml` — name, version, description, licenses, start.
- `src/` — one class per file; subdirectories only namespace module names.
- `test/` — BUnit tests (`TestCase subclass: FooTest`, methods named `test…`).

## Syntax basics

    /// A counter (doc comment of the class).
    Actor subclass: Counter
      state: count = 0
      increment => self.count := self.count + 1
      count => self.count

    c := Counter spawn
    c increment; increment
    c count                   // => 2

Strings use double quotes (`"Hello {{name}}"` interpolates); comments are `//`;
`///` comments document the class or method that follows.
''',
        ".github/copilot-instructions.md": f'''This repository is the Beamtalk package `{name}`.
Beamtalk is a Smalltalk-style language for the Erlang BEAM: one class per file
in `src/`, BUnit tests in `test/`, double-quoted strings, `//` comments.
Build with `beamtalk build`, test with `beamtalk test`, and try code in
`beamtalk repl`. See AGENTS.md for the layout and the syntax basics.
''',
    }


def new(name: str, parent: Path) -> Path:
    """Create the package directory `parent/name`; raises PackageError."""
    problem = name_problem(name)
    if problem:
        raise PackageError(problem)
    root = parent / name
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise PackageError(f"'{name}' already exists in {parent} (choose another name or remove it)")
    for rel, text in files(name).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "test").mkdir(exist_ok=True)
    return root
