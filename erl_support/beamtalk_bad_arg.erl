%% @doc A stdlib primitive that has no clause for its arguments.
%%
%% Why: a primitive states what it accepts in its clause heads and guards
%% (`'take:'(L, N) when is_integer(N)`); a call that matches none fails with
%% Erlang's bare `function_clause`, which tells a Beamtalk user nothing. When
%% the failing frame is an exported primitive of a `beamtalk_prim_*` module,
%% the failure is the caller's argument: it becomes the spec's `type_error`
%% ("Type error in 'take:' on List") with a hint showing the argument.
-module(beamtalk_bad_arg).
-export([from_function_clause/1]).

%% @doc `{Class, Selector, Message, Hint}` of the type error, or `none` when
%% the top frame is not a primitive called with its arguments.
-spec from_function_clause(list()) -> {atom(), atom(), binary(), binary()} | none.
from_function_clause([{M, F, [Receiver | Args], _} | _]) when is_atom(M), is_atom(F) ->
    case {prim_class(M), erlang:function_exported(M, F, length(Args) + 1)} of
        {{ok, ModClass}, true} -> describe(ModClass, F, Receiver, Args);
        _ -> none
    end;
from_function_clause(_) ->
    none.

describe(ModClass, F, Receiver, Args0) ->
    case atom_to_binary(F, utf8) of
        <<"class ", Sel/binary>> ->
            Owner = [ModClass, " class"],
            Named = [ModClass, " ", Sel],
            Atom = binary_to_atom(Sel, utf8),
            text(Owner, Atom, Named, arguments(Atom, Args0));
        Sel ->
            text(atom_to_binary(beamtalk_send:class_name(Receiver), utf8), F, Sel, arguments(F, Args0))
    end.

%% The arguments the user passed: an actor's primitive also gets the
%% actor's state before them (`'bind:as:'(Self, State, Value, Name)`).
arguments(Sel, Args) ->
    N = beamtalk_send:selector_arity(Sel),
    case length(Args) of
        N -> Args;
        M when M =:= N + 1 -> tl(Args);
        _ -> []
    end.

text(_Owner, _Sel, _Named, []) ->
    none;
text(Owner, Sel, Named, Args) ->
    Msg = iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on ", Owner]),
    Shown = case Args of
                [One] -> beamtalk_rt:arg_text(One);
                _ -> ["these arguments: ", lists:join(", ", [beamtalk_rt:arg_text(A) || A <- Args])]
            end,
    Hint = iolist_to_binary(["'", Named, "' does not accept ", Shown]),
    {iolist_to_binary(Owner), Sel, Msg, Hint}.

%% The class a primitive module serves: beamtalk_prim_date_time -> DateTime.
prim_class(M) ->
    case atom_to_binary(M, utf8) of
        <<"beamtalk_prim_json">> -> {ok, <<"JSON">>};
        <<"beamtalk_prim_", Snake/binary>> ->
            {ok, iolist_to_binary([capitalised(P) || P <- binary:split(Snake, <<"_">>, [global])])};
        _ -> none
    end.

capitalised(<<C, Rest/binary>>) when C >= $a, C =< $z -> <<(C - 32), Rest/binary>>;
capitalised(P) -> P.
