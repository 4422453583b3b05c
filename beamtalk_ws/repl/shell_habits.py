"""What the prompts of other systems taught their users, and our way.

An Erlang-shell user types `b().`, an IEx user `h Enum.map`, a Pharo user
`Object browse`, a Python user `exit()`.  Each is either a syntax error
("a message takes no parentheses"), an undefined variable, or a
does-not-understand here: true, but it does not name the command or message
they were reaching for.  `habit_hint` maps such a whole input to that name.

Only asked after an input failed (`Repl.evaluate`), so a program that
happens to look like one of these (`i x` with `i` bound) runs as written.
"""

from __future__ import annotations

import re
from typing import Collection, Optional

_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_MOD = r"(?P<mod>[A-Za-z_][A-Za-z0-9_.]*)"


def _cmd(pattern: str, hint: str) -> tuple[str, str, bool]:
    """An IEx command word followed by its argument (`r Mod`, `i x`): when the
    word is a bound variable the input is a message to it (`r unwrap`), and a
    runtime error it raised is that message's, not a habit."""
    return pattern, hint, True


#: (pattern for the whole input, trailing `.` and blanks removed; the hint)
#: `{mod}`/`{name}` in a hint are filled from the pattern's groups; an entry
#: made with `_cmd` is a command word that a bound variable of that name hides
_HABITS: list[tuple] = [
    # ---- the Erlang shell
    (r"b\(\)", "`:bindings` (`:b`) lists this session's bindings"),
    (r"f\(\)", "`:clear` forgets all of this session's bindings"),
    (rf"f\((?P<name>{_ID})\)", "`:forget {lname}` forgets one binding (`:clear` forgets all)"),
    (r"v\((-?\d+)?\)", "the last value is `_` (`_ + 1`); bind a value to keep it: `x := ...`"),
    (r"flush\(\)", "`Erlang c flush` prints (and empties) the messages sent to this session's "
                   "evaluator (`:flush` writes a package's changed classes to src/)"),
    (r"(i|ni|processes)\(\)", "`:actors` lists the workspace's live actors; `:workspace` shows the node; "
                              "`Erlang c i` prints the Erlang shell's table of processes"),
    (r"regs\(\)", "`:actors` lists the workspace's live actors; `Erlang erlang registered` answers the "
                  "registered names"),
    (rf"[cl]\((?P<mod>{_ID}|\"[^\"]*\")\)",
     "`:load PATH` compiles and loads a .bt file, `:reload [Class]` loads it again; "
     "an Erlang module is loaded with `Erlang code load_file: #{mod}`"),
    (rf"h\((?P<mod>{_ID})\)", "`:help {cls}` shows it (`:help Erlang lists` an Erlang module, "
                             "`:help Integer` a class)"),
    (rf"(h|help)\((?P<mod>{_ID}),\s*(?P<fn>{_ID})(,\s*\d+)?\)",
     "`:help Erlang {mod}` lists the functions of an Erlang module as selectors; "
     "`:help Class selector` shows one method"),
    (r"(q|halt|init:stop)\(\)", "`:quit` (`:q`) leaves the REPL; the workspace keeps running "
                                "(`beamtalk workspace stop` stops it)"),
    (r"pid\((\d+),\s*(\d+),\s*(\d+)\)", "`Erlang c pid: {g1} with: {g2} with: {g3}` answers the pid"),
    (rf"rp\((?P<name>{_ID})\)", "type the expression itself: its printString is shown in full "
                                "(`{name}`, or `{lname} printString`)"),
    (r"memory\(\)", "`Erlang erlang memory` answers the node's memory use"),
    (r"(pwd|ls|cd)\(.*\)", "`Erlang file get_cwd` answers the node's directory; `Erlang c ls` lists it"),
    (r"(history|e)\(.*\)", "Up/Down and Ctrl-R walk this workspace's history"),
    # ---- IEx
    _cmd(rf"h\s+{_MOD}", "`:help {cls}` shows it (`:help Integer gcd:` one method, "
                         "`:help Erlang lists` an Erlang module's functions)"),
    _cmd(r"(c|import_file)\s+(?P<mod>\"[^\"]*\")(,.*)?", "`:load {mod}` compiles and loads a .bt file "
                                                        "(`:reload` loads it again)"),
    _cmd(r"(ls|pwd|cd(\s+.*)?)", "`Erlang file get_cwd` answers the node's directory; `Erlang c ls` lists it; "
                                "`:load PATH` takes a path relative to the REPL's directory"),
    _cmd(rf"(exports|info)\s+{_MOD}", "`:help {cls}` lists a class's methods; `:help Erlang lists` an "
                                      "Erlang module's functions"),
    _cmd(rf"i\s+(?P<name>{_ID})", "`{lname} class` answers its class, `:help ClassName` shows the class's "
                                  "methods, `{lname} printString` the value"),
    _cmd(rf"(recompile|r\s+{_MOD})", "`:reload` loads the last :load path again (in a package: rebuilds src/), "
                                     "`:reload ClassName` one class"),
    _cmd(r"runtime_info(\s.*)?", "`:workspace` shows the node, uptime, classes and live actors; "
                                 "`Erlang erlang memory` the memory"),
    _cmd(r"(IEx\.)?(break!|pry)(.*)", "there is no debugger to stop in: print values on the way "
                                      "(`Transcript show: x printString; cr`), or catch the error: "
                                      "`[...] on: Error do: [:e | e stackTrace]`"),
    _cmd(r"(clear|cls)\(\)", "`:clear` forgets this session's bindings (Ctrl-L clears the screen)"),
    # ---- Pharo's Playground
    (r"(self\s+)?(halt|halt:.*|inspect)", "there is no debugger to stop in: print values on the way "
                                          "(`Transcript show: x printString; cr`), or catch the error: "
                                          "`[...] on: Error do: [:e | e stackTrace]`"),
    (rf"(?P<cls>[A-Z][A-Za-z0-9_]*)\s+(class\s+)?browse", "`:help {cls}` shows the class's comment and methods "
                                                    "(`:help {cls} selector` one of them)"),
    (rf"(?P<name>[a-z][A-Za-z0-9_]*)\s+(class\s+)?browse", "`:help ClassName` shows a class's methods "
                                         "(`{name} class` answers the class)"),
    (rf"(?P<name>{_ID})\s+explore", "`{name} printString` shows the value; `:help ClassName` its class's methods"),
    # ---- Python and ptpython
    (r"(exit|quit)\(\)", "`:quit` (`:q`) leaves the REPL; the workspace keeps running"),
    (r"help\(\)", "`:help` lists the REPL commands, `:help Class` a class"),
    (rf"help\((?P<name>[a-z][A-Za-z0-9_]*)\)", "`:help ClassName` shows a class (`{name} class` answers "
                                        "the class of a value)"),
    (rf"dir\((?P<name>{_ID})\)", "`{name} class selectors` answers its methods; `:help ClassName` "
                                 "shows them with their docs"),
    (rf"type\((?P<name>{_ID})\)", "`{name} class` answers its class"),
]

_COMPILED = [(re.compile(e[0], re.S), e[1], len(e) > 2) for e in _HABITS]
_FIRST_NAME = re.compile(_ID)


def habit_hint(code: str, bound: Collection[str] = ()) -> Optional[str]:
    """The `Hint: ...` for a whole input that is another prompt's habit, or None.

    `bound`: the session's variables; a command word among them is a variable."""
    found = habit(code, bound)
    return None if found is None else found[0]


def habit(code: str, bound: Collection[str] = ()) -> Optional[tuple[str, bool]]:
    """`(hint, command_word)`: as `habit_hint`, and whether the habit is a
    command word (`h go`, `i x`), which is also a send to a variable of that
    name: an error about that variable is then worth keeping above the hint."""
    text = code.strip().rstrip(".").rstrip()
    first = _FIRST_NAME.match(text)
    for pattern, hint, command_word in _COMPILED:
        if command_word and first is not None and first.group(0) in bound:
            continue
        m = pattern.fullmatch(text)
        if m is None:
            continue
        groups = {k: v for k, v in m.groupdict().items() if v is not None}
        mod = groups.get("mod", "").strip('"')
        name = groups.get("name", "")
        fields = {
            "mod": mod,
            "cls": groups.get("cls") or (f"Erlang {mod}" if mod[:1].islower() else _class_name(mod)),
            "name": name,
            "lname": name[:1].lower() + name[1:],
            **{f"g{i}": g for i, g in enumerate(m.groups(), 1) if g is not None},
        }
        return f"Hint: `{text}` is another shell's habit; here {hint.format(**fields)}.", command_word
    return None


def _class_name(mod: str) -> str:
    """`Enum.map` → `Enum map` reads as `:help Class selector`."""
    head, _, rest = mod.partition(".")
    return f"{head} {rest}" if rest else head
