%% A new workspace's store is created after the node is ready
%% (beamtalk_store:open/1); what must wait for it before a reply, and what
%% need not; and a store whose creation a kill cut short is finished on the
%% next start instead of waited for.  The store process is suspended while the state says
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
                           ?assertEqual(0, ets:info(beamtalk_store_pending, size)),
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

%% A node killed while it created its store leaves Mnesia's schema with no
%% tables, or the tables without the format row (written last).  The next
%% start finishes the store; it used to wait 30 s for a table that would
%% never come and then start without durable state.
creation_cut_short_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun a_schema_not_yet_installed_is_finished/0,
      fun schema_without_tables_is_finished/0,
      fun tables_without_the_format_row_are_finished/0]}.

%% killed between mnesia:create_schema/1 (which writes a fallback) and the
%% first mnesia:start/0 (which installs it as schema.DAT)
a_schema_not_yet_installed_is_finished() ->
    {Dir, StoreDir} = schema_written("fallback"),
    ?assertNot(filelib:is_file(filename:join(StoreDir, "schema.DAT"))),
    opens_and_keeps(Dir).

schema_without_tables_is_finished() ->
    {Dir, StoreDir} = schema_written("schema"),
    ok = mnesia:start(),
    stopped = mnesia:stop(),
    ?assert(filelib:is_file(filename:join(StoreDir, "schema.DAT"))),
    opens_and_keeps(Dir).

tables_without_the_format_row_are_finished() ->
    {Dir, _StoreDir} = schema_written("tables"),
    ok = mnesia:start(),
    {atomic, ok} = mnesia:create_table(bt_meta, [{disc_copies, [node()]}, {attributes, [key, value]}]),
    {atomic, ok} = mnesia:create_table(bt_binding, [{disc_copies, [node()]}, {attributes, [key, value]}]),
    stopped = mnesia:stop(),
    opens_and_keeps(Dir).

%% A store directory with Mnesia's schema as create_schema/1 leaves it (a
%% fallback, installed by the first start).
schema_written(What) ->
    Dir = cut_short_dir(What),
    StoreDir = filename:join(Dir, "store"),
    ok = filelib:ensure_dir(filename:join(StoreDir, "x")),
    application:load(mnesia),
    ok = application:set_env(mnesia, dir, StoreDir),
    ok = mnesia:create_schema([node()]),
    {Dir, StoreDir}.

cut_short_dir(What) ->
    _ = (catch gen_server:stop(beamtalk_store)),
    _ = mnesia:stop(),
    Dir = filename:join(["/tmp", "bt-store-cut-" ++ What ++ "-" ++ os:getpid()]),
    os:cmd("rm -rf '" ++ Dir ++ "'"),
    Dir.

%% The store opens (no 30 s wait: eunit's 5 s limit would cancel the
%% test), is on, and keeps a binding.
opens_and_keeps(Dir) ->
    try
        ?assertEqual(ok, beamtalk_store:open(Dir)),
        ?assert(beamtalk_store:on()),
        ?assertEqual(ok, beamtalk_store:evaluation_done(<<"s">>, #{x => 42})),
        #{bt_binding := Rows} = beamtalk_store:read_all(#{}),
        ?assertEqual([{{<<"s">>, x}, 42}], [R || {{<<"s">>, _}, _} = R <- Rows])
    after
        _ = (catch gen_server:stop(beamtalk_store)),
        _ = mnesia:stop(),
        os:cmd("rm -rf '" ++ Dir ++ "'")
    end.
