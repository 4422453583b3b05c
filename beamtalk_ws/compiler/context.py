"""What a function being generated knows about itself.

Why a context object: Erlang is single-assignment, Beamtalk is not.  Each
Beamtalk variable maps to the Erlang variable holding its *current* value;
an assignment binds a fresh Erlang variable and updates the map.  Inlined
control structures (`ifTrue:`, `whileTrue:` …) fork the map per branch and
join it afterwards, which is how assignments inside those blocks stay visible
after them ("state threading", spec semantics §4.4).

Two pseudo-variables ride along in the same map: `$state`, the state map of
an actor method, and `self`, which an `Object subclass:` method rebinds when it
assigns a field (spec semantics §3.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import forms as F

STATE = "$state"
_SIMPLE = frozenset(F.A(t) for t in ("var", "atom", "integer", "float", "nil"))


class Counter:
    """Fresh Erlang variable names, unique within one compilation unit."""

    def __init__(self) -> None:
        self.n = 0

    def fresh(self, hint: str) -> str:
        self.n += 1
        return f"{hint}{self.n}"


class Body:
    """A straight-line sequence of Erlang expressions under construction.

    Every sub-expression with an effect is bound to a fresh variable in the
    order Beamtalk evaluates it (A-normal form)."""

    def __init__(self, counter: Counter):
        self.counter = counter
        self.exprs: list = []

    def bind(self, form, line: int, hint: str = "T") -> tuple:
        if form[0] in _SIMPLE:
            return form  # already a value: no need for another variable
        name = self.counter.fresh(hint)
        self.exprs.append(F.match(F.var(name, line), form, line))
        return F.var(name, line)

    def add(self, form) -> None:
        self.exprs.append(form)

    def child(self) -> "Body":
        return Body(self.counter)


@dataclass
class MethodInfo:
    """The method (or class-side method) whose body is being generated."""

    class_name: str
    class_kind: str               # actor | value | object
    class_side: bool
    selector: str
    fields: frozenset
    superclass: str | None
    nlr_token: tuple | None = None   # var form of the non-local-return token, if needed

    @property
    def is_actor_instance(self) -> bool:
        return self.class_kind == "actor" and not self.class_side


@dataclass
class Ctx:
    """Variables in scope and where we are (REPL top level, method, block)."""

    env: dict
    method: MethodInfo | None = None
    in_block: bool = False          # inside a real (non-inlined) block
    repl: "ReplInfo | None" = None
    nlr_token: tuple | None = None  # for `^` inside blocks at REPL top level or in methods
    inlined: bool = False           # inside an inlined control-structure block
    threads_state: bool = False     # inside a cell block (the actor state goes back through its cell)
    boxed: dict = field(default_factory=dict)  # name -> key form of a variable living in a cell (cells.py)
    scope: "Scope | None" = None    # the activation whose variables this code may box
    state_cell: tuple | None = None  # (key form, names) of the cell block's cell (cells.py)

    def fork(self) -> "Ctx":
        """A branch of an inlined control structure."""
        return Ctx(dict(self.env), self.method, self.in_block, self.repl, self.nlr_token, True,
                   self.threads_state, dict(self.boxed), self.scope, self.state_cell)

    def block(self) -> "Ctx":
        """The body of a real closure."""
        return Ctx(dict(self.env), self.method, True, self.repl, self.nlr_token, False,
                   False, dict(self.boxed))


@dataclass
class Scope:
    """One activation (method, REPL input or closure body) whose temporaries
    assigned inside closures live in cells: `Ref` marks the activation live in
    its process dictionary; variable `n` lives under `{Ref, n}`."""

    ref: tuple
    names: frozenset
    keys: dict


@dataclass
class ReplInfo:
    bindings_var: str
    bound: frozenset
    assigned: list = field(default_factory=list)

    def note(self, name: str) -> None:
        if name not in self.assigned and not name.startswith("$") and name != "self":
            self.assigned.append(name)
