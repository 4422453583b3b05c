"""Test helpers for the Erlang distribution layer: real BEAM nodes, term strategies.

* :func:`start_erl_node` / the ``erl_node_factory`` fixture start a real
  ``erl`` node (short name ``t_<hex>@localhost``, random cookie, distribution and
  epmd on 127.0.0.1) running the ``bt_dist_echo`` module below, and always kill
  it afterwards.  Passing the cookie with ``-setcookie`` is acceptable in tests
  only; the product never puts a cookie on a command line.
* :func:`same_term` compares decoded terms strictly (types, float signs).
* :func:`erl_terms` / :func:`erl_keys` are hypothesis strategies for terms.

Import fixtures into a test module with ``from dist_helpers import erl_node_factory``.
"""

from __future__ import annotations

import atexit
import math
import os
import secrets
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import strategies as st

from beamtalk_ws.dist import (
    Atom,
    BitBinary,
    ExportFun,
    FrozenList,
    FrozenMap,
    ImproperList,
    LocalFun,
    Pid,
    Port,
    Reference,
)

# ---------------------------------------------------------------------------
# The Erlang side of the tests.

ECHO_MODULE = r"""
-module(bt_dist_echo).
-export([start/0, mk/2, made/2, expected/1, deep_list/1, deep_tuple/1]).

start() ->
    Pid = spawn(fun() -> loop(#{port => open_port({spawn, "cat"}, [])}) end),
    register(bt_echo, Pid),
    spawn(fun watch_stdin/0),
    io:format("ready~n").

%% The test process holds our stdin: if it dies without killing us, we halt.
watch_stdin() ->
    case io:get_line('') of
        eof -> erlang:halt();
        {error, _} -> erlang:halt();
        _ -> watch_stdin()
    end.

mk(X, Z) -> fun(Y) -> {X + Y, Z} end.

%% Terms created on the node and sent to Python.
made(pid, _) -> self();
made(ref, _) -> make_ref();
made(port, #{port := P}) -> P;
made(export_fun, _) -> fun lists:reverse/1;
made(local_fun, _) -> mk(erlang:unique_integer([positive]), [a, <<"b">>]);
made(bits, _) -> <<1:3>>;
made(bits_multi, _) -> <<255, 5:5>>;
made(map_keys, _) -> #{#{a => 1} => [x], [1, 2] => {y}, {[3], #{}} => z, [] => e};
made(large_map, _) -> maps:from_list([{I, I * I} || I <- lists:seq(1, 100)]);
made(improper, _) -> [1, 2 | c];
made(big, _) -> 1 bsl 100;
made(neg_big, _) -> -(1 bsl 100);
made(huge, _) -> 1 bsl 5000;
made(ints, _) -> [0, 255, 256, -1, 2147483647, -2147483648, 2147483648];
made(utf8_atom, _) -> '\x{1F600}h\x{e9}llo';
made(floats, _) -> [1.5, -0.1, 1.0e300, 5.0e-324, 0.0];
made(string, _) -> "hello";
made(unicode_list, _) -> "h\x{e9}llo \x{1F600}";
made(binary, _) -> <<"h\x{e9}llo"/utf8>>;
made(empties, _) -> {[], <<>>, {}, #{}, ''};
made(large_tuple, _) -> list_to_tuple(lists:seq(1, 300));
made(nested, _) -> {[{a, [<<"b">>]}], #{k => {}}, [[[[]]]]};
made(booleans, _) -> {true, false, undefined}.

%% Terms Python builds; the node checks it received exactly these.
expected(atom) -> 'h\x{e9}llo';
expected(utf8_atom) -> '\x{1F600}x';
expected(booleans) -> {true, false};
expected(big) -> 1 bsl 100;
expected(neg_big) -> -(1 bsl 100);
expected(huge) -> -(1 bsl 5000);
expected(ints) -> [0, 255, 256, -1, 2147483647, -2147483648, 2147483648, -2147483649];
expected(float) -> 1.5;
expected(floats) -> [0.1, -2.5e-300, 1.0e300];
expected(str_binary) -> <<"h\x{e9}llo \x{1F600}"/utf8>>;
expected(bytes) -> <<1, 2, 3>>;
expected(bits) -> <<1:3>>;
expected(bits_multi) -> <<255, 5:5>>;
expected(improper) -> [1, 2 | c];
expected(string) -> "abc";
expected(mixed_list) -> [256, 1 bsl 70, a];
expected(map_keys) -> #{#{a => 1} => [x], [1, 2] => {y}, {[3]} => z};
expected(nested) -> {[{a, [<<"b">>]}], #{k => {}}};
expected(empties) -> {[], <<>>, {}, #{}, ''};
expected(export_fun) -> fun lists:reverse/1;
expected(large_tuple) -> list_to_tuple(lists:seq(1, 300));
expected(long_atom) -> list_to_atom(lists:duplicate(255, 16#e9)).

deep_list(0) -> [];
deep_list(N) -> [deep_list(N - 1)].

deep_tuple(0) -> {};
deep_tuple(N) -> {deep_tuple(N - 1)}.

loop(State) ->
    receive
        {From, make, Name} ->
            T = made(Name, State),
            From ! {made, Name, T, term_to_binary(T, [{minor_version, 2}])},
            loop(State#{Name => T});
        {From, same, Name, T} ->
            From ! {same, Name, T =:= maps:get(Name, State)},
            loop(State);
        {From, expect, Name, T} ->
            E = expected(Name),
            From ! {expect, Name, T =:= E, E},
            loop(State);
        {From, echo, T} ->
            From ! {echo, T, term_to_binary(T, [{minor_version, 2}])},
            loop(State);
        {From, apply_fun, F, Args} ->
            From ! {applied, catch apply(F, Args)},
            loop(State);
        {From, deep, Kind, N} ->
            From ! {deep, case Kind of list -> deep_list(N); tuple -> deep_tuple(N) end},
            loop(State);
        {From, check_deep, Kind, N, T} ->
            E = case Kind of list -> deep_list(N); tuple -> deep_tuple(N) end,
            From ! {check_deep, T =:= E},
            loop(State);
        {From, big_binary, N} ->
            From ! {big_binary, binary:copy(<<7>>, N)},
            loop(State);
        {From, check_big_binary, B} ->
            From ! {check_big_binary, byte_size(B), B =:= binary:copy(<<7>>, byte_size(B))},
            loop(State);
        {From, spawn_child} ->
            From ! {child, spawn(fun child/0)},
            loop(State);
        {From, spawn_linked_child} ->
            Child = spawn(fun() -> link(From), From ! {child, self()}, child() end),
            _ = Child,
            loop(State);
        {From, spawn_server} ->
            From ! {server, spawn(fun server/0)},
            loop(State);
        {From, exit2, Target, Reason} ->
            exit(Target, Reason),
            From ! exit2_sent,
            loop(State);
        {From, watch, Target, ReportTo} ->
            Self = self(),
            spawn(fun() ->
                Ref = erlang:monitor(process, Target),
                Self ! {watching, Ref},
                receive {'DOWN', Ref, process, P, R} -> ReportTo ! {saw_down, P, R} end
            end),
            receive {watching, _} -> ok end,
            From ! watching,
            loop(State);
        {From, link_watch, Target, ReportTo} ->
            Self = self(),
            spawn(fun() ->
                process_flag(trap_exit, true),
                link(Target),
                Self ! linked,
                receive {'EXIT', Target, R} -> ReportTo ! {saw_exit, Target, R} end
            end),
            receive linked -> ok end,
            From ! linked,
            loop(State);
        {From, send_named, Name, Node, Msg} ->
            {Name, Node} ! Msg,
            From ! sent,
            loop(State);
        {From, ping, Node} ->
            From ! {ping, net_adm:ping(Node)},
            loop(State);
        {From, nodes} ->
            From ! {nodes, nodes(hidden), nodes()},
            loop(State);
        {'$gen_call', {From, Tag}, {echo, X}} ->
            From ! {Tag, {echoed, X}},
            loop(State);
        _Other ->
            loop(State)
    end.

child() ->
    receive {die, Reason} -> exit(Reason) end.

%% A minimal gen_server-style process for call tests.
server() ->
    receive
        {'$gen_call', {From, Tag}, {reply, X}} -> From ! {Tag, X}, server();
        {'$gen_call', _From, silent} -> server();
        {'$gen_call', _From, {crash, Reason}} -> exit(Reason)
    end.
"""

_compiled_dir: str | None = None


def _echo_module_dir() -> str:
    """Compile the echo module once per test session (erlc), return its directory."""
    global _compiled_dir
    if _compiled_dir is None:
        d = tempfile.mkdtemp(prefix="bt_dist_echo_")
        atexit.register(shutil.rmtree, d, True)
        src = os.path.join(d, "bt_dist_echo.erl")
        with open(src, "w", encoding="utf-8") as f:
            f.write(ECHO_MODULE)
        subprocess.run(["erlc", "-o", d, src], check=True, capture_output=True, timeout=60)
        _compiled_dir = d
    return _compiled_dir


@dataclass
class ErlNode:
    """A running test node.  ``name`` is the full node name, ``cookie`` a random str."""

    name: str
    cookie: str
    proc: subprocess.Popen
    output: list[str] = field(default_factory=list)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """Kill the node (SIGKILL: also simulates a crash) and reap it."""
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                try:
                    f.close()
                except OSError:  # pragma: no cover
                    pass


def start_erl_node(*, ticktime: int | None = None, extra_args: list[str] | None = None,
                   ready_timeout: float = 20.0) -> ErlNode:
    """Start ``erl`` with the echo module running; return once it printed "ready"."""
    d = _echo_module_dir()
    name = f"t_{secrets.token_hex(5)}@localhost"
    cookie = secrets.token_hex(16)
    args = [
        "erl", "-noshell", "-sname", name, "-setcookie", cookie,
        "-kernel", "inet_dist_use_interface", "{127,0,0,1}",
        "-pa", d,
    ]
    if ticktime is not None:
        args += ["-kernel", "net_ticktime", str(ticktime)]
    args += extra_args or []
    args += ["-eval", "bt_dist_echo:start()"]
    env = dict(os.environ, ERL_EPMD_ADDRESS="127.0.0.1")
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, text=True)
    node = ErlNode(name, cookie, proc)
    deadline = time.monotonic() + ready_timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"erl node {name} did not start: {''.join(node.output)}")
            r, _, _ = select.select([proc.stdout], [], [], left)
            if r:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"erl node {name} exited: {''.join(node.output)}")
                node.output.append(line)
                if line.strip() == "ready":
                    return node
    except BaseException:
        node.stop()
        raise


@pytest.fixture
def erl_node_factory():
    """Call it (``erl_node_factory(ticktime=4)``) to start nodes; all are killed at teardown."""
    nodes: list[ErlNode] = []

    def factory(**kw: Any) -> ErlNode:
        n = start_erl_node(**kw)
        nodes.append(n)
        return n

    yield factory
    for n in nodes:
        n.stop()


# ---------------------------------------------------------------------------
# Strict comparison of decoded terms.


def same_term(a: Any, b: Any) -> bool:
    """True if ``a`` and ``b`` are the same Erlang term *and* the same Python types.

    Plain ``==`` is too lenient for codec tests (``1 == 1.0 == True``,
    ``0.0 == -0.0``).
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_term(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, FrozenMap)):
        if len(a) != len(b):
            return False
        for k, v in a.items():
            match = [k2 for k2 in b if k2 == k and same_term(k, k2)]
            if len(match) != 1 or not same_term(v, b[match[0]]):
                return False
        return True
    if isinstance(a, ImproperList):
        return same_term(a.elements, b.elements) and same_term(a.tail, b.tail)
    if isinstance(a, LocalFun):
        return (
            a.module == b.module and a.arity == b.arity and a.uniq == b.uniq
            and a.index == b.index and a.old_index == b.old_index
            and a.old_uniq == b.old_uniq and a.pid == b.pid
            and same_term(a.free_vars, b.free_vars)
        )
    return a == b


# ---------------------------------------------------------------------------
# Hypothesis strategies.

NODE_NAMES = [Atom("a@h"), Atom("bt_x@localhost"), Atom("nonode@nohost")]

# 'true'/'false' are left to st.booleans(): Atom('true') encodes like True but decodes as True.
atoms = st.text(max_size=12).filter(lambda s: s not in ("true", "false")).map(Atom)
ints = st.one_of(
    st.integers(0, 255),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**80), 2**80),
    st.integers(-(2**2100), 2**2100),
)
floats = st.floats(allow_nan=False, allow_infinity=False)
bit_binaries = st.builds(BitBinary, st.binary(min_size=1, max_size=6), st.integers(1, 7))
node_names = st.sampled_from(NODE_NAMES)
u32 = st.integers(0, 2**32 - 1)
creations = st.integers(1, 2**32 - 1)
pids = st.builds(Pid, node_names, u32, u32, creations)
refs = st.builds(Reference, node_names, creations,
                 st.tuples(st.integers(0, 2**18 - 1), u32, u32))
ports = st.builds(Port, node_names, st.integers(0, 2**64 - 1), creations)
export_funs = st.builds(ExportFun, atoms, atoms, st.integers(0, 255))


def erl_leaves(*, with_local_funs: bool = False) -> st.SearchStrategy:
    leaves = [atoms, st.booleans(), ints, floats, st.binary(max_size=40), bit_binaries,
              pids, refs, ports, export_funs]
    if with_local_funs:
        leaves.append(st.builds(
            LocalFun, atoms, st.integers(0, 255), st.binary(min_size=16, max_size=16),
            u32, st.integers(-(2**31), 2**31 - 1), st.integers(-(2**31), 2**31 - 1), pids,
            st.lists(st.one_of(atoms, ints, st.binary(max_size=8)), max_size=3).map(tuple),
        ))
    return st.one_of(*leaves)


def erl_keys(leaves: st.SearchStrategy) -> st.SearchStrategy:
    """Hashable terms usable as dict keys: containers become FrozenList/FrozenMap."""
    return st.recursive(
        leaves,
        lambda c: st.one_of(
            st.lists(c, max_size=3).map(tuple),
            st.lists(c, max_size=3).map(FrozenList),
            st.dictionaries(c, c, max_size=2).map(FrozenMap),
        ),
        max_leaves=6,
    )


def _not_a_list(t: Any) -> bool:
    return not isinstance(t, (list, FrozenList, ImproperList))


def erl_terms(*, with_local_funs: bool = False, max_leaves: int = 25) -> st.SearchStrategy:
    """Random nested terms of every kind (deferred only to keep hypothesis' repr short)."""
    return st.deferred(lambda: _erl_terms(with_local_funs, max_leaves))


def _erl_terms(with_local_funs: bool, max_leaves: int) -> st.SearchStrategy:
    leaves = erl_leaves(with_local_funs=with_local_funs)
    keys = erl_keys(leaves)
    return st.recursive(
        leaves,
        lambda c: st.one_of(
            st.lists(c, max_size=6),
            st.lists(st.integers(0, 255), max_size=20),  # STRING_EXT-shaped
            st.lists(c, max_size=6).map(tuple),
            st.dictionaries(keys, c, max_size=5),
            st.builds(ImproperList, st.lists(c, min_size=1, max_size=4).map(tuple),
                      c.filter(_not_a_list)),
        ),
        max_leaves=max_leaves,
    )
