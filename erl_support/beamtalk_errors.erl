%% @doc Turning BEAM errors into Beamtalk exception values and into the text
%% the REPL prints (DESIGN D9, spec/semantics.md section 5).
%%
%% Why: a user never sees an Erlang stack dump; every failure becomes an
%% exception object of the spec's hierarchy (bound to `_error`) and an
%% `ERROR: #Class` block with the fields that are present.
-module(beamtalk_errors).
-export([wrap/3, format/1, exception_class/1, kind_class/1, reason_text/1, stack_location/1,
         exit_signal/1, short/1]).

%% Longer reasons are cut here in what is printed; the whole term stays in
%% the exception's details (`_error details`).
-define(MAX_TEXT, 160).

-define(CLASS_KEY, '$beamtalk_class').

%% @doc Wrap a caught Class:Reason into a Beamtalk exception object.
%% Exception objects pass through (without the handler bookkeeping of
%% beamtalk_exception); raw BEAM errors become RuntimeError (badarith,
%% badarg, ... with the term as message), ExitError or ThrowError.
-spec wrap(error | exit | throw, term(), list()) -> map().
wrap(C, R, Stack) ->
    with_stack(wrap0(C, R, Stack), Stack).

%% The frames where the exception was raised (stdlib §6 `stackTrace`), kept
%% small: arguments become arities.  An exception that already has frames
%% (re-signalled, passed on) keeps its first ones.
with_stack(#{stacktrace := _} = Ex, _) -> Ex;
with_stack(Ex, Stack) when is_list(Stack), Stack =/= [] ->
    Ex#{stacktrace => [{M, F, if is_list(A) -> length(A); true -> A end, Loc}
                       || {M, F, A, Loc} <- Stack]};
with_stack(Ex, _) -> Ex.

wrap0(error, #{?CLASS_KEY := _, error := _} = Ex, _Stack) ->
    maps:without(['$bt_ctx', '$bt_searched'], Ex);
wrap0(error, {beamtalk_error, Kind, Class, Selector, Message, Hint, Details}, _Stack) ->
    exception(Kind, Class, Selector, Message, Hint, Details);
wrap0(C, R, Stack) when C =:= error; C =:= exit; C =:= throw ->
    %% Raised by an Erlang function called through a proxy: the class and
    %% reason crossed unchanged (they may have left the process that way);
    %% here, where Beamtalk catches them, they get the interop mapping.
    case beamtalk_erlang:noted(C, R) of
        {ok, Ex} -> Ex;
        none -> wrap1(C, R, Stack)
    end.

wrap1(error, undef, [{M, F, Args, _} | _]) ->
    Arity = if is_list(Args) -> length(Args); true -> Args end,
    Msg = iolist_to_binary(io_lib:format("Undefined function: ~ts:~ts/~b", [M, F, Arity])),
    exception(runtime_error, undefined, undefined, Msg, nil, #{});
wrap1(error, {badarity, {Fun, Args}}, _Stack) when is_function(Fun), is_list(Args) ->
    {arity, N} = erlang:fun_info(Fun, arity),
    Msg = iolist_to_binary(io_lib:format(
            "Wrong number of arguments: block expects ~b but was called with ~b",
            [N, length(Args)])),
    exception(arity_mismatch, 'Block', undefined, Msg, nil, #{});
wrap1(error, Reason, Stack) when Reason =:= badarg; Reason =:= function_clause;
                                 element(1, Reason) =:= bad_generator ->
    case beamtalk_improper:from_error(Reason, Stack) of
        {Sel, Tail} -> improper(Sel, Tail);
        none -> wrap2(error, Reason, Stack)
    end;
wrap1(C, R, Stack) ->
    wrap2(C, R, Stack).

wrap2(error, function_clause, Stack) ->
    case beamtalk_bad_arg:from_function_clause(Stack) of
        {Class, Sel, Msg, Hint} ->
            exception(type_error, binary_to_atom(Class, utf8), Sel, Msg, Hint, #{});
        none ->
            exception(runtime_error, undefined, undefined, <<"function_clause">>, nil,
                      #{reason => function_clause})
    end;
wrap2(error, badarith, Stack) ->
    %% the spec's message, with a hint naming the operands (beamtalk_arith_hint)
    exception(runtime_error, undefined, undefined, <<"badarith">>, beamtalk_arith_hint:hint(Stack),
              #{reason => badarith});
wrap2(error, Reason, _Stack) ->
    exception(runtime_error, undefined, undefined, term_text(Reason), nil, #{reason => Reason});
wrap2(exit, Reason, _Stack) ->
    exception(erlang_exit, undefined, undefined, term_text(Reason), nil, #{reason => Reason});
wrap2(throw, {'$bt_nlr', _Token, V}, _Stack) ->
    dead_return(V);
wrap2(throw, {'$bt_nlr', _Token, V, _State}, _Stack) ->
    dead_return(V);
wrap2(throw, Reason, _Stack) ->
    exception(erlang_throw, undefined, undefined, term_text(Reason), nil, #{reason => Reason}).

%% A List primitive that walked into the tail of an improper list
%% (beamtalk_improper).
improper(Sel, Tail) ->
    On = case Sel of
             undefined -> <<"Type error on List">>;
             _ -> iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on List"])
         end,
    TailText = short(beamtalk_print:print_string(Tail)),
    exception(type_error, 'List', Sel,
              iolist_to_binary([On, ": an improper list (it ends in ", TailText, ", not #())"]),
              <<"List methods need a list that ends in #(); first and rest take an improper one apart "
                "(an Erlang [H | T] whose T is no list)">>,
              #{tail => Tail}).

%% A block's `^` throws to the method (or input) that made the block; one
%% that reaches a top level (the REPL, an actor's reply, a process) found
%% no such method running: it had returned before the block was called
%% (Pharo's BlockCannotReturn).  Handlers cannot tell on the way out
%% whether the home is still further up, so only the top level says so.
dead_return(V) ->
    Msg = iolist_to_binary(["Cannot return ", short(beamtalk_print:print_string(V)),
                            ": this block's ^ returns from the method or input that made it, "
                            "which has already returned"]),
    exception(block_cannot_return, undefined, undefined, Msg,
              <<"A block answers its last expression: write [:x | x] instead of [:x | ^x] "
                "to answer a value">>, #{value => V}).

exception(Kind, Class, Selector, Message, Hint, Details) ->
    Record = #{kind => Kind, class => Class, selector => Selector,
               message => Message, hint => Hint, details => Details},
    #{?CLASS_KEY => exception_class(Record), error => Record}.

%% @doc The exception class of an error record (spec section 5.1): a
%% signal of an exception class is an instance of that class; everything
%% else follows its kind (the record's class is the failing receiver's
%% class, e.g. Integer for a does-not-understand).
exception_class(#{kind := signal, class := Class}) when is_atom(Class) ->
    case is_exception_class(Class) of
        true -> Class;
        false -> 'Error'
    end;
exception_class(#{kind := Kind}) ->
    kind_class(Kind).

is_exception_class(undefined) -> false;
is_exception_class(nil) -> false;
is_exception_class(Name) ->
    case catch beamtalk_class:is_kind_of_class(Name, 'Exception') of
        true -> beamtalk_class:exists(Name);
        _ -> lists:member(Name, ['Exception', 'Error', 'RuntimeError', 'TypeError',
                                 'InstantiationError', 'BEAMError', 'ExitError',
                                 'ThrowError'])
    end.

kind_class(K) when K =:= does_not_understand; K =:= arity_mismatch;
                   K =:= immutable_value; K =:= runtime_error;
                   K =:= index_out_of_bounds; K =:= class_not_found;
                   K =:= no_superclass; K =:= class_already_exists;
                   K =:= dispatch_error; K =:= callback_failed;
                   K =:= actor_dead; K =:= future_not_awaited;
                   K =:= internal_error; K =:= no_match;
                   K =:= block_cannot_return;
                   %% The I/O kinds (README "Error kinds"): RuntimeErrors, as
                   %% they were before they had names of their own.
                   K =:= file_not_found; K =:= permission_denied;
                   K =:= parse_error; K =:= regex_error -> 'RuntimeError';
kind_class(type_error) -> 'TypeError';
kind_class(instantiation_error) -> 'InstantiationError';
kind_class(erlang_exit) -> 'ExitError';
kind_class(erlang_throw) -> 'ThrowError';
kind_class(_) -> 'Error'.

%% @doc The REPL's error block: `ERROR: #Class` then indented fields that
%% are present, in the order Message, Module, Function, Reason, Hint,
%% Location.
-spec format(map()) -> binary().
format(#{?CLASS_KEY := ExClass, error := Rec} = Ex) ->
    Details = maps:get(details, Rec, #{}),
    Fields = [{<<"Message">>, maps:get(message, Rec, nil)},
              {<<"Module">>, maps:get(module, Details, nil)},
              {<<"Function">>, maps:get(function, Details, nil)},
              {<<"Reason">>, maps:get(reason_text, Details, nil)},
              {<<"Hint">>, maps:get(hint, Rec, nil)}],
    Lines = [["\n  ", Name, ": ", field_text(V)] || {Name, V} <- Fields ++ [{<<"Location">>, location(Ex)}],
                                                    V =/= nil, V =/= undefined],
    iolist_to_binary(["ERROR: #", atom_to_binary(ExClass, utf8) | Lines]).

%% Where an error raised in a loaded class happened: the method and the
%% `.bt` file and line of the first frame of a user class (a traceback's
%% last line), `Calc class>>level3: (calc.bt:4)`; in a block of a method,
%% as Pharo says it, `[] in Calc>>run (calc.bt:5)`.  Errors of input typed
%% at the REPL, and of the runtime and the stdlib alone, have none: the
%% input itself is the place.
location(#{stacktrace := Stack}) ->
    try beamtalk_test_location:user_frame(Stack) of
        nil -> nil;
        Frame ->
            #{method := M, side := Side, receiverClass := C} = Fr = beamtalk_prim_stack_frame:frame(Frame),
            InBlock = case beamtalk_prim_stack_frame:isBlock(Fr) of
                          true -> "[] in ";
                          false -> ""
                      end,
            Owner = case C of nil -> maps:get(moduleName, Fr); _ -> C end,
            iolist_to_binary([InBlock, atom_to_binary(Owner, utf8),
                              case Side of class -> " class"; _ -> "" end,
                              ">>", atom_to_binary(M, utf8),
                              " (", beamtalk_prim_stack_frame:sourceLocation(Fr), ")"])
    catch _:_ -> nil
    end;
location(_) ->
    nil.

%% @doc The Location of a stack (a process's current one: beamtalk_where).
-spec stack_location(list()) -> binary() | nil.
stack_location(Stack) ->
    location(#{stacktrace => Stack}).

field_text(V) when is_binary(V) -> V;
field_text(V) when is_atom(V) -> atom_to_binary(V, utf8);
field_text(V) -> beamtalk_print:print_string(V).

term_text(T) ->
    reason_text(T).

%% @doc An ExitError for an exit signal that ended a session's evaluator
%% (a linked process's reason); the whole reason is in its details.
exit_signal(Reason) ->
    exception(erlang_exit, undefined, undefined,
              iolist_to_binary(["A linked process exited: ", reason_text(Reason)]),
              <<"Trap exits (Erlang erlang process_flag: #trap_exit with: true) to receive "
                "them as messages; the whole reason is `_error details`">>,
              #{reason => Reason}).

%% @doc A reason as one readable line: a Beamtalk exception as its class and
%% message, a crash reason without its stack frames (which name files of
%% this installation), anything else printed as Beamtalk prints it, cut to
%% a line.
reason_text(#{?CLASS_KEY := Cls, error := _} = Ex) ->
    iolist_to_binary(["#", atom_to_binary(Cls, utf8), ": ", short(message(Ex))]);
reason_text(R0) ->
    case strip_stacks(R0) of
        R when is_atom(R) -> atom_to_binary(R, utf8);
        {badarity, {Fun, Args}} = R when is_function(Fun), is_list(Args) ->
            %% `Erlang erlang spawn: [:x | ...]`: the spec's arity message,
            %% not the raw term with the block in it
            reason_text(wrap1(error, R, []));
        #{?CLASS_KEY := _, error := _} = Ex -> reason_text(Ex);
        R -> printed(R)
    end.

printed(R) ->
    Text = try beamtalk_print:print_string(R)
           catch _:_ -> iolist_to_binary(io_lib:format("~tP", [R, 8]))
           end,
    short(Text).

%% Crash reasons nest `{Reason, Stacktrace}` (an exit from gen_server:call
%% wraps its callee's); the frames go, the reasons stay.
strip_stacks({Reason, [{M, F, A, L} | _]}) when is_atom(M), is_atom(F), is_list(L),
                                                (is_integer(A) orelse is_list(A)) ->
    strip_stacks(Reason);
strip_stacks(T) when is_tuple(T), not is_map(T) ->
    list_to_tuple([strip_stacks(E) || E <- tuple_to_list(T)]);
strip_stacks(L) when is_list(L) ->
    try [strip_stacks(E) || E <- L] catch _:_ -> L end;
strip_stacks(T) -> T.

message(Ex) ->
    try beamtalk_exception:message_text(Ex) of
        T when is_binary(T) -> T;
        T -> iolist_to_binary(io_lib:format("~tp", [T]))
    catch _:_ -> <<"(no message)">>
    end.

%% @doc At most one line of ?MAX_TEXT characters.
short(Text0) ->
    Text = iolist_to_binary(string:replace(Text0, "\n", " ", all)),
    case string:length(Text) > ?MAX_TEXT of
        true -> unicode:characters_to_binary([string:slice(Text, 0, ?MAX_TEXT - 1), 16#2026]);
        false -> Text
    end.
