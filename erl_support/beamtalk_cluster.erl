%% @doc Beamtalk across connected nodes (`Workspace nodes`, `Workspace
%% connect:`, `Counter spawnOn: aNode`, class modules on every node).
%%
%% The workspace's node is the source of code: every class module it loads
%% (`:load`, `:reload`, a package) is kept here, in load order, and loaded on
%% every connected node too; a node that connects later gets the runtime,
%% the stdlib and then those modules, in the same order, before anything
%% else is done there.  Loading a class module runs its on_load hook, so a
%% class is registered (or hot-reloaded: its actors run the new code on
%% their next message) on each node by that node's own runtime.
%%
%% Why modules and not class descriptions: a module binary is the one
%% thing every node can load identically, funs included; classes typed at
%% the REPL (built from closures, no module of their own) stay on this node.
%%
%% Another node gets what the workspace node runs, as binaries, through
%% Erlang distribution: `code:get_object_code/1` where the runtime came from
%% files, else the binaries `beamtalk_attach:install/2` kept.
-module(beamtalk_cluster).
-behaviour(gen_server).

-export([start_link/0, ensure_started/0, nodes/0, connect/1, ensure/1,
         spawn_on/3, loaded/1, load_here/1, stamp/0, foreign_block/3]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-define(SERVER, ?MODULE).
-define(PUSH_TIMEOUT, 120000).

-record(st, {mods = [] :: [{module(), binary()}],   % class modules, oldest first
             ready = #{} :: #{node() => true}}).

%%% API

start_link() ->
    gen_server:start_link({local, ?SERVER}, ?MODULE, [], []).

%% @doc Start the cluster server outside any supervisor when the node has
%% none yet (a workspace node started by beamtalk itself).
ensure_started() ->
    case whereis(?SERVER) of
        undefined ->
            case gen_server:start({local, ?SERVER}, ?MODULE, [], []) of
                {ok, _} -> ok;
                {error, {already_started, _}} -> ok
            end;
        _ -> ok
    end.

%% @doc The other visible nodes this node is connected to (hidden peers,
%% such as a beamtalk REPL, are not part of the cluster).
nodes() -> lists:sort(erlang:nodes()).

%% @doc Connect to Node and make Beamtalk (runtime, stdlib, the workspace's
%% class modules) available there.  `ok` or `{error, Text, Hint}`.
connect(Node) when is_atom(Node) ->
    refused(<<"Cannot connect to ">>, Node, reach(Node)).

%% @doc Make Beamtalk, with the current class modules, available on Node
%% (connected already).  `ok` or `{error, Why, Hint}`: Why is a clause
%% ("it runs another build of Beamtalk than a@h") for the caller to prefix.
ensure(Node) when Node =:= node() -> ok;
ensure(Node) ->
    ok = ensure_started(),
    gen_server:call(?SERVER, {ensure, Node}, ?PUSH_TIMEOUT).

%% Connected (or connectable) and made ready, else why not.
reach(Node) when Node =:= node() -> ok;
reach(Node) ->
    case string:find(atom_to_binary(Node, utf8), <<"@">>) of
        nomatch ->
            {error, <<"a node name looks like name@host">>,
             <<"Workspace nodes lists the connected nodes; Erlang erlang node names this one">>};
        _ ->
            case lists:member(Node, erlang:nodes()) orelse net_kernel:connect_node(Node) of
                true -> ensure(Node);
                false -> {error, <<"it is not running, not reachable, or its cookie differs">>,
                          <<"Nodes of a cluster share one cookie; check the name with Workspace nodes">>}
            end
    end.

refused(_Prefix, _Node, ok) -> ok;
refused(Prefix, Node, {error, Why, Hint}) ->
    {error, iolist_to_binary([Prefix, atom_to_binary(Node, utf8), ": ", Why]), Hint}.

%% @doc `Class spawnOn: aNode`: the actor runs on Node, is used like any other.
spawn_on(ClassName, Node, Overrides) when Node =:= node() ->
    beamtalk_actor:spawn(ClassName, Overrides);
spawn_on(ClassName, Node, Overrides) ->
    Prefix = iolist_to_binary(["Cannot spawn ", article(ClassName), " ", atom_to_binary(ClassName, utf8),
                               " on "]),
    case refused(Prefix, Node, reach(Node)) of
        ok -> ok;
        {error, Text, Hint} -> beamtalk_exception:raise(runtime_error, ClassName, 'spawnOn:', Text, Hint)
    end,
    case rpc:call(Node, beamtalk_class, class_info, [ClassName]) of
        undefined ->
            beamtalk_exception:raise(
              runtime_error, ClassName, 'spawnOn:',
              iolist_to_binary([atom_to_binary(ClassName, utf8), " is not defined on ",
                                atom_to_binary(Node, utf8)]),
              <<"Only classes loaded from files (:load) reach the other nodes; "
                "a class typed at the REPL stays on this one">>);
        _ -> ok
    end,
    case rpc:call(Node, beamtalk_actor, spawn, [ClassName, Overrides]) of
        {badrpc, {'EXIT', {Reason, Stack}}} when is_list(Stack) -> erlang:raise(error, Reason, Stack);
        {badrpc, Reason} ->
            beamtalk_exception:raise(runtime_error, ClassName, 'spawnOn:',
                                     iolist_to_binary([Prefix, atom_to_binary(Node, utf8), ": ",
                                                       badrpc_text(Reason)]), nil);
        Actor -> Actor
    end.

article(Name) ->
    case atom_to_binary(Name, utf8) of
        <<C, _/binary>> when C =:= $A; C =:= $E; C =:= $I; C =:= $O; C =:= $U -> <<"an">>;
        _ -> <<"a">>
    end.

%% @doc The workspace loaded these class modules: keep them and load them on
%% every connected node.  A node where loading fails is reported (on the
%% caller's output) by name; the others go on.  Never fails the caller.
loaded(ModBins) ->
    case whereis(?SERVER) of
        undefined -> ok;
        _ ->
            Failures = try gen_server:call(?SERVER, {loaded, ModBins}, ?PUSH_TIMEOUT)
                       catch exit:_ -> []
                       end,
            [io:format("\x{26a0} ~ts: ~ts~n", [N, T]) || {N, T} <- Failures],
            ok
    end.

%% @doc (On the receiving node.) Load class modules pushed from the
%% workspace node, in order.  `ok`, `{ok, Notes}` (what loading did that the
%% user should hear of) or `{error, Text}` for the first failure.
load_here(ModBins) ->
    try
        case lists:append([load_one(M, B) || {M, B} <- ModBins]) of
            [] -> ok;
            Notes -> {ok, Notes}
        end
    catch throw:{failed, Text} -> {error, Text}
    end.

load_one(Mod, Bin) ->
    Notes = purge(Mod),
    case code:load_binary(Mod, atom_to_list(Mod) ++ ".beam", Bin) of
        {module, Mod} -> Notes;
        {error, on_load_failure} ->
            Key = {beamtalk_load_error, Mod},
            Text = case persistent_term:get(Key, undefined) of
                       undefined -> <<"its class could not be registered">>;
                       Ex -> persistent_term:erase(Key), beamtalk_errors:format(Ex)
                   end,
            throw({failed, iolist_to_binary(["loading ", atom_to_binary(Mod, utf8), " failed: ", Text])});
        {error, What} ->
            throw({failed, iolist_to_binary(io_lib:format("loading ~ts failed: ~tp", [Mod, What]))})
    end.

%% Loading a module makes its current code old, and the old code must go
%% first: a process still running the old code (an actor in the middle of a
%% long method when its class is loaded twice) is stopped by the purge, as
%% Erlang does.  That is said, naming the processes, rather than done silently.
purge(Mod) ->
    case code:soft_purge(Mod) of
        true -> [];
        false ->
            Holders = [holder(P) || P <- processes(), P =/= self(), erlang:check_process_code(P, Mod)],
            _ = code:purge(Mod),
            [iolist_to_binary([atom_to_binary(Mod, utf8), ": ", integer_to_binary(length(Holders)),
                               case Holders of [_] -> " process"; _ -> " processes" end,
                               " still ran its oldest code and ",
                               case Holders of [_] -> "was"; _ -> "were" end, " stopped (",
                               lists:join(", ", Holders), ")"])]
    end.

holder(Pid) ->
    case erlang:process_info(Pid, dictionary) of
        {dictionary, D} ->
            case lists:keyfind('$bt_self', 1, D) of
                {_, Actor} -> beamtalk_print:print_string(Actor);
                false -> beamtalk_print:print_string(Pid)
            end;
        _ -> beamtalk_print:print_string(Pid)
    end.

%% @doc (In an actor's process.) A block whose code is not on this node
%% failed with `undef` when called: a block typed at the REPL of another
%% node (its code is that input's module, which stays there) sent here as an
%% argument.  (OTP's error_handler puts `{Fun, Args, []}` on top of the stack.)  `{ok, Exception}` saying so, or `none` for any other error.
foreign_block(error, undef, [{Fun, _Args, _} | _]) when is_function(Fun) ->
    {module, Mod} = erlang:fun_info(Fun, module),
    case code:is_loaded(Mod) of
        false ->
            Here = atom_to_binary(node(), utf8),
            Msg = case atom_to_binary(Mod, utf8) of
                      <<"bt@in@", _/binary>> ->
                          Home = case persistent_term:get({?MODULE, home}, none) of
                                     none -> <<"another node">>;
                                     H -> atom_to_binary(H, utf8)
                                 end,
                          ["A block typed at the REPL on ", Home, " cannot run on ", Here,
                           ": code typed at the REPL stays on the node it was typed on"];
                      M ->
                          ["A block cannot run on ", Here, ": its code (module ", M, ") is not loaded there"]
                  end,
            {ok, beamtalk_exception:new(runtime_error, 'Block', undefined, iolist_to_binary(Msg),
                                        <<"Put the block in a method of a class loaded from a file (:load), "
                                          "which every node of the cluster gets, and call that method instead">>)};
        _ -> none
    end;
foreign_block(_, _, _) -> none.

%% @doc Which Beamtalk runtime a node runs: a digest of the runtime's and the
%% stdlib's module checksums (equal on two nodes that load the same binaries).
stamp() ->
    erlang:md5(term_to_binary(lists:sort([{M, M:module_info(md5)} || M <- runtime_modules()]))).

%%% Server

init([]) ->
    ok = net_kernel:monitor_nodes(true),
    load_runtime_files(),
    {ok, #st{}}.

%% A workspace node loads runtime modules from its code path when first
%% used; another node gets all of them, so load all here first (and the
%% stamps of the two nodes cover the same modules).
load_runtime_files() ->
    case code:which(beamtalk_bootstrap) of
        Path when is_list(Path) ->
            Dir = filename:dirname(Path),
            [code:ensure_loaded(list_to_atom(filename:basename(F, ".beam")))
             || F <- filelib:wildcard(filename:join(Dir, "beamtalk_*.beam"))],
            ok;
        _ -> ok
    end.

handle_call({ensure, Node}, _From, St) ->
    {Reply, St1} = sync(Node, St),
    {reply, Reply, St1};
handle_call({loaded, ModBins}, _From, #st{mods = Mods} = St) ->
    New = [M || {M, _} <- ModBins],
    St1 = St#st{mods = [MB || {M, _} = MB <- Mods, not lists:member(M, New)] ++ ModBins},
    {Reports, St2} = lists:foldl(
                        fun(Node, {F, S}) ->
                                case maps:is_key(Node, S#st.ready) of
                                    true -> push(Node, ModBins, F, S);
                                    false -> case sync(Node, S) of
                                                 {ok, S1} -> {F, S1};
                                                 {{error, T, _Hint}, S1} -> {[{Node, T} | F], S1}
                                             end
                                end
                        end, {[], St1}, erlang:nodes()),
    {reply, lists:reverse(Reports), St2};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast(_Msg, St) ->
    {noreply, St}.

%% A node that joins later gets Beamtalk and the current classes; while the
%% workspace has loaded no class, a joining node is left alone (it gets
%% Beamtalk when a class is loaded or it is named by connect:/spawnOn:).
handle_info({nodeup, _Node}, #st{mods = []} = St) ->
    {noreply, St};
handle_info({nodeup, Node}, St) ->
    {_, St1} = sync(Node, St),
    {noreply, St1};
handle_info({nodedown, Node}, St) ->
    {noreply, St#st{ready = maps:remove(Node, St#st.ready)}};
handle_info(_Msg, St) ->
    {noreply, St}.

push(Node, ModBins, Reports, St) ->
    case rpc:call(Node, ?MODULE, load_here, [ModBins], ?PUSH_TIMEOUT) of
        ok -> {Reports, St};
        {ok, Notes} -> {[{Node, N} || N <- lists:reverse(Notes)] ++ Reports, St};
        {error, Text} -> {[{Node, Text} | Reports], St};
        {badrpc, {'EXIT', {undef, [{?MODULE, load_here, _, _} | _]}}} ->
            %% Beamtalk was removed there (`beamtalk detach --unload`) while
            %% the node stayed connected: load it again, with every class.
            case sync(Node, St#st{ready = maps:remove(Node, St#st.ready)}) of
                {ok, St1} -> {Reports, St1};
                {{error, T, _Hint}, St1} -> {[{Node, T} | Reports], St1}
            end;
        {badrpc, R} -> {[{Node, badrpc_text(R)} | Reports], St#st{ready = maps:remove(Node, St#st.ready)}}
    end.

%% Runtime (if the node has none, or another one), then every class module.
%% `{ok, St}` or `{{error, Why, Hint}, St}`.
sync(Node, #st{ready = Ready} = St) ->
    case maps:is_key(Node, Ready) of
        true -> {ok, St};
        false ->
            case install_runtime(Node) of
                ok ->
                    case rpc:call(Node, ?MODULE, load_here, [St#st.mods], ?PUSH_TIMEOUT) of
                        ok -> {ok, St#st{ready = Ready#{Node => true}}};
                        {ok, _Notes} -> {ok, St#st{ready = Ready#{Node => true}}};
                        {error, Text} -> {{error, Text, nil}, St};
                        {badrpc, R} -> {{error, badrpc_text(R), nil}, St}
                    end;
                {error, Why} -> {{error, Why, nil}, St};
                {error, _, _} = E -> {E, St}
            end
    end.

install_runtime(Node) ->
    Mine = stamp(),
    case rpc:call(Node, ?MODULE, stamp, [], ?PUSH_TIMEOUT) of
        Mine -> started_there(Node);
        {badrpc, {'EXIT', {undef, _}}} -> load_there(Node);
        {badrpc, R} -> {error, badrpc_text(R)};
        _Other ->
            N = atom_to_binary(Node, utf8),
            {error, iolist_to_binary(["it runs another build of Beamtalk than ", atom_to_binary(node(), utf8),
                                      " (another version, or one a client loaded there itself); "
                                      "its classes and actors are left alone"]),
             iolist_to_binary(["remove it there with `beamtalk detach --node ", N,
                               " --unload --cookie-file <its cookie file>`, then connect again"])}
    end.

load_there(Node) ->
    Code = [object_code(M) || M <- runtime_modules()],
    case [M || {M, error} <- Code] of
        [] ->
            case atomic_load(Node, Code, 2) of
                ok -> started_there(Node);
                {error, _} = E -> E
            end;
        Missing ->
            {error, iolist_to_binary(io_lib:format("this node has no object code of ~tp", [Missing]))}
    end.

%% Old code of a runtime module (an earlier Beamtalk was removed there while
%% a process still ran it) makes atomic_load answer not_purged: purge what
%% no process runs any more and try again; else say which module and why.
atomic_load(Node, Code, Tries) ->
    case rpc:call(Node, code, atomic_load, [Code], ?PUSH_TIMEOUT) of
        ok -> ok;
        {error, What} when is_list(What), Tries > 1 ->
            Stale = [M || {M, not_purged} <- What],
            Purged = [rpc:call(Node, code, soft_purge, [M]) || M <- Stale],
            case Stale =/= [] andalso lists:all(fun(P) -> P =:= true end, Purged) of
                true -> atomic_load(Node, Code, Tries - 1);
                false -> {error, load_errors(What)}
            end;
        {error, What} when is_list(What) -> {error, load_errors(What)};
        {badrpc, R} -> {error, badrpc_text(R)};
        Other -> {error, badrpc_text(Other)}
    end.

load_errors(What) ->
    Stale = [atom_to_binary(M, utf8) || {M, not_purged} <- What],
    Other = [{M, R} || {M, R} <- What, R =/= not_purged],
    Parts = [["a process there still runs the old code of ", lists:join(", ", Stale),
              " (left by a Beamtalk removed from that node): stop that process or restart the node"]
             || Stale =/= []]
        ++ [io_lib:format("module ~ts: ~tP", [M, R, 4]) || {M, R} <- Other],
    iolist_to_binary(["the runtime did not load: " | lists:join("; ", Parts)]).

%% The runtime alone (no workspace server, no cluster server: that node is
%% served from here) under beamtalk_attach_sup there.
started_there(Node) ->
    Std = [M || M <- runtime_modules(), is_stdlib(M)],
    Opts = #{version => <<"cluster">>, stdlib => Std, workspace => false, home => node()},
    case rpc:call(Node, beamtalk_attach, start, [Opts], ?PUSH_TIMEOUT) of
        {ok, _} -> ok;
        {error, Text} -> {error, Text};
        {badrpc, R} -> {error, badrpc_text(R)}
    end.

object_code(M) ->
    case code:get_object_code(M) of
        {M, Bin, File} -> {M, File, Bin};
        error ->
            Kept = persistent_term:get({beamtalk_attach, code}, #{}),
            case maps:find(M, Kept) of
                {ok, {File, Bin}} -> {M, File, Bin};
                error -> {M, error}
            end
    end.

runtime_modules() ->
    lists:sort([M || {M, _} <- code:all_loaded(), is_runtime(M)]).

is_runtime(M) ->
    case atom_to_binary(M, utf8) of
        <<"beamtalk_", _/binary>> -> true;
        <<"bt@stdlib@", _/binary>> -> true;
        _ -> false
    end.

is_stdlib(M) ->
    case atom_to_binary(M, utf8) of
        <<"bt@stdlib@", _/binary>> -> true;
        _ -> false
    end.

badrpc_text(nodedown) -> <<"the node went away">>;
badrpc_text(timeout) -> <<"the node did not answer in time">>;
badrpc_text({'EXIT', {Reason, _Stack}}) ->
    iolist_to_binary(io_lib:format("it failed there: ~tP", [Reason, 6]));
badrpc_text(R) -> iolist_to_binary(io_lib:format("~tP", [R, 6])).
