%% @doc Beamtalk inside a node it did not start (`beamtalk repl --node`).
%%
%% Python loads the runtime and the stdlib into the target node over
%% distribution (`code:atomic_load/1` of binaries: nothing is written to the
%% target's disk) and then calls `start/1`.  Everything Beamtalk runs there
%% hangs off one supervisor of its own, `beamtalk_attach_sup`, started
%% unlinked and outside the node's application tree, so no application of
%% the node is a parent, a child or a sibling of Beamtalk:
%%
%%   beamtalk_attach_sup (rest_for_one)
%%   +- beamtalk_runtime_sup   classes, actors, Transcript (beamtalk_bootstrap)
%%   +- beamtalk_cluster       class modules to the connected nodes
%%   +- beamtalk_workspace     sessions and bindings, the one door (D3)
%%
%% Every name registered is `beamtalk_*`.  Detaching is closing the
%% connection: nothing of the node changes.  `unload/0` stops the tree,
%% kills what still runs Beamtalk code, erases Beamtalk's persistent terms
%% and its logger filter, and deletes its modules; the caller (a process not
%% running Beamtalk code) then purges them (see beamtalk_ws/workspace/remote.py).
%% Atoms cannot be removed from a BEAM node; they stay.
-module(beamtalk_attach).
-behaviour(supervisor).

-export([install/2, start/1, info/0, unload/0, owned_modules/0]).
-export([init/1, start_runtime/1, start_workspace/1]).

-define(SUP, beamtalk_attach_sup).
-define(INFO, {?MODULE, info}).
-define(LOG_FILTER, beamtalk_actor_exits).

%% @doc Load the runtime and stdlib binaries (`[{Module, File, Binary}]`,
%% this module loaded already) and start Beamtalk.  The binaries are kept, so
%% this node can hand the same runtime on to the nodes of its cluster
%% (beamtalk_cluster), which cannot read it from a file here.
install(Code, Opts) ->
    Load = [C || {M, _, _} = C <- Code, M =/= ?MODULE],
    %% Old code of these modules (left by an earlier Beamtalk's unload, which
    %% did not remove `beamtalk`) makes atomic_load answer not_purged: purge it
    %% when no process runs it.
    [code:soft_purge(M) || {M, _, _} <- Load],
    case code:atomic_load(Load) of
        ok ->
            persistent_term:put({?MODULE, code}, maps:from_list([{M, {F, B}} || {M, F, B} <- Code])),
            start(Opts);
        {error, What} ->
            {error, iolist_to_binary(["the runtime did not load: ", load_errors(What)])}
    end.

load_errors(What) ->
    lists:join("; ", [io_lib:format("module ~ts: ~ts", [M, load_error(R)]) || {M, R} <- What]).

load_error(not_purged) -> "a process of the node still runs its old code";
load_error(on_load_not_allowed) -> "it has an on_load function";
load_error(sticky_directory) -> "it is a sticky system module";
load_error(R) -> io_lib:format("~tp", [R]).

%% @doc Start Beamtalk on this node (Opts: version, stdlib modules, workspace
%% options).  Answers `{ok, Info}`; a second call answers the running one's Info.
start(#{version := Version} = Opts) ->
    case whereis(?SUP) of
        undefined ->
            case supervisor:start_link({local, ?SUP}, ?MODULE, Opts) of
                {ok, Pid} ->
                    unlink(Pid),
                    persistent_term:put(?INFO, #{version => Version,
                                                 started => erlang:system_time(second)}),
                    [persistent_term:put({beamtalk_cluster, home}, H) || H <- [maps:get(home, Opts, none)],
                                                                       H =/= none],
                    {ok, info()};
                {error, Reason} ->
                    {error, iolist_to_binary(io_lib:format("~tp", [Reason]))}
            end;
        _ ->
            {ok, info()}
    end.

%% @doc What is running here: `none`, or a map with `version`, `started`,
%% `workspace` (whether the workspace server runs) and `classes`.
info() ->
    case persistent_term:get(?INFO, none) of
        none -> none;
        Info ->
            Info#{running => whereis(?SUP) =/= undefined,
                  workspace => whereis(beamtalk_workspace) =/= undefined,
                  classes => length(user_classes())}
    end.

%%% Supervision

init(Opts) ->
    Runtime = #{id => beamtalk_runtime_sup,
                start => {?MODULE, start_runtime, [maps:get(stdlib, Opts, [])]},
                restart => permanent, shutdown => infinity, type => supervisor},
    %% `workspace => false`: a node of a cluster, served by the workspace
    %% node's beamtalk_cluster; it runs classes and actors only.
    Children = case maps:get(workspace, Opts, #{}) of
                   false -> [Runtime];
                   Ws -> [Runtime,
                          #{id => beamtalk_cluster, start => {beamtalk_cluster, start_link, []},
                            restart => permanent, shutdown => 5000, type => worker},
                          #{id => beamtalk_workspace, start => {?MODULE, start_workspace, [Ws]},
                            restart => permanent, shutdown => 5000, type => worker}]
               end,
    {ok, {#{strategy => rest_for_one, intensity => 5, period => 10}, Children}}.

%% The runtime supervisor of beamtalk_bootstrap, as our child; then the
%% bootstrap classes and the compiled stdlib (already loaded) are registered.
start_runtime(StdlibModules) ->
    _ = logger:add_primary_filter(?LOG_FILTER,
                                  {fun beamtalk_bootstrap:drop_actor_exit_reports/2, []}),
    case supervisor:start_link({local, beamtalk_runtime_sup}, beamtalk_bootstrap, top) of
        {ok, Pid} ->
            ok = beamtalk_bootstrap:boot(),
            case StdlibModules of
                [] -> ok;
                _ -> ok = beamtalk_stdlib:load_modules(StdlibModules)
            end,
            {ok, Pid};
        Other ->
            Other
    end.

%% Never idles out: the node is not ours to stop.
start_workspace(Opts) ->
    beamtalk_workspace:start_link(Opts#{idle_ms => infinity}).

%%% Unloading

%% @doc Remove what Beamtalk added to this node.  Answers `{ok, Modules}`:
%% the modules, deleted (now old code) for the caller to purge.
unload() ->
    Mods = owned_modules(),
    Classes = class_keys(),
    stop(whereis(?SUP)),
    stop(whereis(beamtalk_runtime_sup)),
    stop(whereis(beamtalk_workspace)),
    stop(whereis(beamtalk_cluster)),
    kill_owned_processes(Mods),
    _ = logger:remove_primary_filter(?LOG_FILTER),
    beamtalk_crash_notes:uninstall(),
    [persistent_term:erase(K) || {K, _} <- persistent_term:get(), owned_key(K, Classes)],
    [begin _ = code:soft_purge(M), code:delete(M) end || M <- Mods],
    {ok, Mods}.

%% An orderly stop (children first, as OTP shuts a tree down); a process
%% that does not stop within 15 s is killed.
stop(undefined) -> ok;
stop(Pid) ->
    try gen_server:stop(Pid, shutdown, 15000)
    catch exit:_ -> exit(Pid, kill)
    end,
    ok.

%% @doc The loaded modules that are Beamtalk's: the runtime (`beamtalk_*`,
%% and `beamtalk`, the Erlang API `beamtalk:eval/1`) and everything compiled
%% from Beamtalk (`bt@*`: stdlib, classes, inputs).
owned_modules() ->
    [M || {M, _} <- code:all_loaded(), owned_name(M)].

owned_name(beamtalk) -> true;
owned_name(A) when is_atom(A) ->
    case atom_to_binary(A, utf8) of
        <<"beamtalk_", _/binary>> -> true;
        <<"bt@", _/binary>> -> true;
        _ -> false
    end;
owned_name(_) -> false.

%% Class names and their class tags are persistent_term keys (beamtalk_class).
class_keys() ->
    Names = try [N || {N, _} <- ets:tab2list(beamtalk_class_registry), is_atom(N)]
            catch error:badarg -> []
            end,
    Tags = [binary_to_atom(<<(atom_to_binary(N, utf8))/binary, " class">>, utf8) || N <- Names],
    sets:from_list(Names ++ Tags).

owned_key(K, Classes) when is_atom(K) -> owned_name(K) orelse sets:is_element(K, Classes);
owned_key(K, _) when is_tuple(K), tuple_size(K) > 0 -> owned_name(element(1, K));
owned_key(_, _) -> false.

user_classes() ->
    try [N || {N, #{protected := false}} <- ets:tab2list(beamtalk_class_registry)]
    catch error:badarg -> []
    end.

%% Processes still running Beamtalk code (evaluators, session io servers,
%% processes an input spawned) once the supervision tree is gone.
kill_owned_processes(Mods) ->
    Set = sets:from_list(Mods),
    Self = self(),
    [exit(P, kill) || P <- processes(), P =/= Self, runs_owned(P, Set)],
    ok.

runs_owned(P, Set) ->
    Current = case erlang:process_info(P, current_function) of
                  {current_function, {M, _, _}} -> sets:is_element(M, Set);
                  _ -> false
              end,
    Current orelse case erlang:process_info(P, initial_call) of
                       {initial_call, {M2, _, _}} -> sets:is_element(M2, Set);
                       _ -> false
                   end.
