%% @doc Primitive methods of TestCase (spec stdlib §11): the assertions on
%% the instance side, running on the class side.  TestCase is an `Object
%% subclass:` class (instances are tagged maps), so these are value style,
%% Self first.  Discovery, the per-test process and the timeout are in
%% `beamtalk_test_runner`.
%%
%% A failed assertion raises an exception of kind `assertion_failed`
%% (class Error), which the runner records as a failure; any other
%% exception is an error.
-module(beamtalk_prim_test_case).

-export(['assert:'/2, 'deny:'/2, 'assert:equals:'/3, 'should:raise:'/3,
         'shouldnt:raise:'/3, 'fail:'/2, 'setUp'/1, 'tearDown'/1,
         'class runAll'/1, 'class run:'/2, 'class timeout'/1,
         'class testSelectors'/1]).

'setUp'(_Self) -> nil.
'tearDown'(_Self) -> nil.

'assert:'(_Self, true) -> nil;
'assert:'(Self, V) ->
    fail(Self, 'assert:', ["Assertion failed: expected true, got ", ps(V)]).

'deny:'(_Self, false) -> nil;
'deny:'(Self, V) ->
    fail(Self, 'deny:', ["Denial failed: expected false, got ", ps(V)]).

'assert:equals:'(_Self, Actual, Expected) when Actual =:= Expected -> nil;
'assert:equals:'(Self, Actual, Expected) ->
    fail(Self, 'assert:equals:', ["Expected ", ds(Expected), ", got ", ds(Actual) | alike(Expected, Actual)]).

%% Two values whose display strings are the same (`"5"` and `5`, `#abc`
%% and `"abc"`), or one of them empty: the spec's text alone would read
%% "Expected 5, got 5" or "Expected , got nil".
alike(Expected, Actual) ->
    case ds(Expected) =:= ds(Actual) orelse ds(Expected) =:= <<>> orelse ds(Actual) =:= <<>> of
        false -> [];
        true ->
            case {ps(Expected), ps(Actual)} of
                {Same, Same} -> [" (they print alike but are not equal)"];
                {PE, PA} -> [" (as printString: expected ", PE, ", got ", PA, ")"]
            end
    end.

'fail:'(Self, Message) ->
    fail(Self, 'fail:', [ds(Message)]).

%% @doc `should: [..] raise: #kind`: the block must raise an error of that
%% kind.  The kind of a raw Erlang error is its reason (`#badarith`); its
%% Beamtalk kind (`#runtime_error`) matches too.  An exception class may
%% stand for the kind (`raise: ZeroDivide`-style: matched by inheritance).
'should:raise:'(Self, Block, Kind) ->
    block_arg('should:raise:', Block),
    case run_block(Block) of
        ok ->
            fail(Self, 'should:raise:',
                 ["Expected block to raise ", kind_text(Kind), " but it completed normally"]);
        {raised, Ex, Kinds} ->
            case matches(Ex, Kinds, Kind) of
                true -> nil;
                false ->
                    fail(Self, 'should:raise:',
                         ["Expected error kind ", kind_text(Kind), " but got ", got(Ex, Kinds, Kind)])
            end
    end.

%% @doc `shouldnt: [..] raise: #kind`: the block must not raise an error of
%% that kind; other errors propagate (the test is then an error).
'shouldnt:raise:'(Self, Block, Kind) ->
    block_arg('shouldnt:raise:', Block),
    case run_block(Block, rethrow_others, Kind) of
        ok -> nil;
        {raised, Ex, _Kinds} ->
            fail(Self, 'shouldnt:raise:',
                 ["Expected block not to raise ", kind_text(Kind), " but it raised: ",
                  beamtalk_exception:message_text(Ex)])
    end.

%% `self should: 3 raise: #x` (or `(1 / 0)` in parentheses, evaluated
%% before the send): anything but a block would "complete normally".
block_arg(_Sel, B) when is_function(B) -> ok;
block_arg(Sel, Other) ->
    beamtalk_rt:type_error('TestCase', Sel, Other, "a Block ([...]) as its first",
                           iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on TestCase"])).

%% Run Block: `ok`, or `{raised, Ex, Kinds}` for an error Keep accepts;
%% control flow (non-local returns, handler signals) and errors Keep
%% rejects go on up.
run_block(Block) ->
    run_block(Block, fun(_, _) -> true end).

run_block(Block, rethrow_others, Kind) ->
    run_block(Block, fun(Ex, Kinds) -> matches(Ex, Kinds, Kind) end).

run_block(Block, Keep) ->
    try beamtalk_block:value(Block, []) of
        _ -> ok
    catch
        C:R:S ->
            case beamtalk_exception:is_control(C, R) of
                true -> erlang:raise(C, R, S);
                false ->
                    Ex = beamtalk_errors:wrap(C, R, S),
                    Kinds = kinds(Ex),
                    case Keep(Ex, Kinds) of
                        true -> {raised, Ex, Kinds};
                        false -> erlang:raise(C, R, S)
                    end
            end
    end.

%% The kinds an exception answers to, most specific first: the reason of a
%% raw BEAM error (badarith, badarg, {badmatch, _} -> badmatch), then the
%% record's kind.
kinds(Ex) ->
    Rec = beamtalk_exception:record(Ex),
    Kind = case maps:get(kind, Rec, undefined) of
               K when is_atom(K) -> K;
               _ -> undefined
           end,
    Raw = case maps:get(details, Rec, #{}) of
              #{reason := R} when is_atom(R) -> [R];
              #{reason := T} when is_tuple(T), tuple_size(T) > 0, is_atom(element(1, T)) ->
                  [element(1, T)];
              _ -> []
          end,
    Raw ++ [Kind].

matches(Ex, _Kinds, {beamtalk_object, Tag, beamtalk_class, _} = Cls) when Tag =/= 'Metaclass' ->
    beamtalk_exception:matches(Ex, Cls);
matches(_Ex, Kinds, Kind) when is_atom(Kind) ->
    lists:member(Kind, Kinds);
matches(_Ex, Kinds, Kind) when is_binary(Kind) ->
    lists:member(Kind, [atom_to_binary(K, utf8) || K <- Kinds]);
matches(_, _, _) ->
    false.

%% What was raised, said the way it was asked for: the exception's class
%% when a class was expected (its kind of a signalled exception is just
%% `signal`), else its kind.
got(Ex, _Kinds, {beamtalk_object, Tag, beamtalk_class, _}) when Tag =/= 'Metaclass' ->
    case Ex of
        #{'$beamtalk_class' := C} when is_atom(C) -> atom_to_binary(C, utf8);
        _ -> <<"something else">>
    end;
got(_Ex, Kinds, _Kind) ->
    atom_to_binary(hd(Kinds), utf8).

kind_text(K) when is_atom(K) -> atom_to_binary(K, utf8);
kind_text(K) -> ds(K).

fail(Self, Sel, Text) ->
    beamtalk_test_runner:assertion_failure(Self, Sel, iolist_to_binary(Text)).

ps(V) -> beamtalk_print:print_string(V).
ds(V) -> beamtalk_print:display_string(V).

%%% Class side

%% @doc `FooTest runAll`: every test of the class, as a report String.
'class runAll'(Cls) ->
    Name = beamtalk_class:name_of(Cls),
    case beamtalk_test_runner:test_selectors(Name) of
        [] -> iolist_to_binary(["No test methods found in ", atom_to_binary(Name, utf8)]);
        _ ->
            T0 = erlang:monotonic_time(microsecond),
            Results = beamtalk_test_runner:run_class(Name),
            beamtalk_test_runner:report(Results, erlang:monotonic_time(microsecond) - T0)
    end.

%% @doc `FooTest run: #testBar`: one test, as a report String.
'class run:'(Cls, Test) ->
    Name = beamtalk_class:name_of(Cls),
    Sel = case Test of
              B when is_binary(B) -> B;
              A when is_atom(A) -> atom_to_binary(A, utf8);
              Other -> ds(Other)
          end,
    case [S || S <- beamtalk_test_runner:test_selectors(Name), atom_to_binary(S, utf8) =:= Sel] of
        [S] ->
            T0 = erlang:monotonic_time(microsecond),
            Results = [beamtalk_test_runner:run_test(Name, S)],
            beamtalk_test_runner:report(Results, erlang:monotonic_time(microsecond) - T0);
        [] ->
            iolist_to_binary(["Method '", Sel, "' not found in ", atom_to_binary(Name, utf8)])
    end.

%% @doc The per-test timeout in milliseconds (override on the class side).
'class timeout'(_Cls) -> beamtalk_test_runner:default_timeout().

%% @doc The selectors the runner would run, in order.
'class testSelectors'(Cls) -> beamtalk_test_runner:test_selectors(beamtalk_class:name_of(Cls)).
