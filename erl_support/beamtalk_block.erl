%% @doc Blocks (Erlang funs): arity-checked evaluation and the loops that
%% the compiler does not inline (spec semantics §4.5, stdlib §5).
%%
%% The compiler inlines the literal-block forms of these messages so that
%% assignments inside them update the enclosing method's variables; the
%% functions here are the fallbacks for blocks held in variables.
-module(beamtalk_block).

-export([value/2, arity/1, while_true/2, while_false/2, repeat/1,
         times_repeat/2, times_count/1, loop_bounds/4, to_do/3, to_by_do/4, value_selector/1, cull/2, test/4,
         not_boolean/4]).

%% @doc `aBlock value: a value: b`, with the arity checked (arity_mismatch:
%% "Wrong number of arguments: block expects 2 but was called with 1").
%% A non-block receiver gets the corresponding `value...` message.
value(F, []) when is_function(F, 0) -> F();
value(F, [A]) when is_function(F, 1) -> F(A);
value(F, [A, B]) when is_function(F, 2) -> F(A, B);
value(F, [A, B, C]) when is_function(F, 3) -> F(A, B, C);
value(F, Args) when is_function(F), is_list(Args) ->
    N = length(Args),
    case erlang:fun_info(F, arity) of
        {arity, N} -> erlang:apply(F, Args);
        {arity, M} -> arity_error(M, N)
    end;
value(Other, Args) when is_list(Args) ->
    case value_selector(length(Args)) of
        'valueWithArguments:' -> beamtalk_send:send(Other, 'valueWithArguments:', [Args]);
        Sel -> beamtalk_send:send(Other, Sel, Args)
    end.

%% @doc The answer of a filter block (`select:`, `count:`, `sort:`, ...),
%% which must be a Boolean: taking anything else for "no" made `select:`
%% answer an empty collection without a word. Class and Sel name the
%% receiver and the message for the type error.
test(B, Args, Class, Sel) ->
    case value(B, Args) of
        true -> true;
        false -> false;
        Other -> not_boolean(Other, Args, Class, Sel)
    end.

%% @doc The type error of a filter block that answered Other for Args (test/4;
%% callers that call a fun of known arity themselves, as List>>sort: does per
%% comparison, report through this so the text stays one).
not_boolean(Other, Args, Class, Sel) ->
    For = lists:join(" and ", [beamtalk_print:print_string(A) || A <- Args]),
    beamtalk_exception:raise(
      type_error, Class, Sel,
      iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on ",
                        atom_to_binary(Class, utf8)]),
      iolist_to_binary(["the block must answer true or false; for ", For,
                        " it answered ", beamtalk_rt:arg_text(Other)])).

arity_error(Expected, Got) ->
    beamtalk_exception:raise(
      arity_mismatch, 'Block', value_selector(Got),
      iolist_to_binary(io_lib:format("Wrong number of arguments: block expects ~b but was called with ~b",
                                     [Expected, Got])),
      nil).

%% @doc Call F with X when it takes one argument, with none when it takes
%% none (`ifNotNil:` and handler blocks accept both).
cull(F, _X) when is_function(F, 0) -> F();
cull(F, X) -> value(F, [X]).

value_selector(0) -> value;
value_selector(1) -> 'value:';
value_selector(2) -> 'value:value:';
value_selector(3) -> 'value:value:value:';
value_selector(4) -> 'value:value:value:value:';
value_selector(_) -> 'valueWithArguments:'.

arity(F) when is_function(F) ->
    {arity, N} = erlang:fun_info(F, arity),
    N.

%% @doc `[cond] whileTrue: [body]` -> nil.
while_true(Cond, Body) ->
    case value(Cond, []) of
        true -> value(Body, []), while_true(Cond, Body);
        _ -> nil
    end.

while_false(Cond, Body) ->
    case value(Cond, []) of
        false -> value(Body, []), while_false(Cond, Body);
        _ -> nil
    end.

%% @doc `[body] repeat`: loops until an exception or a non-local return.
repeat(Body) ->
    value(Body, []),
    repeat(Body).

%% @doc `n timesRepeat: [body]` -> nil.
times_repeat(N, Body) when is_integer(N), N > 0 ->
    value(Body, []),
    times_repeat(N - 1, Body);
times_repeat(_, _) ->
    nil.

%% @doc The count of an inlined `n timesRepeat: [...]`: an Integer, as
%% Integer>>timesRepeat: takes; anything else is the send's DNU, not a loop
%% that silently runs no iteration (`2.5 timesRepeat:` ran none).
times_count(N) when is_integer(N) -> N;
times_count(N) -> beamtalk_exception:dnu(beamtalk_send:class_name(N), 'timesRepeat:').

%% @doc The bounds of a `to:do:` / `to:by:do:` loop, inlined or sent, are
%% Numbers.  Erlang's term order compares a number with anything, so
%% `1 to: "3" do:` never stopped (every number is below every String) and
%% `nil to: 3 do:` ran no iteration.  A receiver that is no Number gets the
%% send's DNU (Number defines the loops), a bound or step a TypeError.
loop_bounds(_Sel, Start, Stop, Step) when is_number(Start), is_number(Stop), is_number(Step) -> ok;
loop_bounds(Sel, Start, _, _) when not is_number(Start) ->
    beamtalk_exception:dnu(beamtalk_send:class_name(Start), Sel);
loop_bounds(Sel, Start, Stop, Step) ->
    Bad = case is_number(Stop) of true -> Step; false -> Stop end,
    Class = beamtalk_send:class_name(Start),
    beamtalk_rt:type_error(Class, Sel, Bad, "a Number",
                           iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on ",
                                             atom_to_binary(Class, utf8)])).

%% @doc `a to: b do: [:i | ...]` -> nil.
to_do(I, Stop, _Body) when not is_number(I); not is_number(Stop) ->
    loop_bounds('to:do:', I, Stop, 1);
to_do(I, Stop, Body) when I =< Stop ->
    value(Body, [I]),
    to_do(I + 1, Stop, Body);
to_do(_, _, _) ->
    nil.

to_by_do(_I, _Stop, 0, _Body) ->
    beamtalk_exception:raise(runtime_error, 'Integer', 'to:by:do:',
                             <<"to:by:do: step must not be zero">>, nil);
to_by_do(I, Stop, Step, _Body) when not is_number(I); not is_number(Stop); not is_number(Step) ->
    loop_bounds('to:by:do:', I, Stop, Step);
to_by_do(I, Stop, Step, Body) when Step > 0, I =< Stop; Step < 0, I >= Stop ->
    value(Body, [I]),
    to_by_do(I + Step, Stop, Step, Body);
to_by_do(_, _, _, _) ->
    nil.
