%% @doc The workspace's durable state (DESIGN D12, issue 14): Mnesia with
%% disc copies in `<workspace dir>/store`.
%%
%% Why Mnesia and not DETS: one evaluation changes several things at once
%% (the session's bindings, the input module its closures need, the classes
%% it defined, Workspace globals).  A Mnesia transaction writes them as one
%% record in its transaction log, so a node killed at any moment comes back
%% with all of an evaluation or none of it.  DETS has no multi-table
%% transactions and a DETS file that was open when the node died has to be
%% repaired (a scan that drops what was not flushed), with no guarantee
%% that what survives is a consistent cut.  Mnesia needs a stable node name,
%% which a workspace has (`beamtalk_<id>@localhost`).
%%
%% When things are written: the workspace server calls evaluation_done/2
%% before it sends a reply, so a reply the user saw is on disk (the log is
%% synced after each commit).  Changes made outside an evaluation (a watched
%% file reloaded, `beamtalk:load/1`) are committed a moment after they
%% happen.  Hooks elsewhere only note what changed (module_loaded/2,
%% class_changed/1, watches_changed/1); this process decides what to write.
%%
%% Tables (all `{Key, Value}` records): bt_meta (schema version, writer),
%% bt_binding ({Session, Name}), bt_class (Name => {Seq, Entry, ClassVars}),
%% bt_module (Module => beam binary: the input and class modules closures
%% refer to), bt_global (Workspace bind:as:), bt_watch (Path), bt_change
%% (pending source changes, beamtalk_changes), bt_actor (Pid => the last
%% state of a revivable actor, beamtalk_revive; a store written before
%% bt_actor existed gets the table when it is opened).
-module(beamtalk_store).
-behaviour(gen_server).

-export([open/1, state/0, on/0, status/0, evaluation_done/2, session_cleared/1,
         module_loaded/2, class_changed/1, watches_changed/1,
         read_all/1, put_change/2, delete_change/1, changes/0, seed/2,
         actor_changed/2, revived/2]).

-export([init/1, handle_continue/2, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(SERVER, ?MODULE).
-define(VERSION, 1).
-define(PENDING, beamtalk_store_pending).   % {module, Mod} => Bin | {class, Name}
-define(TABLES, [bt_meta, bt_binding, bt_class, bt_module, bt_global, bt_watch, bt_change,
                 bt_actor]).
-define(POKE_MS, 100).

-record(st, {dir, last = #{} :: #{binary() => map()}, globals = #{} :: map(),
             seq = 0, poke = undefined,
             actors = #{} :: #{pid() => true}}).   % the pids with a bt_actor row

%%% API

%% @doc Open (or create) the store in Dir/store and start the store
%% process.  Answers `ok`, or `{off, Text}` when the store cannot be used
%% (written by another version, unreadable): the workspace then runs
%% without durability and says why.
%%
%% A new store (a workspace's first start) has nothing to restore, so it
%% is created by the store process after the node is ready instead of
%% before: creating Mnesia's schema and tables was about a quarter of a
%% workspace's start.  Until it is done the state is `creating`, and
%% whatever needs the store (on/0) waits for it.
open(Dir) ->
    StoreDir = filename:join(Dir, "store"),
    case filelib:is_file(filename:join(StoreDir, "schema.DAT")) of
        false ->
            persistent_term:put(?MODULE, creating),
            {ok, _} = gen_server:start({local, ?SERVER}, ?MODULE, {create, StoreDir}, []),
            ok;
        true ->
            Result = opened(StoreDir),
            persistent_term:put(?MODULE, case Result of ok -> on; {off, T} -> {off, T} end),
            {ok, _} = gen_server:start({local, ?SERVER}, ?MODULE, StoreDir, []),
            Result
    end.

opened(StoreDir) ->
    try do_open(StoreDir)
    catch C:R -> {off, iolist_to_binary(io_lib:format(
                         "The workspace store ~ts cannot be opened (~tp:~tp); "
                         "this workspace runs without durable state. "
                         "`beamtalk workspace reset` starts a new store.",
                         [StoreDir, C, R]))}
    end.

%% @doc `on`, `creating` (a new store, see open/1) or `{off, Why}`.
state() -> persistent_term:get(?MODULE, {off, <<"not opened">>}).

%% @doc Whether the store is used; waits while a new store is created.
on() ->
    case state() of
        on -> true;
        creating ->
            _ = (catch gen_server:call(?SERVER, wait, infinity)),
            state() =:= on;
        _ -> false
    end.

%% @doc What `beamtalk workspace status` shows: the state and the size on disk.
status() ->
    Dir = gen_server:call(?SERVER, dir),
    Size = filelib:fold_files(Dir, ".*", true, fun(F, Acc) -> Acc + filelib:file_size(F) end, 0),
    #{state => case on() of true -> on; false -> element(2, state()) end,
      bytes => Size, dir => unicode:characters_to_binary(Dir),
      pending_changes => length([K || {K, _} <- changes(), is_integer(K)])}.

%% @doc Called by the workspace server before each reply: commit the
%% session's bindings with whatever changed during the evaluation.
%% Bindings is the change since the server's last call for the session
%% (beamtalk_bindings_delta:delta(), so unchanged values are not copied to
%% this process again) or the whole map.
evaluation_done(Session, Bindings) ->
    case not nothing_to_commit(Bindings) andalso on() of
        true ->
            %% A store that fails must never take the workspace server with it.
            try gen_server:call(?SERVER, {commit, Session, Bindings}, infinity)
            catch C:R ->
                    logger:warning("beamtalk store: not written (~tp:~tp)", [C, R]),
                    {error, R}
            end;
        false -> ok
    end.

%% While a new store is created (open/1), an input that changed no
%% binding, noted nothing and set no global has nothing to make
%% durable: its reply need not wait for Mnesia (a new workspace's first
%% `3 + 4`).  Everything else waits, so "durable before the reply" holds.
nothing_to_commit(same) ->
    state() =:= creating andalso ets:info(?PENDING, size) =:= 0
        andalso map_size(user_globals()) =:= 0;
nothing_to_commit(_) -> false.

session_cleared(Session) -> evaluation_done(Session, #{}).

%% @doc A module was loaded whose funs may outlive the evaluation (an input
%% that makes closures, a class module): keep its binary for a restart.
module_loaded(Mod, Bin) ->
    case scratch(atom_to_binary(Mod, utf8)) of
        true -> ok;      % a session's scratch module: it makes no funs
        false -> note({module, Mod}, Bin)
    end.

scratch(<<"bt@repl@e", Digits/binary>>) ->
    not (Digits =/= <<>> andalso lists:all(fun(C) -> C >= $0 andalso C =< $9 end,
                                           binary_to_list(Digits)));
scratch(<<"bt@repl@", _/binary>>) -> true;
scratch(_) -> false.

%% @doc A class was (re)defined, changed or removed.  A stdlib class is
%% never stored (class_op/2), so its changes are not noted: the boot's
%% DeadObject used to leave a note that made a new workspace's first
%% reply wait for its store.
class_changed(Name) when is_atom(Name) ->
    case beamtalk_class:entry(Name) of
        #{stdlib := true} -> ok;
        #{protected := true} -> ok;
        _ -> note({class, Name}, true)
    end;
class_changed(_) -> ok.

%% @doc The watched roots changed (beamtalk_watch).
watches_changed(Roots) ->
    note(watches, Roots).

note(Key, Value) ->
    %% only noted here, so no need to wait for a store being created: the
    %% store process commits it once the store is there
    case state() of
        {off, _} -> ok;
        _ ->
            ets:insert(?PENDING, {Key, Value}),
            gen_server:cast(?SERVER, poke)
    end,
    ok.

%% @doc A revivable actor's state changed (beamtalk_revive, called in the
%% actor): the next commit writes it.  A commit happens before the reply of
%% an evaluation that sent to the actor, or a moment after a change made
%% outside one (a cast, a timer).
actor_changed(Pid, State) -> note({actor, Pid}, State).

%% @doc After the revival at boot (beamtalk_restore): in one transaction,
%% every stored binding, global and class variable is rewritten with Fun
%% (the old pids of revived actors become the new ones, other dead values
%% placeholders) and the bt_actor rows are replaced by Actors
%% ([{NewPid, State}]).  Before it the store holds the previous run's cut,
%% after it this run's: a kill at any moment revives the same actors.
revived(Fun, Actors) ->
    case on() of
        true -> gen_server:call(?SERVER, {revived, Fun, Actors}, infinity);
        false -> ok
    end.

%% @doc Everything stored, for beamtalk_restore: #{Table => [{Key, Value}]}.
read_all(_Opts) ->
    %% a store still being created is empty: no need to wait for it
    case state() =:= on of
        false -> #{};
        true -> maps:from_list([{T, [{K, V} || {_, K, V} <- ets:tab2list(T)]} || T <- ?TABLES])
    end.

%% @doc Tell the store what a restored session holds (no write needed).
seed(Session, Bindings) -> gen_server:call(?SERVER, {seed, Session, Bindings}).

%% Pending source changes (beamtalk_changes) are durable too.
put_change(Id, Change) -> write_one(bt_change, Id, Change).
delete_change(Id) -> write_one(bt_change, Id, '$delete').
changes() ->
    case on() of
        true -> lists:sort([{K, V} || {_, K, V} <- ets:tab2list(bt_change)]);
        false -> []
    end.

write_one(Tab, Key, Value) ->
    case on() of
        true -> gen_server:call(?SERVER, {write_one, Tab, Key, Value}, infinity);
        false -> ok
    end.

%%% Opening

do_open(StoreDir) ->
    ok = filelib:ensure_dir(filename:join(StoreDir, "x")),
    %% Private whatever the umask (bindings may hold secrets): Mnesia's files
    %% inherit nothing from a directory others could read.
    ok = file:change_mode(StoreDir, 8#700),
    application:load(mnesia),
    ok = application:set_env(mnesia, dir, StoreDir),
    %% A Mnesia core dump (written when Mnesia stops on a fatal error) holds
    %% table contents, bindings among them: in the private store directory,
    %% not in the node's current directory (the user's project).
    ok = application:set_env(mnesia, core_dir, unicode:characters_to_list(StoreDir)),
    %% Keep the log small so a restart replays little.
    application:set_env(mnesia, dump_log_write_threshold, 5000),
    Fresh = not filelib:is_file(filename:join(StoreDir, "schema.DAT")),
    Fresh andalso (ok = schema_created()),
    ok = mnesia:start(),
    Opened = opened(Fresh, StoreDir),
    %% Mnesia's files follow the node's umask: made 0600 now, and new ones
    %% on every housekeeping tick (beamtalk_file_modes)
    beamtalk_file_modes:private_tree(StoreDir),
    Opened.

opened(Fresh, StoreDir) ->
    case Fresh orelse not lists:member(bt_meta, mnesia:system_info(tables)) of
        true ->
            %% new, or a creation that was cut short (a node killed while
            %% it created the store, before its tables existed: nothing can
            %% have been written to it)
            finish_creating();
        false ->
            case mnesia:wait_for_tables([bt_meta], 30000) of
                ok -> check_version(StoreDir);
                Other -> {off, iolist_to_binary(io_lib:format(
                                "The workspace store ~ts could not be loaded (~tp). "
                                "`beamtalk workspace reset` starts a new store.", [StoreDir, Other]))}
            end
    end.

%% create_schema/1 writes a fallback that the first mnesia:start/0 turns
%% into schema.DAT; a node killed in between left the fallback, which the
%% start below installs.
schema_created() ->
    case mnesia:create_schema([node()]) of
        ok -> ok;
        {error, {_, {already_exists, _}}} -> ok
    end.

%% The tables (those not there yet) and the format row.  The row is written
%% last: a store without it was cut short while it was created.
finish_creating() ->
    ok = add_missing_tables(),
    ok = mnesia:wait_for_tables(?TABLES, 60000),
    {atomic, ok} = mnesia:transaction(fun() ->
                                              mnesia:write({bt_meta, schema_version, ?VERSION}),
                                              mnesia:write({bt_meta, created, erlang:system_time(second)})
                                      end),
    ok.

%% A table this version added (bt_actor) to a store of the same format that
%% an earlier build wrote: created empty, nothing else changes.
add_missing_tables() ->
    Have = mnesia:system_info(tables),
    [{atomic, ok} = mnesia:create_table(T, [{disc_copies, [node()]}, {attributes, [key, value]}])
     || T <- ?TABLES, not lists:member(T, Have)],
    ok.

check_version(StoreDir) ->
    Version = case mnesia:dirty_read(bt_meta, schema_version) of
                  [{_, _, V}] -> V;
                  _ -> unknown
              end,
    case Version of
        ?VERSION ->
            add_missing_tables(),
            ok = mnesia:wait_for_tables(?TABLES, 60000),
            ok;
        unknown ->
            %% the format row is written last (finish_creating/0): without
            %% it the creation was cut short, and nothing was written yet
            finish_creating();
        _ ->
            mnesia:stop(),
            {off, iolist_to_binary(io_lib:format(
                    "The workspace store ~ts was written by another version of beamtalk_ws "
                    "(store format ~tp; this version reads format ~b). Its data were not read "
                    "and are left as they are; this workspace runs without durable state. Use the beamtalk "
                    "that wrote it, or `beamtalk workspace reset` to start a new store.",
                    [StoreDir, Version, ?VERSION]))}
    end.

%%% gen_server

init({create, StoreDir}) ->
    {ok, St} = init(StoreDir),
    {ok, St, {continue, create}};
init(StoreDir) ->
    ets:new(?PENDING, [named_table, public, set]),
    {ok, #st{dir = StoreDir, globals = user_globals()}}.

%% A new store (open/1): requests that came meanwhile wait in the mailbox.
handle_continue(create, #st{dir = StoreDir} = St) ->
    case opened(StoreDir) of
        ok -> persistent_term:put(?MODULE, on);
        {off, Why} ->
            logger:warning("beamtalk store: ~ts", [Why]),
            persistent_term:put(?MODULE, {off, Why})
    end,
    {noreply, St}.

handle_call(wait, _From, St) ->
    {reply, ok, St};
handle_call(dir, _From, St) ->
    {reply, St#st.dir, St};
handle_call({seed, Session, Bindings}, _From, St) ->
    {reply, ok, St#st{last = maps:put(Session, Bindings, St#st.last)}};
handle_call({commit, Session, Bindings}, _From, St) ->
    {Reply, St1} = commit(Session, Bindings, St),
    {reply, Reply, St1};
handle_call({revived, Fun, Actors}, _From, St) ->
    {Reply, St1} = rewrite(Fun, Actors, St),
    {reply, Reply, St1};
handle_call({write_one, Tab, Key, Value}, _From, St) ->
    Reply = transaction(fun() ->
                                case Value of
                                    '$delete' -> mnesia:delete({Tab, Key});
                                    _ -> mnesia:write({Tab, Key, Value})
                                end
                        end),
    {reply, Reply, St};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast(poke, #st{poke = undefined} = St) ->
    {noreply, St#st{poke = erlang:send_after(?POKE_MS, self(), commit_pending)}};
handle_cast(_Msg, St) ->
    {noreply, St}.

handle_info(commit_pending, St) ->
    case state() of
        on ->
            {_, St1} = commit(none, none, St#st{poke = undefined}),
            {noreply, St1};
        _ ->                        % a store that could not be created
            {noreply, St#st{poke = undefined}}
    end;
handle_info(_Msg, St) ->
    {noreply, St}.

terminate(_Reason, _St) -> ok.
code_change(_Old, St, _Extra) -> {ok, St}.

%%% Committing

%% One transaction: the session's changed bindings, the modules and classes
%% noted since the last commit, the Workspace globals if they changed.
commit(Session, Change, St) ->
    Pending = ets:tab2list(?PENDING),
    Globals = user_globals(),
    Old = case Session of
              none -> none;
              _ -> maps:get(Session, St#st.last, #{})
          end,
    %% the workspace server hands over what changed since its last commit
    %% (beamtalk_bindings_delta), or a whole map (a cleared session)
    Bindings = case Change of
                   _ when Old =:= none -> none;
                   _ when is_map(Change) -> Change;
                   _ -> beamtalk_bindings_delta:patch(Old, Change)
               end,
    BindingOps = binding_ops(Session, Old, Bindings),
    GlobalOps = case Globals =:= St#st.globals of
                    true -> [];
                    false -> diff_ops(bt_global, St#st.globals, Globals)
                end,
    {PendingOps, Seq} = pending_ops(Pending, St#st.seq),
    {ActorOps, Actors} = actor_ops(Pending, St#st.actors),
    case BindingOps ++ GlobalOps ++ PendingOps ++ ActorOps of
        [] -> {ok, St#st{actors = Actors}};
        Ops ->
            Reply = transaction(fun() -> lists:foreach(fun apply_op/1, Ops) end),
            [ets:delete_object(?PENDING, P) || P <- Pending],
            Last = case Session of
                       none -> St#st.last;
                       _ -> maps:put(Session, Bindings, St#st.last)
                   end,
            {Reply, St#st{last = Last, globals = Globals, seq = Seq, actors = Actors}}
    end.

%% The revivable actors' states noted since the last commit, and the rows
%% of those that died (stopped, killed, crashed) deleted: a stopped actor is
%% not revived.  While the node shuts down (`workspace stop`) every actor
%% dies with it and its row stays: that is what the next start revives.
actor_ops(Pending, Known) ->
    Written = [{P, S} || {{actor, P}, S} <- Pending],
    All = lists:foldl(fun({P, _}, M) -> M#{P => true} end, Known, Written),
    case init:get_status() of
        {stopping, _} -> {[{write, bt_actor, P, S} || {P, S} <- Written], All};
        _ ->
            Dead = [P || P <- maps:keys(All), not is_process_alive(P)],
            Writes = [{write, bt_actor, P, S} || {P, S} <- Written, not lists:member(P, Dead)],
            Deletes = [{delete, bt_actor, P} || P <- Dead, maps:is_key(P, Known)],
            {Writes ++ Deletes, maps:without(Dead, All)}
    end.

%% The one transaction of beamtalk_store:revived/2.
rewrite(Fun, Actors, St) ->
    Rows = fun(Tab) -> [{K, V} || {_, K, V} <- ets:tab2list(Tab)] end,
    Changed = fun(T, Rs, Wrap) ->
                      lists:append([case Fun(V) of
                                        V -> [];
                                        V1 -> [{write, T, K, Wrap(V1, Extra)}]
                                    end || {K, V, Extra} <- Rs])
              end,
    Values = lists:append([Changed(T, [{K, V, none} || {K, V} <- Rows(T)], fun(V1, _) -> V1 end)
                           || T <- [bt_binding, bt_global]]),
    ClassVars = Changed(bt_class, [{K, V, {Seq, E}} || {K, {Seq, E, V}} <- Rows(bt_class), is_map(V)],
                        fun(V1, {Seq, E}) -> {Seq, E, V1} end),
    Old = [{delete, bt_actor, P} || {P, _} <- Rows(bt_actor)],
    New = [{write, bt_actor, P, S} || {P, S} <- Actors],
    Reply = case Values ++ ClassVars ++ Old ++ New of
                [] -> ok;
                Ops -> transaction(fun() -> lists:foreach(fun apply_op/1, Ops) end)
            end,
    {Reply, St#st{actors = maps:from_list([{P, true} || {P, _} <- Actors])}}.

transaction(F) ->
    case mnesia:transaction(F) of
        {atomic, _} ->
            %% The commit is in the log; make sure it left this process's
            %% buffers (a kill -9 must not lose a reply the user saw).
            mnesia:sync_log(),
            ok;
        {aborted, Why} ->
            logger:warning("beamtalk store: a commit failed: ~tp", [Why]),
            {error, Why}
    end.

apply_op({write, Tab, K, V}) -> mnesia:write({Tab, K, V});
apply_op({delete, Tab, K}) -> mnesia:delete({Tab, K}).

binding_ops(none, _, _) -> [];
binding_ops(_, Same, Same) -> [];
binding_ops(Session, Old, New) ->
    [{write, bt_binding, {Session, K}, V} || {K, V} <- maps:to_list(New),
                                             maps:get(K, Old, '$bt_none') =/= V]
        ++ [{delete, bt_binding, {Session, K}} || K <- maps:keys(Old), not maps:is_key(K, New)].

diff_ops(Tab, Old, New) ->
    [{write, Tab, K, V} || {K, V} <- maps:to_list(New), maps:get(K, Old, '$bt_none') =/= V]
        ++ [{delete, Tab, K} || K <- maps:keys(Old), not maps:is_key(K, New)].

pending_ops(Pending, Seq0) ->
    lists:foldl(fun({{module, Mod}, Bin}, {Acc, Seq}) ->
                        {[{write, bt_module, Mod, Bin} | Acc], Seq};
                   ({{class, Name}, _}, {Acc, Seq}) ->
                        {[class_op(Name, erlang:system_time(microsecond)) | Acc], Seq};
                   ({{actor, _}, _}, Acc) ->
                        Acc;             % actor_ops
                   ({watches, Roots}, {Acc, Seq}) ->
                        Old = [K || {_, K, _} <- ets:tab2list(bt_watch)],
                        {[{delete, bt_watch, R} || R <- Old, not lists:member(R, Roots)]
                         ++ [{write, bt_watch, R, true} || R <- Roots] ++ Acc, Seq}
                end, {[], Seq0}, Pending).

%% A user class is stored with its description (its funs need the modules
%% kept in bt_module) and its class variables; stdlib classes never are.
class_op(Name, Seq) ->
    case beamtalk_class:entry(Name) of
        #{stdlib := true} -> {delete, bt_class, Name};
        #{protected := true} -> {delete, bt_class, Name};
        #{pid := Pid} = E ->
            Vars = try gen_server:call(Pid, class_vars) catch _:_ -> #{} end,
            {write, bt_class, Name, {Seq, maps:without([pid, protected], E), Vars}};
        _ -> {delete, bt_class, Name}
    end.

user_globals() ->
    Sys = beamtalk_singletons:names(),
    maps:filter(fun(K, _) -> not lists:member(K, Sys) end, beamtalk_class:globals()).
