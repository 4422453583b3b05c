"""REPL commands beyond the basic ones of `core.py` (spec/repl.md §4):
`:help Class [selector]`, `:emit forms EXPR` (`:show-codegen`, `:sc`),
`:sessions`, `:workspace`, `:modules`, `:forget`, `:actors`, and the answer
to the removed `:unload`.

`Repl.command` asks `extra_command` first; it answers None for anything it
does not handle, and core.py goes on with its own commands.
"""

from __future__ import annotations

import textwrap

from beamtalk_ws.dist.terms import Atom

from . import help_text
from .core import Outcome

UNKNOWN_CLASS = "Unknown class: {0}. Use Workspace classes or :modules to see loaded classes."
UNKNOWN_SELECTOR = "{0} does not understand {1}. Use :help {0} to see available methods."
EMIT_USAGE = "Usage: :emit forms EXPR (the Erlang abstract forms EXPR compiles to; nothing is run)"


async def extra_command(repl, word: str, arg: str) -> Outcome | None:
    if word in ("help", "h", "?") and arg:
        return await help_class(repl, arg)
    if word == "emit":
        what, _, code = arg.partition(" ")
        if what not in ("forms", "ast") or not code.strip():
            return Outcome(False, EMIT_USAGE, kind="command")
        return await emit(repl, what, code.strip())
    if word in ("show-codegen", "sc"):
        if not arg:
            return Outcome(False, "Usage: :show-codegen EXPR (same as :emit forms EXPR)", kind="command")
        return await emit(repl, "forms", arg)
    if word == "sessions":
        return await sessions(repl)
    if word == "workspace":
        return await workspace(repl)
    if word in ("watch", "w"):
        return await watch(repl, arg)
    if word in ("changes", "flush"):
        return await pending_changes(repl, word)
    if word == "modules":
        return await modules(repl)
    if word in ("forget", "f"):
        return await forget(repl, arg)
    if word == "actors":
        return await actors(repl)
    if word == "unload":
        return unload(arg)
    if word == "detach":
        from .remote_cmd import detach_command
        return await detach_command(repl, arg)
    return None


# ---------------------------------------------------------------- :watch

WATCH_USAGE = ("Usage: :watch [PATH] (a file or directory), :watch off.  With no PATH: the "
               "package's src/, or the last :load path")


def bt_string(text: str) -> str:
    """A Beamtalk string literal of `text`."""
    return '"' + text.replace('"', '""') + '"'


async def watch(repl, arg: str, stop_hint: str = ":watch off stops it") -> Outcome:
    """`:watch`: the workspace node watches (`Workspace watch:`), so the watch
    outlives this REPL; each reload, and each save that does not compile, is
    reported on the Transcript, which every attached client shows."""
    from pathlib import Path

    if arg == "off":
        if not repl.watched:
            return await _unwatch_workspace(repl)
        for p in repl.watched:
            await repl.evaluate_code(f"Workspace unwatch: {bt_string(p)}", internal=True)
        repl.watched = []
        return Outcome(True, "Stopped watching.")
    first = None
    if arg:
        text = arg[1:-1] if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'" else arg
        path = Path(text).expanduser()
        if not path.exists():
            return Outcome(False, f"File not found: {text}", kind="command")
        if text != repl.last_load:
            first = await repl.load(text)
        root, shown = path, text
    elif repl.package is not None:
        root, shown = repl.package.src, f"{repl.package.name}'s src/"
    elif repl.last_load is not None:
        root, shown = Path(repl.last_load).expanduser(), repl.last_load
    else:
        return Outcome(False, WATCH_USAGE, kind="command")
    target = str(root.resolve())
    asked = await repl.evaluate_code(f"Workspace watch: {bt_string(target)}", internal=True)
    if not asked.ok:
        return asked
    if target not in repl.watched:
        repl.watched.append(target)
    note = (f"Watching {shown}: every save is compiled and hot-reloaded by the workspace, "
            f"also after this client exits ({stop_hint}).")
    if first is not None:
        return Outcome(first.ok, first.text + "\n" + note, kind=first.kind, warnings=first.warnings)
    return Outcome(True, note)


async def _unwatch_workspace(repl) -> Outcome:
    """`:watch off` in a REPL that started no watch: the watches belong to the
    workspace (`beamtalk watch`, another REPL, `--watch`), so stop those."""
    out = await repl.evaluate_code(
        'Workspace watches inject: "" into: [:shown :p | Workspace unwatch: p. '
        '(shown isEmpty ifTrue: [""] ifFalse: [shown ++ ", "]) ++ p]', internal=True)
    if not out.ok:
        return out
    text = out.text[1:-1].replace('""', '"') if out.text[:1] == '"' else out.text
    if not text:
        return Outcome(False, "Not watching anything (:watch [PATH] starts).", kind="command")
    return Outcome(True, f"Stopped watching {text} (started by another client).")


# ---------------------------------------------------------------- :changes, :flush

async def pending_changes(repl, word: str) -> Outcome:
    """`:changes` lists a package's pending source changes, `:flush` writes
    them (`Workspace changesReport` / `Workspace flush` on the node, which
    asks its compiler peer to edit the files)."""
    expr = "Workspace changesReport" if word == "changes" else "Workspace flush"
    out = await repl.evaluate_code(expr, internal=True)
    text = out.text
    if out.ok and len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('""', '"')
    return Outcome(out.ok, text, kind=out.kind if not out.ok else "ok", notice=out.notice)


# ---------------------------------------------------------------- :help

def _text(v) -> str | None:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("utf-8", errors="replace")
    if v is None or v == Atom("nil"):
        return None
    return str(v)


#: the workspace singletons a learner asks about by the name they use
SINGLETONS = {"Transcript": "TranscriptStream", "Workspace": "WorkspaceInterface",
              "Beamtalk": "BeamtalkInterface"}


async def help_class(repl, arg: str) -> Outcome:
    parts = arg.split()
    name = parts[0]
    # `:help Foo class [sel]` is the metaclass, as a Smalltalk programmer
    # writes it: the class side only.  (`:help Foo class` used to show the
    # instance method `class`; `:help Foo yourself` still reaches such a one.)
    meta = len(parts) in (2, 3) and parts[1] == "class"
    if meta:
        parts = [name] + parts[2:]
    if name == "Erlang" and len(parts) in (2, 3) and not meta and parts[1][:1].islower() \
            and parts[1].isidentifier():
        found = await erlang_module_help(repl, parts[1], parts[2] if len(parts) == 3 else None)
        if found is not None:
            return found
    if not name.isidentifier() or len(parts) > 2:
        return Outcome(False, "Usage: :help [Class [class] [selector]]", kind="command")
    note = ""
    docs = await repl.client.class_docs(name) if name[:1].isupper() else None
    if docs is None and name in SINGLETONS:
        note = f"{name} is the workspace's {SINGLETONS[name]} (a global):\n"
        docs = await repl.client.class_docs(SINGLETONS[name])
    if docs is None:
        text = await _unknown_class(repl, name)
        if not name[:1].isupper() and "did you mean" not in text:
            return Outcome(False, "Usage: :help [Class [class] [selector]]", kind="command")
        return Outcome(False, text, kind="command")
    if len(parts) == 1:
        return Outcome(True, note + (metaclass_help(docs) if meta else class_help(docs)))
    text = method_help(docs, parts[1], sides=("class",) if meta else ("instance", "class"))
    if text is None:
        label = f"{name} class" if meta else name
        return Outcome(False, UNKNOWN_SELECTOR.format(label, parts[1]), kind="command")
    return Outcome(True, note + text)


async def _unknown_class(repl, name: str) -> str:
    """spec repl.md §4's text, with the class the name probably meant (as
    `Beamtalk help:` says it: "did you mean Integer?")."""
    import difflib

    text = UNKNOWN_CLASS.format(name)
    try:
        names = [n for n in await repl.client.complete(Atom("classes")) if n[:1].isupper()]
    except Exception:   # the hint is a courtesy: the answer stands without it
        return text
    same = [n for n in names if n.lower() == name.lower()]
    close = same or difflib.get_close_matches(name, names, n=1, cutoff=0.7)
    if close:
        text += f"\nHint: did you mean {close[0]}? (:help {close[0]})"
    return text


async def erlang_module_help(repl, module: str, selector: str | None) -> Outcome | None:
    """`:help Erlang lists`: `Erlang lists` is no method of Erlang but the
    module proxy (seed ADR 0028), so answer what the module offers; None when
    no such module is loadable (the plain "does not understand" follows)."""
    sels = await repl.client.complete((Atom("selectors"), (Atom("erlang"), Atom(module))))
    if not sels:
        docs = await repl.client.class_docs("Erlang")
        if docs is not None and method_help(docs, module) is not None:
            return None
        return Outcome(False, f"No Erlang module {module} is loaded or on the code path. "
                              "Use :help Erlang to see how Erlang modules are called.", kind="command")
    if selector is not None:
        if selector not in sels:
            return Outcome(False, f"Erlang {module} has no function for {selector}. "
                                  f"Use :help Erlang {module} to see its functions.", kind="command")
        arity = selector.count(":")
        fn = selector.split(":")[0]
        return Outcome(True, f"Erlang {module} >> {selector}\n  Calls the Erlang function "
                             f"{module}:{fn}/{arity}\n  (its documentation: erl -man {module}).")
    lines = [f"== Erlang {module} ==",
             f"The Erlang module {module}, through its proxy: a keyword message calls the "
             f"function its first keyword names with every argument (`Erlang {module} "
             f"{sels[0]}{' …' if sels[0].endswith(':') else ''}`).".replace("  ", " "),
             "", "Functions (as selectors):"]
    lines = lines[:1] + textwrap.wrap(lines[1], width=help_text.WIDTH - 4) + lines[2:]
    lines += help_text.wrapped(sels)
    lines += ["", f"`(Erlang {module}) methods` answers them as \"name/arity\" Strings."]
    return Outcome(True, "\n".join(lines))


def _methods(docs, side: str):
    """[(selector, defining class, doc)] of one side."""
    return [(str(s), str(d), _text(doc)) for s, d, doc in docs.get(side, [])]


#: the classes on the chain Class → Behaviour → Object → ProtoObject: their
#: instance methods are what every class object inherits on its class side
_CLASS_CHAIN = ("ProtoObject", "Object", "Behaviour", "Class")


def _class_side(docs):
    """The class side, with the instance methods a class object reaches
    through Class → Behaviour → Object marked as inherited (own=False):
    `:help Object class` listed all of Object's instance methods as its own
    class methods.  [(selector, definer, doc, own)]"""
    name = str(docs["name"])
    instance = {(s, d) for s, d, _ in _methods(docs, "instance")} if name in _CLASS_CHAIN else set()
    return [(s, d, doc, d == name and (s, d) not in instance) for s, d, doc in _methods(docs, "class")]


def _listing(lines: list[str], own) -> None:
    for s, doc in own:
        if doc:
            lines.append(help_text.method_line(s, doc))
    plain = [s for s, doc in own if not doc]
    if plain:
        lines.extend(help_text.wrapped(plain))


def _inherited(lines: list[str], definers) -> None:
    """One `Inherited: 41 from Number, 46 from Object` line, wrapped to fit."""
    counts: dict[str, int] = {}
    for d in definers:
        counts[d] = counts.get(d, 0) + 1
    if counts:
        lines.append("")
        lines.extend(help_text.wrapped([f"{n} from {c}" for c, n in counts.items()], sep=", ",
                                       first="Inherited: ", rest="  "))


def class_help(docs) -> str:
    name = str(docs["name"])
    sup = docs.get("superclass")
    header = f"== {name} < {sup} ==" if sup not in (None, Atom("nil")) else f"== {name} =="
    lines = [header]
    doc = _text(docs.get("doc"))
    if doc:
        lines += [help_text.body(doc), ""]
    supers = [str(s) for s in docs.get("superclasses", [])]
    kind = f"Kind: {docs.get('kind')}" + (f"; inherits from {', '.join(supers)}" if supers else "")
    lines.extend(textwrap.wrap(kind, width=help_text.WIDTH - 4, subsequent_indent="  "))
    own = [(s, doc) for s, d, doc in _methods(docs, "instance") if d == name]
    if own:
        lines += ["", "Instance methods:"]
        _listing(lines, own)
    own = [(s, doc) for s, d, doc, mine in _class_side(docs) if mine]
    if own:
        lines += ["", "Class methods:"]
        _listing(lines, own)
    _inherited(lines, [d for s, d, _ in _methods(docs, "instance") if d != name])
    lines += ["", f"Use :help {name} <selector> for one method."]
    return "\n".join(lines)


def metaclass_help(docs) -> str:
    """`:help Foo class`: the class side of Foo, laid out as class_help lays
    out the instance side."""
    name = str(docs["name"])
    sup = docs.get("superclass")
    lines = [f"== {name} class < {sup} class ==" if sup not in (None, Atom("nil")) else f"== {name} class =="]
    side = _class_side(docs)
    own = [(s, doc) for s, d, doc, mine in side if mine]
    if own:
        lines += ["", "Class methods:"]
        _listing(lines, own)
    _inherited(lines, [d for s, d, doc, mine in side if not mine])
    lines += ["", f"Use :help {name} class <selector> for one method."]
    return "\n".join(lines)


def method_help(docs, selector: str, sides=("instance", "class")) -> str | None:
    name = str(docs["name"])
    for side, label in (("instance", name), ("class", f"{name} class")):
        if side not in sides:
            continue
        for s, definer, doc in _methods(docs, side):
            if s != selector:
                continue
            head = f"{label} >> {s}"
            if definer != name:
                head += f" (inherited from {definer})"
            return head + "\n" + (help_text.body(doc, "  ") if doc else "  No documentation.")
    return None


# ---------------------------------------------------------------- :emit forms

async def emit(repl, what: str, code: str) -> Outcome:
    """The forms (or the AST) EXPR compiles to, exactly as an evaluation would
    compile it against this session's bindings; nothing runs."""
    from beamtalk_ws.compiler.forms import format_forms
    from beamtalk_ws.syntax import SyntaxErrors, dump, parse

    if what == "ast":
        try:
            return Outcome(True, dump(parse(code, repl.filename)))
        except SyntaxErrors as e:
            return Outcome(False, e.render(), kind="syntax")
    compiled = await repl.compile(code)
    if isinstance(compiled, Outcome):
        return compiled
    return Outcome(True, format_forms(compiled.forms), warnings=compiled.warnings)


# ---------------------------------------------------------------- :sessions, :workspace

async def sessions(repl) -> Outcome:
    names = await repl.client.sessions()
    me = repl.client.session
    if me not in names:
        names = sorted(names + [me])
    return Outcome(True, "\n".join(("* " if n == me else "  ") + n for n in names))


def _uptime(ms) -> str:
    s = int(ms or 0) // 1000
    return f"{s // 3600}h {s % 3600 // 60}m {s % 60}s"


async def workspace(repl) -> Outcome:
    info = await repl.client.workspace_info()
    sessions = ", ".join(_text(s) or "" for s in info.get("sessions", []))
    lines = [
        f"Workspace: {_text(info.get('id'))}",
        f"Node:      {info.get('node')}",
        f"Uptime:    {_uptime(info.get('uptime_ms'))}",
        f"Classes:   {info.get('classes', '?')}",
        f"Actors:    {info.get('actors', '?')}",
        f"Sessions:  {sessions or '-'} (this one: {repl.client.session})",
    ]
    return Outcome(True, "\n".join(lines))


# ---------------------------------------------------------------- :modules, :unload

#: one line per class loaded into the workspace (stdlib excluded): name, source, live actors
_MODULES_EXPR = (
    'Workspace classes inject: "" into: [:acc :c | '
    'n := (Workspace actorsOf: c) size. '
    'acc ++ "  " ++ c name asString ++ "  " ++ (c sourceFile ifNil: ["(defined at the REPL)"]) ++ '
    '"  (" ++ n printString ++ (n = 1 ifTrue: [" actor)"] ifFalse: [" actors)"]) ++ "\n"]')


async def modules(repl) -> Outcome:
    """`:modules`: the classes loaded into the workspace, with the file each
    came from and its live actors (spec repl.md §4 points to it from
    `:help Unknown`)."""
    return await _text_of(repl, _MODULES_EXPR, "No classes loaded (:load PATH loads some).")


async def _text_of(repl, expr: str, empty: str) -> Outcome:
    """Evaluate `expr` (a String of lines) for a command, and show its text."""
    out = await repl.evaluate_code(expr, internal=True)
    if not out.ok:
        return out
    text = out.text
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('""', '"')
    text = text.rstrip("\n")
    return Outcome(True, text or empty, notice=out.notice)


def unload(arg: str) -> Outcome:
    """spec repl.md §4: `:unload` was removed server-side; say what replaces it."""
    target = arg.split()[0] if arg.split() else "ClassName"
    return Outcome(False, "':unload' has been removed. Use `removeFromSystem` instead.\n"
                          f"Hint: {target} removeFromSystem", kind="command")


# ---------------------------------------------------------------- :forget, :actors

FORGET_USAGE = "Usage: :forget NAME... (forgets those bindings of this session; :clear forgets all)"


async def forget(repl, arg: str) -> Outcome:
    """`:forget x` (the Erlang shell's `f(X)`): drop bindings one by one,
    where `:clear` drops them all."""
    names = arg.replace(",", " ").split()
    if not names or not all(n.isidentifier() and n[:1].islower() or n == "_" or n == "_error"
                            for n in names):
        return Outcome(False, FORGET_USAGE, kind="command")
    gone, unbound = [], []
    for n in names:
        (gone if await repl.client.forget(n) else unbound).append(n)
    lines = [f"Forgot {', '.join(gone)}."] if gone else []
    if unbound:
        lines.append(f"Not bound: {', '.join(unbound)} (:bindings lists the bindings).")
    return Outcome(not unbound, "\n".join(lines), kind="ok" if not unbound else "command")


#: one line per live actor of the workspace: its printString and pid; an
#: actor that cannot answer (its class was redefined as a Value class) is
#: still listed, with the reason, and does not hide the others
_ACTORS_EXPR = (
    'Workspace actors inject: "" into: [:acc :a | '
    'acc ++ "  " ++ ([a printString ++ "  " ++ a pid printString] '
    'on: Error do: [:e | "an actor that cannot answer: " ++ e message]) ++ "\n"]')


async def actors(repl) -> Outcome:
    """`:actors`: the workspace's live actors (what the Erlang shell's `i()`
    and `regs()` are reached for), spec repl.md §4's e2e `:actors`."""
    return await _text_of(repl, _ACTORS_EXPR, "No live actors (Counter spawn starts one).")
