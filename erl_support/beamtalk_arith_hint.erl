%% @doc The hint of a bare `badarith`.  Spec semantics 8 keeps the message
%% `badarith` (the Erlang reason), but on its own it does not say which
%% operand was wrong: `"a" + "b"` (a Python or JavaScript habit), `nil + 1`
%% (a variable never assigned).  The BEAM keeps the operator and its
%% operands in the top stack frame; the hint names them and the Beamtalk way.
-module(beamtalk_arith_hint).
-export([hint/1]).

-define(OPS, ['+', '-', '*', '/', 'div', 'rem', 'bsl', 'bsr', 'band', 'bor', 'bxor']).

-spec hint(list()) -> binary() | nil.
hint([{erlang, Op, [A, B], _} | _]) ->
    case lists:member(Op, ?OPS) of
        true -> catch_hint(Op, A, B);
        false -> nil
    end;
hint(_) -> nil.

catch_hint(Op, A, B) ->
    try binary_hint(Op, A, B)
    catch _:_ -> nil
    end.

binary_hint(_Op, A, B) when is_number(A), is_number(B) ->
    %% division by zero: the spec's `1 / 0` keeps its bare badarith (hint nil)
    nil;
binary_hint('+', A, B) when is_binary(A), is_binary(B) ->
    <<"'+' adds numbers: join Strings with ++ (\"a\" ++ \"b\")">>;
binary_hint(Op, A, B) when A =:= nil; B =:= nil ->
    iolist_to_binary(["'", op(Op), "' got nil: a variable or field that was never assigned, or a send that "
                      "answered nil (", operands(A, B), ")"]);
binary_hint(Op, A, B) when is_binary(A); is_binary(B) ->
    iolist_to_binary(["'", op(Op), "' needs two numbers (", operands(A, B), "): convert text with "
                      "asNumber or asInteger, or join text with ++ (x printString ++ \"!\")"]);
binary_hint(Op, A, B) ->
    iolist_to_binary(["'", op(Op), "' needs two numbers (", operands(A, B), ")"]).

op('rem') -> <<"%">>;
op('div') -> <<"div:">>;
op(Op) -> atom_to_binary(Op, utf8).

%% The compiler may swap the operands of `+` and `*` (a literal goes
%% second), so they are named without saying which was the receiver.
operands(A, B) ->
    ["the operands are ", beamtalk_rt:arg_text(A), " and ", beamtalk_rt:arg_text(B)].
