%% A new workspace's store is created after the node is ready
%% (beamtalk_store:open/1); what must wait for it before a reply, and what
%% need not.  The store process is suspended while the state says
%% `creating`, so "waits" is seen as a request sitting in its mailbox and
%% "does not wait" as an answer that came anyway: no timing is measured.
-module(beamtalk_store_tests).
-include("bt_eunit.hrl").

store_being_created_test_() ->
    {setup, fun setup/0, fun cleanup/1,
     [fun an_input_that_changed_nothing_does_not_wait/0,
      fun a_stdlib_class_note_does_not_make_it_wait/0,
      fun a_changed_binding_waits_for_the_store/0,
      fun a_noted_module_waits_for_the_store/0]}.

setup() ->
    bt_test:boot(),
    Dir = filename:join(["/tmp", "bt-store-tests-" ++ os:getpid()]),
    ok = beamtalk_store:open(Dir),
    true = beamtalk_store:on(),              % the real creation is over
    Dir.

cleanup(Dir) ->
    _ = (catch gen_server:stop(beamtalk_store)),
    _ = mnesia:stop(),
    os:cmd("rm -rf '" ++ Dir ++ "'").

%% Runs F with the store looking as it does while it is created: state
%% `creating`, its process busy (suspended).
while_creating(F) ->
    Store = whereis(beamtalk_store),
    persistent_term:put(beamtalk_store, creating),
    ok = sys:suspend(Store),
    try F(Store)
    after
        persistent_term:put(beamtalk_store, on),
        ok = sys:resume(Store),
        ets:delete_all_objects(beamtalk_store_pending)
    end.

%% evaluation_done/2 in another process; its answer comes as a message.
done_async(Change) ->
    Me = self(),
    Ref = make_ref(),
    spawn(fun() -> Me ! {Ref, beamtalk_store:evaluation_done(<<"s">>, Change)} end),
    Ref.

answer(Ref) ->
    receive {Ref, Reply} -> Reply after 10000 -> no_answer end.

%% The caller has asked the (suspended) store: its request is queued there.
asked(Store) -> asked(Store, 1000).
asked(_Store, 0) -> false;
asked(Store, N) ->
    case process_info(Store, message_queue_len) of
        {message_queue_len, L} when L > 0 -> true;
        _ -> timer:sleep(5), asked(Store, N - 1)
    end.

an_input_that_changed_nothing_does_not_wait() ->
    while_creating(fun(_Store) ->
                           ?assertEqual(ok, answer(done_async(same)))
                   end).

a_stdlib_class_note_does_not_make_it_wait() ->
    while_creating(fun(_Store) ->
                           beamtalk_store:class_changed('Object'),
                           ?assertEqual(1, ets:info(beamtalk_store_pending, size)),
                           ?assertEqual(ok, answer(done_async(same)))
                   end).

a_changed_binding_waits_for_the_store() ->
    Ref = while_creating(fun(Store) ->
                                 R = done_async({delta, #{x => 1}, []}),
                                 ?assert(asked(Store)),
                                 R
                         end),
    ?assertEqual(ok, answer(Ref)).

a_noted_module_waits_for_the_store() ->
    Ref = while_creating(fun(Store) ->
                                 beamtalk_store:module_loaded('bt@repl@e7', <<"not a beam">>),
                                 R = done_async(same),
                                 ?assert(asked(Store)),
                                 R
                         end),
    ?assertMatch(ok, answer(Ref)).
