%% @doc Primitive methods of TestRunner (spec stdlib §11): class side only,
%% each answering a TestResult.
-module(beamtalk_prim_test_runner).

-export(['class runAll'/1, 'class run:'/2, 'class run:method:'/3]).

%% @doc Every test of every concrete TestCase subclass.
'class runAll'(_Cls) ->
    timed(fun() -> beamtalk_test_runner:run_named(all, true) end).

%% @doc Every test of one TestCase subclass.
'class run:'(_Cls, Class) ->
    timed(fun() -> beamtalk_test_runner:run_named([Class], true) end).

%% @doc One test of a TestCase subclass.
'class run:method:'(_Cls, Class, Sel) ->
    Name = beamtalk_test_runner:test_class_name(Class),
    %% `method: "testA"` names the test as `FooTest run: "testA"` does
    Text = case Sel of
               B when is_binary(B) -> B;
               A when is_atom(A) -> atom_to_binary(A, utf8);
               _ -> nil
           end,
    case [S || S <- beamtalk_test_runner:test_selectors(Name), atom_to_binary(S, utf8) =:= Text] of
        [S] -> timed(fun() -> [beamtalk_test_runner:run_test(Name, S)] end);
        [] ->
            beamtalk_exception:raise(
              runtime_error, Name, Sel,
              iolist_to_binary(["Method '", beamtalk_print:display_string(Sel), "' not found in ",
                                atom_to_binary(Name, utf8)]),
              <<"Test methods are unary and start with 'test'">>)
    end.

timed(F) ->
    T0 = erlang:monotonic_time(microsecond),
    Results = F(),
    beamtalk_test_runner:result(Results, erlang:monotonic_time(microsecond) - T0).
