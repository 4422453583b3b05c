%% @doc Primitive methods of Exception and its subclasses (stdlib §6 plus
%% the handler protocol this project adds; see beamtalk_exception).
-module(beamtalk_prim_exception).

-export(['messageText'/1, 'message'/1, 'description'/1, 'kind'/1, 'hint'/1,
         'selector'/1, 'errorClass'/1, 'details'/1, 'printString'/1,
         'displayString'/1, 'signal'/1, 'signal:'/2, 'retry'/1, 'return:'/2,
         'return'/1, 'pass'/1, 'outer'/1, 'resume'/1, 'resume:'/2,
         'messageText:'/2, 'stackTrace'/1, 'isResumable'/1,
         'class new'/1, 'class signal'/1, 'class signal:'/2]).

rec(Ex) -> beamtalk_exception:record(Ex).
nil_if_undefined(undefined) -> nil;
nil_if_undefined(V) -> V.

'messageText'(Ex) -> beamtalk_exception:message_text(Ex).
'message'(Ex) ->
    case maps:get(message, rec(Ex), nil) of
        M when M =:= nil; M =:= undefined -> beamtalk_exception:message_text(Ex);
        M -> M
    end.
'description'(Ex) -> beamtalk_exception:message_text(Ex).
'kind'(Ex) -> nil_if_undefined(maps:get(kind, rec(Ex), nil)).
'hint'(Ex) -> nil_if_undefined(maps:get(hint, rec(Ex), nil)).
'selector'(Ex) -> nil_if_undefined(maps:get(selector, rec(Ex), nil)).
'errorClass'(Ex) -> nil_if_undefined(maps:get(class, rec(Ex), nil)).
'details'(Ex) -> maps:get(details, rec(Ex), #{}).
'printString'(Ex) -> beamtalk_print:base_print_string(Ex).
'displayString'(Ex) -> beamtalk_print:base_print_string(Ex).
%% The frames of the workspace's own machinery that runs an input (below
%% the input's frame: nothing of the user's is there) are left out.
'stackTrace'(Ex) ->
    [beamtalk_prim_stack_frame:frame(F) || {M, _, _, _} = F <- maps:get(stacktrace, Ex, []),
                                           M =/= beamtalk_eval_jobs, M =/= beamtalk_evaluator].
'isResumable'(Ex) ->
    case maps:find('$bt_ctx', Ex) of
        {ok, #{mode := signal}} -> true;
        _ -> false
    end.

'signal'(Ex) -> beamtalk_exception:signal(Ex).
'signal:'(Ex, Text) -> beamtalk_exception:signal(Ex, Text).
'retry'(Ex) -> beamtalk_exception:retry(Ex).
'return:'(Ex, V) -> beamtalk_exception:return(Ex, V).
'return'(Ex) -> beamtalk_exception:return(Ex, nil).
'pass'(Ex) -> beamtalk_exception:pass(Ex).
'outer'(Ex) -> beamtalk_exception:outer(Ex).
'resume'(Ex) -> beamtalk_exception:resume(Ex, nil).
'resume:'(Ex, V) -> beamtalk_exception:resume(Ex, V).

%% @doc A copy with a new message (exceptions are values).
'messageText:'(#{error := Rec} = Ex, Text) ->
    Ex#{error => Rec#{message => Text}}.

%% @doc `MyError new`: a fresh exception with the class's field defaults.
'class new'(Cls) ->
    Name = beamtalk_class:name_of(Cls),
    Fresh = beamtalk_exception:fresh(Name),
    maps:merge(beamtalk_object:instantiate(Name), Fresh).

'class signal'(Cls) -> beamtalk_send:send(beamtalk_send:send(Cls, new, []), signal, []).
'class signal:'(Cls, Text) -> beamtalk_send:send(beamtalk_send:send(Cls, new, []), 'signal:', [Text]).
