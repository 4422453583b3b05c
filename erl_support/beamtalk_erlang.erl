%% @doc Calling Erlang from Beamtalk (seed ADR 0028; spec semantics §13).
%%
%% `Erlang lists` is a proxy `#{'$beamtalk_class' => 'ErlangModule',
%% module => lists}`; a keyword send to it calls `lists:firstKeyword(args...)`.
%% `call/3` is also what generated code uses for `Erlang m f: ...`.
%%
%% Before calling, the export list is checked so a missing module or
%% function is reported as the seed shows (Module / Function / Hint, no
%% Erlang stack).
%%
%% What the called function raises leaves the call unchanged, class and
%% reason: `Erlang erlang exit: #normal` in a spawned block ends that
%% process with reason `normal`, as Erlang code would, and a supervisor or
%% a linked process sees exactly what Erlang code would have sent.  The
%% call only notes (in the process dictionary) which function raised it;
%% where Beamtalk code catches the exception (`on:do:`, the REPL, a test),
%% beamtalk_errors:wrap/3 asks noted/2 and maps it as the seed's table
%% says: undef -> RuntimeError (does_not_understand), badarg and badarith
%% -> TypeError, function_clause -> RuntimeError (arity_mismatch), exit ->
%% ExitError, throw -> ThrowError; the original reason is kept in the
%% details.  A String passed where the function failed with badarg gets
%% the charlist hint; an actor passed to an Erlang function the hint that
%% Erlang wants its pid.
-module(beamtalk_erlang).

-export([call/3, invoke/3, invoke_failed/6, proxy/1, proxy_send/3, proxy_dispatch/3,
         function_name/1, exports/1, noted/2, note/0, renote/1]).

-define(NOTE, '$bt_interop').
-define(PROXY_KEY, '$bt_proxy').

-define(CK, '$beamtalk_class').

proxy(Module) when is_atom(Module) ->
    #{?CK => 'ErlangModule', module => Module}.

%% @doc A message to a proxy: the first keyword names the function.  Called
%% as the proxy's doesNotUnderstand:args: (the table path of a send).
proxy_send(Module, Selector, Args) ->
    invoke(Module, function_name(Selector), Args).

%% @doc Every send to a proxy (beamtalk_dispatch routes class 'ErlangModule'
%% here): a selector of the ErlangModule class (printString, methods,
%% call:args:, ProtoObject's) goes to its method, any other calls
%% `module:firstKeyword(args...)`.
%%
%% Why not the table path: it reached the call through a table miss, the
%% doesNotUnderstand:args: method, a selector-to-name conversion through
%% binaries and an export check on every call, forty times the cost of the
%% call written out (`Erlang lists reverse: xs`).  Here each process keeps,
%% in its dictionary under `'$bt_proxy'` (dropped after every REPL input
%% like the runtime's other `$bt_` keys), what a selector means: the
%% function it calls, or `'$method'` for a selector of the class.  The
%% class table is read once per selector: ErlangModule and ProtoObject are
%% stdlib classes, which the class registry lets nobody change or extend.
%% The call goes through invoke/3's code, which checks the exports only
%% after a failure, so the error messages are those of call/3.
proxy_dispatch(Sel, #{module := M} = R, Args) when is_atom(M) ->
    case get(?PROXY_KEY) of
        #{Sel := '$method'} -> beamtalk_send:send_value('ErlangModule', R, Sel, Args);
        #{Sel := F} ->
            try erlang:apply(M, F, Args)         % invoke/3, inlined
            catch C:Rn:S -> invoke_failed(C, Rn, S, M, F, Args)
            end;
        Cache -> proxy_lookup(Cache, Sel, R, Args)
    end;
proxy_dispatch(Sel, R, Args) ->
    beamtalk_send:send_value('ErlangModule', R, Sel, Args).

proxy_lookup(Cache0, Sel, #{module := M} = R, Args) ->
    Cache = case is_map(Cache0) andalso map_size(Cache0) < 256 of
                true -> Cache0;
                false -> #{}
            end,
    case persistent_term:get('ErlangModule', #{}) of
        #{Sel := _} ->
            put(?PROXY_KEY, Cache#{Sel => '$method'}),
            beamtalk_send:send_value('ErlangModule', R, Sel, Args);
        _ ->
            F = function_name(Sel),
            put(?PROXY_KEY, Cache#{Sel => F}),
            invoke(M, F, Args)
    end.

function_name(Selector) ->
    S = atom_to_binary(Selector, utf8),
    case binary:split(S, <<":">>) of
        [<<>>, _] -> Selector;
        [Name | _] -> binary_to_atom(Name, utf8)
    end.

%% @doc `Module:Function(Args...)` with the interop error mapping.
call(M, F, Args) when is_atom(M), is_atom(F), is_list(Args) ->
    N = length(Args),
    check_callable(M, F, N),
    try erlang:apply(M, F, Args)
    catch
        C:R:S -> mapped(C, R, S, M, F, Args)
    end;
call(M, F, Args) ->
    Sel = case is_atom(F) of true -> F; false -> 'call:args:' end,
    Text = fun(X) -> beamtalk_print:print_string(X) end,
    Why = case {is_atom(F), is_list(Args)} of
              {false, _} -> ["the function must be a Symbol, not ", Text(F)];
              {true, false} -> ["the arguments must be a List, not ", Text(Args)];
              _ -> ["the module must be a Symbol, not ", Text(M)]
          end,
    beamtalk_exception:raise(type_error, 'ErlangModule', Sel,
                             iolist_to_binary(["Cannot call an Erlang function: " | Why]),
                             <<"call: #function args: #(arg1, arg2)">>).

%% @doc `Erlang m f: x` written out (the compiler's path, no proxy built):
%% the call is made straight away, and only a failure pays for the mapping,
%% which is the proxy's (call/3): a function that is not there gets the
%% does-not-exist / not-loaded / wrong-arity hint.
invoke(M, F, Args) ->
    try erlang:apply(M, F, Args)
    catch C:R:S -> invoke_failed(C, R, S, M, F, Args)
    end.

%% Only a failure pays for the mapping: a function that is not there gets
%% the does-not-exist / not-loaded / wrong-arity hint of call/3.
invoke_failed(C, R, S, M, F, Args) ->
    N = length(Args),
    case {C, R, S} of
        {error, undef, [{M, F, A, _} | _]} when is_list(A), length(A) =:= N ->
            check_callable(M, F, N);      % raises the missing-function error
        _ -> ok
    end,
    mapped(C, R, S, M, F, Args).

mapped(error, Ex, S, _M, _F, _Args) when is_map(Ex), is_map_key(?CK, Ex) -> erlang:raise(error, Ex, S);
mapped(C, R, S, M, F, Args) ->
    case beamtalk_exception:is_control(C, R) of
        true -> ok;
        false ->
            case get(?NOTE) of
                %% Raised by an inner call (`Erlang erlang throw:` in a block
                %% that `Erlang lists map:` runs) and passing through this
                %% one unchanged, stack and all: the inner call raised it.
                {C, R0, _, _, _, _, S0} when R0 =:= R, S0 =:= S -> ok;
                _ -> put(?NOTE, {C, R, M, F, length(Args), hint_for(R, S, M, F, Args), S})
            end
    end,
    erlang:raise(C, R, S).

%% @doc The interop exception for C:R if the last Erlang call of this
%% process raised it (and forget the note).
noted(C, R) ->
    case get(?NOTE) of
        {C, R0, M, F, N, Extra, _Stack} when R0 =:= R ->
            erase(?NOTE),
            {ok, interop_exception(C, R, M, F, N, Extra)};
        _ -> none
    end.

%% @doc The pending note (undefined if none), and putting it back: a
%% handler that looked at an exception and let it go on (beamtalk_exception)
%% must not cost the outer handlers the mapping.
note() -> get(?NOTE).

renote(undefined) -> ok;
renote(Note) -> put(?NOTE, Note), ok.

interop_exception(throw, T, M, F, N, Extra) ->
    erlang_error(erlang_throw, M, F, N, T, Extra);
interop_exception(exit, R, M, F, N, Extra) ->
    erlang_error(erlang_exit, M, F, N, R, Extra);
interop_exception(error, R, M, F, N, Extra) ->
    erlang_error(error_kind(R), M, F, N, R, Extra).

%% An `undef` raised further in (the called function exists, one it calls
%% does not): name that one, which the reason alone does not.
hint_for(undef, [{M2, F2, A2, _} | _], M, F, Args) when is_atom(M2), is_atom(F2), {M2, F2} =/= {M, F} ->
    N2 = if is_list(A2) -> length(A2); true -> A2 end,
    Why = case code:is_loaded(M2) =/= false orelse code:which(M2) =/= non_existing of
              true -> "which does not exist";
              false -> "whose module is not loaded (is it on the code path?)"
          end,
    unicode:characters_to_binary(io_lib:format("~ts:~ts/~b called ~ts:~ts/~b, ~ts.",
                                               [M, F, length(Args), M2, F2, N2, Why]));
hint_for({badarity, {Fun, Called}}, _S, M, F, _Args) when is_function(Fun), is_list(Called) ->
    %% A block of the wrong arity handed to Erlang (lists:sort/2 wants two).
    {arity, N} = erlang:fun_info(Fun, arity),
    C = length(Called),
    Shape = case C of
                0 -> "none, [...]";
                _ -> [integer_to_list(C), ", [", lists:join(" ", [[$:, P] || P <- lists:sublist("abcdefghij", C)]),
                      " | ...]"]
            end,
    unicode:characters_to_binary(io_lib:format("A block that takes ~b argument~ts was called with ~b by ~ts:~ts: "
                                               "give it ~ts.",
                                               [N, plural(N), C, M, F, Shape]));
hint_for(function_clause, S, M, F, Args) ->
    %% A block of an arity the function's guards refuse (lists:map/2 wants
    %% `is_function(F, 1)`): say which arity.
    case beamtalk_erlang_clauses:explain(S) of
        none -> hint_with_args(function_clause, S, M, F, Args);
        Hint -> Hint
    end;
hint_for(R, S, M, F, Args) ->
    hint_with_args(R, S, M, F, Args).

hint_with_args(R, S, M, F, Args) ->
    {Main, Why} = case hint_for(R, M, F, Args) of
                      {explain, Fallback0} ->
                          %% No clause of a function it calls (base64's
                          %% decode_binary on a bad character): the call took
                          %% the String, so a charlist is not what it wants.
                          Fallback = case R =:= function_clause andalso not raised_by(S, M, F) of
                                         true -> nil;
                                         false -> Fallback0
                                     end,
                          %% OTP's extended error information (EEP 54) says which
                          %% argument was wrong and why; where the function has
                          %% none, the guess.
                          case beamtalk_erlang_why:explain(R, S, M, F) of
                              none -> {Fallback, []};
                              {Text, W} -> {join([Text, charlist_if_list(W, Args, Fallback)]), W}
                          end;
                      Hint -> {Hint, []}
                  end,
    join([Main, tuple_hint(R, S, Why, Args)]).

raised_by([{M, F, _, _} | _], M, F) -> true;
raised_by(_, _, _) -> false.

%% Beamtalk has no tuple literal, so `#(#capture, #all)` (a List) is what
%% an Erlang developer writes first for the option `{capture, all}`.  When
%% a call refused its arguments and one of them is, or holds, a short List
%% led by a Symbol (or one where OTP says a tuple was wanted), the hint
%% shows the tuple it may have meant.
tuple_hint(R, S, Why, Args) ->
    case refused_arguments(R, Args) of
        false -> nil;
        true ->
            Wanted = [lists:nth(N, Args) || {N, T} <- Why, binary:match(T, <<"tuple">>) =/= nomatch],
            Matched = case R of
                          %% the clause heads match a tuple there (calendar's {Y, M, D})
                          function_clause ->
                              case beamtalk_erlang_clauses:tuple_wanted(S) of
                                  {ok, Written} -> [Written];
                                  none -> []
                              end;
                          _ -> []
                      end,
            case Matched ++ [E || A <- Wanted ++ Args, E <- tuple_like(A, lists:member(A, Wanted))] of
                [] -> nil;
                [E | _] ->
                    L = beamtalk_print:print_string(E),
                    iolist_to_binary(["`", L, "` is a List, not a tuple: where Erlang wants a tuple, build it with "
                                      "`Tuple withAll: ", L, "`."])
            end
    end.

%% The List elements of A that read as tuples (A's own, or A itself when
%% OTP named it as the argument that should be a tuple).
tuple_like(A, Wanted) when is_list(A) ->
    Inner = [E || E <- proper(A), is_list(E), short_list(E), Wanted orelse is_atom(hd(E))],
    case {Inner, Wanted andalso short_list(A) andalso not lists:any(fun is_list/1, A)} of
        {[], true} -> [A];
        _ -> Inner
    end;
tuple_like(_, _) -> [].

short_list(L) ->
    case proper(L) of
        [_, _ | _] = P -> length(P) =< 8;
        _ -> false
    end.

proper(L) ->
    try length(L) of _ -> L
    catch error:badarg -> []
    end.

%% The arguments were what the function refused: badarg, no clause, or a
%% `case` in it with no branch for one of them (lists:map given an Interval
%% raises `{case_clause, Interval}`).
refused_arguments(badarg, _Args) -> true;
refused_arguments(function_clause, _Args) -> true;
refused_arguments({case_clause, V}, Args) -> lists:member(V, Args);
refused_arguments(_, _) -> false.

%% The charlist hint where OTP says a String argument is not a list (of
%% characters): os:getenv("HOME" as a String).
charlist_if_list(Why, Args, Fallback) ->
    Listy = [N || {N, T} <- Why, N =< length(Args), is_binary(lists:nth(N, Args)),
                  binary:match(T, <<"list">>) =/= nomatch],
    case Listy of
        [] -> nil;
        _ -> Fallback
    end.

join(Parts) ->
    case [P || P <- Parts, P =/= nil] of
        [] -> nil;
        Ps -> iolist_to_binary(lists:join(" ", Ps))
    end.

%% A hint for arguments Erlang often refuses: a String where a charlist is
%% wanted (badarg), an actor where a pid is wanted.
hint_for(badarg, M, F, [Format, Data]) when (M =:= io orelse M =:= io_lib),
                                            (F =:= format orelse F =:= fwrite),
                                            is_binary(Format) ->
    %% A String is a fine format; what io refuses is a format whose
    %% directives do not fit the arguments (or arguments that are no List).
    case is_list(Data) of
        true -> <<"The format's ~ directives do not match the arguments: each ~p, ~s, ~w, ... takes one "
                  "element of the List, in order (~n and ~~ take none).">>;
        false -> <<"The arguments of a format are a List: io format: \"~p~n\" with: #(42).">>
    end;
hint_for(R, _M, _F, Args) ->
    case {lists:any(fun is_actor/1, Args), [P || #{?CK := 'ErlangModule', module := P} <- Args, is_atom(P)]} of
        {true, _} ->
            <<"An actor is not a pid: pass `anActor pid` to Erlang functions that want a process.">>;
        {false, [P | _]} ->
            %% `Erlang timer tc: (Erlang lists) with: #reverse ...`
            Name = beamtalk_print:print_string(P),
            iolist_to_binary(["`Erlang ", atom_to_binary(P, utf8), "` is a proxy, not a module name: pass the Symbol `",
                              Name, "` to Erlang functions that want a module."]);
        {false, []} ->
            case refused_arguments(R, Args) of
                true -> collection_or_charlist_hint(R, Args);
                false -> {explain, nil}
            end
    end.

collection_or_charlist_hint(R, Args) ->
    Strings = case R of
                  {case_clause, V} when is_binary(V) -> [V];
                  _ -> [A || A <- Args, is_binary(A)]
              end,
    case {[C || A <- Args, C <- [tagged_collection(A)], C =/= none], Strings} of
        {[C | _], _} ->
            Name = atom_to_binary(C, utf8),
            A = article(Name),
            iolist_to_binary([A, " ", Name, " is not an Erlang list: pass `", string:lowercase(A), Name,
                              " asList` to Erlang functions that want a list."]);
        {[], [_ | _]} ->
            %% Which String it refused Erlang does not say: each is shown.
            Shown = lists:join(" or ", [["`", charlist_example(S), " asCharlist`"]
                                        || S <- lists:sublist(distinct(Strings), 3)]),
            {explain, iolist_to_binary(["This Erlang function may want a charlist where a String was given: pass ",
                                        Shown, "; turn a charlist it answers into a String with `String withAll: aList`."])};
        {[], []} -> {explain, nil}
    end.

distinct([]) -> [];
distinct([X | Xs]) -> [X | distinct([Y || Y <- Xs, Y =/= X])].

%% A Beamtalk collection that is no Erlang list (Interval, Array, Set:
%% value objects, maps underneath); List and Dictionary are plain terms.
tagged_collection(#{?CK := C}) when is_atom(C) ->
    case catch beamtalk_class:is_kind_of_class(C, 'Collection') of
        true -> C;
        _ -> none
    end;
tagged_collection(_) -> none.

article(<<V, _/binary>>) when V =:= $A; V =:= $E; V =:= $I; V =:= $O; V =:= $U -> <<"An">>;
article(_) -> <<"A">>.

%% The String the caller gave, as they would write it, so the hint can be
%% pasted back; a long or unprintable one is named by its role instead.
charlist_example(S) when byte_size(S) =< 40 ->
    case unicode:characters_to_list(S) of
        L when is_list(L) ->
            case io_lib:printable_unicode_list(L) of
                true -> beamtalk_print:print_string(S);
                false -> <<"aString">>
            end;
        _ -> <<"aString">>      % not UTF-8
    end;
charlist_example(_) -> <<"aString">>.

is_actor({beamtalk_object, _, _, P}) when is_pid(P) -> true;
is_actor(_) -> false.

check_callable(M, F, N) ->
    case code:ensure_loaded(M) of
        {module, M} ->
            case erlang:function_exported(M, F, N) of
                true -> ok;
                false -> missing_function(M, F, N)
            end;
        {error, _} ->
            erlang:error(interop_error(does_not_understand, M, F, N, nil, nil,
                          iolist_to_binary(["Erlang module '", atom_to_binary(M, utf8),
                                            "' is not loaded. Is it on the code path?"])))
    end.

missing_function(M, F, N) ->
    Arities = lists:usort([A || {F1, A} <- exports(M), F1 =:= F]),
    Hint = case Arities of
               [] -> <<"This Erlang function does not exist. Check spelling and arity.">>;
               [A] ->
                   iolist_to_binary(io_lib:format("~ts:~ts/~b exists but was called with ~b argument~ts.",
                                                  [M, F, A, N, plural(N)]));
               As ->
                   Names = lists:join(", ", [io_lib:format("~ts:~ts/~b", [M, F, A]) || A <- As]),
                   iolist_to_binary(io_lib:format("~ts exist but ~ts was called with ~b argument~ts.",
                                                  [Names, F, N, plural(N)]))
           end,
    erlang:error(interop_error(does_not_understand, M, F, N, nil, nil, Hint)).

plural(1) -> "";
plural(_) -> "s".

%% Kind of an error:Reason raised inside the call.
error_kind(undef) -> does_not_understand;
error_kind(badarg) -> type_error;
error_kind(badarith) -> type_error;
error_kind(function_clause) -> arity_mismatch;
error_kind(_) -> runtime_error.

erlang_error(Kind, M, F, N, Reason, Extra) ->
    Hint0 = case Reason of
                function_clause ->
                    <<"Erlang function raised 'function_clause'. Check argument types and values.">>;
                _ ->
                    unicode:characters_to_binary(io_lib:format("Erlang error in ~ts:~ts: ~ts",
                                                               [M, F, reason_text(Reason)]))
            end,
    Hint = case Extra of
               nil -> Hint0;
               _ -> case binary:last(Hint0) of
                        $. -> <<Hint0/binary, " ", Extra/binary>>;
                        _ -> <<Hint0/binary, ". ", Extra/binary>>
                    end
           end,
    interop_error(Kind, M, F, N, Reason, reason_text(Reason), Hint).

interop_error(Kind, M, F, N, Reason, ReasonText, Hint) ->
    Details0 = #{module => M,
                 function => iolist_to_binary(io_lib:format("~ts/~b", [F, N]))},
    Details = case ReasonText of
                  nil -> Details0;
                  _ -> Details0#{reason => Reason, reason_text => ReasonText}
              end,
    beamtalk_exception:new(Kind, 'ErlangModule', F, nil, Hint, Details).

reason_text(R) -> beamtalk_errors:reason_text(R).

%% @doc The exports of a module (empty when it cannot be loaded).
exports(M) ->
    case code:ensure_loaded(M) of
        {module, M} -> M:module_info(exports);
        _ -> []
    end.
