%% @doc Exceptions: raising, `on:do:`, `ensure:`, `ifCurtailed:`, and the
%% Pharo-style handler protocol (`retry`, `return:`, `pass`, `resume:`,
%% `signal`, `signal:`); spec semantics §5 plus this project's additions.
%%
%% An exception object is a tagged map
%% `#{'$beamtalk_class' => ExClass, error => Record}` raised with
%% `erlang:error/1`; Record is `#{kind, class, selector, message, hint,
%% details}` (class = the failing receiver's class, shown as `errorClass`).
%%
%% Two ways an exception reaches a handler:
%%
%% * **Unwound** (everything raised with `erlang:error/exit/throw`: BEAM
%%   errors such as badarith, does-not-understand, `error:`): `on_do/3`
%%   catches it with try/catch, so the stack between the raise and the
%%   handler is gone.  The handler may `retry`, `return:`, `pass`, but not
%%   `resume:` (there is nothing left to resume).
%% * **Signalled** (`signal`, `signal:`): the signal searches the handler
%%   stack *before* unwinding, Pharo style.  Every `on_do/3` pushes a frame
%%   `{Id, Filter, Handler}` on a stack kept in the process dictionary; the
%%   signal runs the first matching handler right at the signal point (with
%%   the handler stack cut to the frames outside that handler's `on:do:`, so
%%   an exception inside a handler is not caught by the same handler).  The
%%   handler's outcome then travels by `throw` of a private control term:
%%     falls off the end / `return: v`  -> `{'$bt_ex_return', FrameId, V}`
%%     `retry`                          -> `{'$bt_ex_retry', FrameId}`
%%     `resume: v`                      -> `{'$bt_ex_resume', SignalId, V}`
%%                                         (caught by the signal: it answers v)
%%     `pass`                           -> search continues outward
%%     an error inside the handler      -> `{'$bt_handler_error', FrameId, ...}`
%%                                         re-raised from the handler's on:do:
%%   A signal that no handler takes is raised as an error marked
%%   `'$bt_searched'`, so the frames it unwinds through (which already
%%   declined it) let it pass; the mark is removed where the exception
%%   leaves the process (actor replies, the workspace).
%%
%% Control terms and non-local returns (`{'$bt_nlr', Token, V}`, in an actor
%% method `{'$bt_nlr', Token, V, State}`) always pass
%% through `on_do/3` untouched; `ensure/2` runs its cleanup on every exit.
-module(beamtalk_exception).

%% Generated code (runtime_abi.py)
-export([on_do/3, ensure/2, if_curtailed/2, user_error/2, raise/5, no_match/1]).
%% Runtime API
-export([new/5, new/6, raise/6, raise_ex/1, dnu/2, dnu/3, signal/1, signal/2,
         retry/1, return/2, pass/1, resume/2, outer/1, matches/2, is_control/2,
         clean/1, fresh/1, message_text/1, record/1, is_exception/1]).

-define(CK, '$beamtalk_class').
-define(STACK, '$bt_handlers').
-define(ACTIVE, '$bt_active_handlers').
%% {?OUTER, FrameId}: the handler frames outside a running handler's on:do:
%% (where its `e outer` searches).
-define(OUTER, '$bt_outer_handlers').

%%% ---------------------------------------------------------------------
%%% Making and raising
%%% ---------------------------------------------------------------------

%% @doc A new exception object.  The exception class follows the kind
%% (spec §5.1), or the record's class for signals of exception classes.
new(Kind, Class, Selector, Message, Hint) ->
    new(Kind, Class, Selector, Message, Hint, #{}).

new(Kind, Class, Selector, Message, Hint, Details) ->
    Rec = #{kind => Kind, class => Class, selector => Selector,
            message => Message, hint => Hint, details => Details},
    #{?CK => beamtalk_errors:exception_class(Rec), error => Rec}.

%% @doc Raise an error of the given kind (`FIELD_ERROR` in the ABI).
-spec raise(atom(), term(), term(), term(), term()) -> no_return().
raise(Kind, Class, Selector, Message, Hint) ->
    erlang:error(new(Kind, Class, Selector, Message, Hint)).

raise(Kind, Class, Selector, Message, Hint, Details) ->
    erlang:error(new(Kind, Class, Selector, Message, Hint, Details)).

raise_ex(Ex) ->
    erlang:error(Ex).

%% @doc `obj error: "text"`: kind user_error, class = the receiver's class.
-spec user_error(term(), term()) -> no_return().
user_error(Receiver, Message) ->
    raise(user_error, beamtalk_send:class_name(Receiver), undefined,
          text(Message), nil).

%% @doc No arm of a `match:` matched Value.
-spec no_match(term()) -> no_return().
no_match(Value) ->
    raise(no_match, beamtalk_send:class_name(Value), undefined,
          iolist_to_binary(["No match arm matched ", safe_print(Value)]), nil).

%% @doc The does-not-understand error (spec §4.2).
dnu(ClassName, Selector) ->
    dnu(ClassName, Selector, beamtalk_selector_hint:hint(ClassName, Selector)).

dnu(ClassName, Selector, Hint) ->
    raise(does_not_understand, ClassName, Selector,
          iolist_to_binary([to_bin(ClassName), " does not understand '",
                            to_bin(Selector), "'"]), Hint).

%% @doc A fresh (never signalled) instance of an exception class.
fresh(ExClass) ->
    #{?CK => ExClass,
      error => #{kind => signal, class => ExClass, selector => undefined,
                 message => nil, hint => nil, details => #{}}}.

%%% ---------------------------------------------------------------------
%%% on:do:, ensure:, ifCurtailed:
%%% ---------------------------------------------------------------------

%% @doc `[Body] on: Filter do: Handler` (spec §5.3).  Filter is a class
%% object (matched by inheritance), a list of them, or anything else
%% (catches everything).  Handler takes zero or one argument; its value is
%% the value of on:do:.
on_do(Body, Filter, Handler) ->
    on_do_loop(Body, Filter, Handler, make_ref()).

on_do_loop(Body, Filter, Handler, Id) ->
    Saved = get(?STACK),
    put(?STACK, [{Id, Filter, Handler} | stack_of(Saved)]),
    Outcome =
        try run0(Body) of
            V -> {value, V}
        catch
            throw:{'$bt_ex_return', Id, V} -> {value, V};
            throw:{'$bt_ex_retry', Id} -> retry;
            throw:{'$bt_handler_error', Id, C, R, S} -> {reraise, C, R, S};
            C:R:S -> {caught, C, R, S}
        after
            restore(?STACK, Saved)
        end,
    case Outcome of
        {value, V1} -> V1;
        retry -> on_do_loop(Body, Filter, Handler, Id);
        {reraise, C1, R1, S1} -> erlang:raise(C1, R1, S1);
        {caught, C2, R2, S2} -> unwound(C2, R2, S2, Body, Filter, Handler, Id)
    end.

unwound(C, R, S, Body, Filter, Handler, Id) ->
    case is_control(C, R) of
        true -> erlang:raise(C, R, S);
        false ->
            %% Wrapping takes the interop note of an Erlang call's failure;
            %% an exception that goes on outward (no match, `pass`) gets it
            %% back, so the next handler or the REPL maps it the same way.
            Note = beamtalk_erlang:note(),
            Ex = beamtalk_errors:wrap(C, R, S),
            case maps:is_key('$bt_searched', Ex) orelse not matches(Ex, Filter) of
                true ->
                    beamtalk_erlang:renote(Note),
                    erlang:raise(C, R, S);
                false ->
                    Ctx = #{frame => Id, mode => unwound, raw => {C, R, S}, note => Note},
                    push_active(Id),
                    Result =
                        try call_handler(Handler, with_ctx(Ex, Ctx)) of
                            V -> {value, V}
                        catch
                            throw:{'$bt_ex_return', Id, V} -> {value, V};
                            throw:{'$bt_ex_retry', Id} -> retry
                        after
                            pop_active(Id)
                        end,
                    case Result of
                        {value, V1} -> V1;
                        retry -> on_do_loop(Body, Filter, Handler, Id)
                    end
            end
    end.

%% @doc `[Body] ensure: [Cleanup]`: Cleanup runs on every exit path
%% (values, errors, non-local returns, exits); the value is Body's.
ensure(Body, Cleanup) ->
    try run0(Body)
    after run0(Cleanup)
    end.

%% @doc `[Body] ifCurtailed: [Cleanup]`: Cleanup runs only when Body does
%% not complete normally; the exit then continues.
if_curtailed(Body, Cleanup) ->
    try run0(Body)
    catch C:R:S ->
            run0(Cleanup),
            erlang:raise(C, R, S)
    end.

%%% ---------------------------------------------------------------------
%%% Signalling (searches the handler stack before unwinding)
%%% ---------------------------------------------------------------------

%% @doc `anException signal`: a fresh exception raises kind signal with the
%% class name as message; a caught one is re-signalled with its record.
signal(Ex0) ->
    Ex = prepare_signal(clean(Ex0)),
    search(stack_of(get(?STACK)), Ex, make_ref()).

%% @doc `anException signal: text`.
signal(Ex0, Text) ->
    #{error := Rec} = Ex = clean(Ex0),
    Class = maps:get(?CK, Ex),
    signal(Ex#{error => Rec#{message => text(Text), kind => signal, class => Class}}).

prepare_signal(#{?CK := Class, error := Rec} = Ex) ->
    %% Only a fresh exception (`Error new signal`, kind signal) takes its
    %% class name as message; a caught one is re-raised with its record as
    %% it is (spec §5.2), so an interop error keeps the seed's fields only.
    Rec1 = case {maps:get(kind, Rec, signal), maps:get(message, Rec, nil)} of
               {signal, M} when M =:= nil; M =:= undefined ->
                   Rec#{message => own_message_text(Ex, Class)};
               _ -> Rec
           end,
    Ex#{error => Rec1}.

%% A subclass that overrides `messageText` or `description` (Pharo's ways
%% of giving an error its text, `^'need ', self.need printString`) names the message of a
%% fresh signal, so the REPL's error block shows it; the class name when it
%% does not, or when the override fails.  The override runs with no
%% handlers around it: an error inside it is not for the caller's on:do:.
own_message_text(Ex, Class) ->
    Name = atom_to_binary(Class, utf8),
    case get('$bt_own_text') of
        true -> Name;                     % an override that signals itself
        _ -> own_message_text(Ex, Name, erase(?STACK))
    end.

own_message_text(Ex, Name, Saved) ->
    put('$bt_own_text', true),
    try
        %% Pharo's messageText falls back on description: an override of
        %% either one names the message
        case own_text(Ex, messageText) of
            Name -> own_text(Ex, description);
            T -> T
        end
    of
        T1 when is_binary(T1) -> T1;
        _ -> Name
    catch _:_ -> Name
    after
        restore(?STACK, Saved),
        erase('$bt_own_text')
    end.

own_text(Ex, Sel) ->
    beamtalk_send:send(Ex, Sel, []).

search([], Ex, _SigId) ->
    erlang:error(Ex#{'$bt_searched' => true});
search([{FId, Filter, Handler} | Outer], Ex, SigId) ->
    case matches(Ex, Filter) of
        false -> search(Outer, Ex, SigId);
        true ->
            Ctx = #{frame => FId, mode => signal, signal => SigId},
            Saved = get(?STACK),
            put(?STACK, Outer),
            put({?OUTER, FId}, Outer),
            push_active(FId),
            Outcome =
                try call_handler(Handler, with_ctx(Ex, Ctx)) of
                    V -> {return, V}
                catch
                    throw:{'$bt_ex_resume', SigId, V} -> {resume, V};
                    throw:{'$bt_ex_pass', SigId} -> pass;
                    C:R:S ->
                        case is_control(C, R) of
                            true -> {rethrow, C, R, S};
                            false -> {handler_error, C, R, S}
                        end
                after
                    restore(?STACK, Saved),
                    erase({?OUTER, FId}),
                    pop_active(FId)
                end,
            case Outcome of
                {return, V1} -> throw({'$bt_ex_return', FId, V1});
                {resume, V2} -> V2;
                pass -> search(Outer, Ex, SigId);
                {rethrow, C1, R1, S1} -> erlang:raise(C1, R1, S1);
                {handler_error, C2, R2, S2} ->
                    throw({'$bt_handler_error', FId, C2, R2, S2})
            end
    end.

%%% ---------------------------------------------------------------------
%%% The handler protocol (messages to the exception inside a handler)
%%% ---------------------------------------------------------------------

%% @doc `e retry`: run the protected block again.
retry(Ex) ->
    #{frame := F} = handler_ctx(Ex, retry),
    throw({'$bt_ex_retry', F}).

%% @doc `e return: v`: on:do: answers v.
return(Ex, V) ->
    #{frame := F} = handler_ctx(Ex, 'return:'),
    throw({'$bt_ex_return', F, V}).

%% @doc `e pass`: offer the exception to the next outer handler (unhandled
%% if there is none).  Outside a handler it re-signals.
pass(Ex) ->
    case maps:find('$bt_ctx', Ex) of
        error -> signal(Ex);
        {ok, _} ->
            case handler_ctx(Ex, pass) of
                #{mode := signal, signal := SigId} -> throw({'$bt_ex_pass', SigId});
                #{mode := unwound, raw := {C, R, S}} = Ctx ->
                    beamtalk_erlang:renote(maps:get(note, Ctx, undefined)),
                    erlang:raise(C, R, S)
            end
    end.

%% @doc `e outer` (Pharo): offer a signalled exception to the handlers
%% outside this one's on:do:, as a signal of its own made here, so an outer
%% `resume: v` makes `e outer` answer v and this handler goes on (`pass`
%% would resume at the original signal); an outer return unwinds to that
%% handler's on:do:.  An unwound (non-resumable) exception has nowhere to
%% resume, so there it is `pass`.
outer(Ex) ->
    case maps:find('$bt_ctx', Ex) of
        error -> signal(Ex);
        {ok, _} ->
            case handler_ctx(Ex, outer) of
                #{mode := signal, frame := FId} ->
                    search(stack_of(get({?OUTER, FId})), clean(Ex), make_ref());
                _ -> pass(Ex)
            end
    end.

%% @doc `e resume: v`: the signal expression answers v.
resume(Ex, V) ->
    case handler_ctx(Ex, 'resume:') of
        #{mode := signal, signal := SigId} ->
            throw({'$bt_ex_resume', SigId, V});
        #{mode := unwound} ->
            case maps:get(kind, record(Ex), undefined) of
                signal ->
                    %% signalled in an actor's method (or another process):
                    %% it crossed as a reply, with nothing left to resume
                    raise(runtime_error, maps:get(?CK, Ex), 'resume:',
                          iolist_to_binary(["Cannot resume: ", message_text(Ex),
                                            " was signalled in another process"]),
                          <<"An exception signalled in an actor's method reaches the caller's handler "
                            "after that method has ended: resume it in an on:do: inside the method, "
                            "or use retry or return: here">>);
                _ ->
                    raise(runtime_error, maps:get(?CK, Ex), 'resume:',
                          iolist_to_binary(["Cannot resume: ", message_text(Ex),
                                            " is not resumable"]),
                          <<"Only exceptions raised with signal or signal: can be resumed; "
                            "use retry or return: instead">>)
            end
    end.

handler_ctx(Ex, Sel) ->
    case maps:find('$bt_ctx', Ex) of
        {ok, #{frame := F} = Ctx} ->
            case lists:member(F, active()) of
                true -> Ctx;
                false -> not_in_handler(Ex, Sel)
            end;
        error -> not_in_handler(Ex, Sel)
    end.

not_in_handler(Ex, Sel) ->
    raise(runtime_error, maps:get(?CK, Ex, 'Exception'), Sel,
          iolist_to_binary(["Cannot send '", atom_to_binary(Sel, utf8),
                            "' to an exception outside its handler"]),
          <<"retry, return:, pass and resume: work only inside the on:do: handler "
            "that caught the exception">>).

%%% ---------------------------------------------------------------------
%%% Helpers
%%% ---------------------------------------------------------------------

%% @doc Does the exception match the on:do: filter?
matches(_Ex, nil) -> true;
matches(#{?CK := ExClass}, {beamtalk_object, Tag, beamtalk_class, _} = Cls)
  when Tag =/= 'Metaclass' ->
    class_matches(ExClass, beamtalk_class:name_of(Cls));
matches(Ex, Filters) when is_list(Filters), Filters =/= [] ->
    lists:any(fun(F) -> matches(Ex, F) end, Filters);
matches(#{?CK := ExClass}, Name) when is_atom(Name), Name =/= true, Name =/= false ->
    class_matches(ExClass, Name);
matches(_Ex, _Other) ->
    true.

class_matches(ExClass, ExClass) -> true;
class_matches(ExClass, Name) ->
    case beamtalk_class:exists(ExClass) of
        true -> beamtalk_class:inherits_from(ExClass, Name);
        false -> lists:member(Name, static_ancestors(ExClass))
    end.

%% Used only when the registry has not been booted.
static_ancestors('Exception') -> [];
static_ancestors('Error') -> ['Exception'];
static_ancestors(C) when C =:= 'RuntimeError'; C =:= 'TypeError';
                         C =:= 'InstantiationError'; C =:= 'BEAMError' ->
    ['Error', 'Exception'];
static_ancestors(C) when C =:= 'ExitError'; C =:= 'ThrowError' ->
    ['BEAMError', 'Error', 'Exception'];
static_ancestors(_) -> [].

%% @doc Private control terms (non-local return, handler outcomes).
is_control(throw, {'$bt_nlr', _, _}) -> true;
is_control(throw, {'$bt_nlr', _, _, _}) -> true;    % from an actor method: with its state
is_control(throw, {'$bt_ex_return', _, _}) -> true;
is_control(throw, {'$bt_ex_retry', _}) -> true;
is_control(throw, {'$bt_ex_resume', _, _}) -> true;
is_control(throw, {'$bt_ex_pass', _}) -> true;
is_control(throw, {'$bt_handler_error', _, _, _, _}) -> true;
is_control(_, _) -> false.

%% @doc Remove the handler context and the searched mark: what leaves the
%% process (actor replies, the REPL's `_error`) is a plain exception.
clean(#{?CK := _} = Ex) ->
    maps:without(['$bt_ctx', '$bt_searched'], Ex);
clean(Other) ->
    Other.

is_exception(#{?CK := _, error := #{kind := _}}) -> true;
is_exception(_) -> false.

record(#{error := Rec}) -> Rec;
record(_) -> #{}.

%% @doc The text an exception stands for: its message, else its hint, else
%% its class name.
message_text(#{?CK := Class} = Ex) ->
    Rec = record(Ex),
    case maps:get(message, Rec, nil) of
        M when M =/= nil, M =/= undefined -> text(M);
        _ ->
            case maps:get(hint, Rec, nil) of
                H when is_binary(H) -> H;
                _ -> atom_to_binary(Class, utf8)
            end
    end.

with_ctx(Ex, Ctx) ->
    Ex#{'$bt_ctx' => Ctx}.

call_handler(H, Ex) when is_function(H, 1) -> H(Ex);
call_handler(H, _Ex) when is_function(H, 0) -> H();
call_handler(H, Ex) -> beamtalk_block:value(H, [Ex]).

run0(F) when is_function(F, 0) -> F();
run0(F) -> beamtalk_block:value(F, []).

stack_of(undefined) -> [];
stack_of(L) -> L.

restore(Key, undefined) -> erase(Key);
restore(Key, V) -> put(Key, V).

active() ->
    case get(?ACTIVE) of
        undefined -> [];
        L -> L
    end.

push_active(Id) -> put(?ACTIVE, [Id | active()]).

pop_active(Id) ->
    case lists:delete(Id, active()) of
        [] -> erase(?ACTIVE);
        L -> put(?ACTIVE, L)
    end.

text(B) when is_binary(B) -> B;
text(V) -> safe_display(V).

safe_print(V) ->
    try beamtalk_print:print_string(V) catch _:_ -> <<"?">> end.

safe_display(V) ->
    try beamtalk_print:display_string(V) catch _:_ -> <<"?">> end.

to_bin(A) when is_atom(A) -> atom_to_binary(A, utf8);
to_bin(B) when is_binary(B) -> B;
to_bin(T) -> iolist_to_binary(io_lib:format("~tp", [T])).
