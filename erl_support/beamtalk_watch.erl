%% @doc The workspace's file watches (`Workspace watch:`, `:watch`,
%% `beamtalk watch`, `--watch`): which roots are watched, and what their
%% last reload did.
%%
%% Why here and not in a client: a watch belongs to the workspace, so it
%% outlives the client that asked.  The compiler peer does the watching (OS
%% change notifications, a burst of saves coalesced) and compiles the
%% changed files; it sends `{watch_reload, Root, Modules, Errors, Warnings}`
%% here, and this process loads the modules that compiled.  A file that
%% does not compile keeps its running code; its error (file, line, caret)
%% goes to the Transcript, so every attached client sees it, and is kept
%% for `beamtalk workspace status` until a later save of it compiles.
-module(beamtalk_watch).
-behaviour(gen_server).

-export([start_link/0, watch/1, unwatch/1, watches/0, roots/0]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(SERVER, ?MODULE).

%% roots: Root => #{reloads, errors => #{File => Text}, last => Text}
-record(st, {roots = #{} :: #{binary() => map()}}).

start_link() ->
    gen_server:start_link({local, ?SERVER}, ?MODULE, [], []).

watch(Root) -> gen_server:call(?SERVER, {watch, Root}).
unwatch(Root) -> gen_server:call(?SERVER, {unwatch, Root}).

%% @doc `[#{path, reloads, errors => [Text], last}]`, sorted by path.
watches() -> gen_server:call(?SERVER, watches).

roots() -> gen_server:call(?SERVER, roots).

init([]) ->
    {ok, #st{}}.

handle_call({watch, Root}, _From, St) ->
    case filelib:is_file(Root) of
        false ->
            {reply, {error, <<"File not found: ", Root/binary>>}, St};
        true ->
            Roots = case maps:is_key(Root, St#st.roots) of
                        true -> St#st.roots;
                        false -> maps:put(Root, #{reloads => 0, errors => #{}, last => nil},
                                          St#st.roots)
                    end,
            tell_peer(Roots),
            {reply, ok, St#st{roots = Roots}}
    end;
handle_call({unwatch, Root}, _From, St) ->
    case maps:take(Root, St#st.roots) of
        {_, Roots} -> tell_peer(Roots), {reply, ok, St#st{roots = Roots}};
        error -> {reply, {error, <<"Not watching ", Root/binary>>}, St}
    end;
handle_call(watches, _From, St) ->
    {reply, [W#{path => R, errors => [T || {_, T} <- lists:sort(maps:to_list(E))]}
             || {R, #{errors := E} = W} <- lists:sort(maps:to_list(St#st.roots))], St};
handle_call(roots, _From, St) ->
    {reply, lists:sort(maps:keys(St#st.roots)), St};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast(_Msg, St) ->
    {noreply, St}.

handle_info({watch_reload, Root, Modules, Errors, _Warnings}, St) ->
    case maps:find(Root, St#st.roots) of
        {ok, W} ->
            %% Whatever a reload does, the watches stay (a crash here would
            %% lose them all).
            W1 = try reload(W, Modules, Errors)
                 catch C:R:S ->
                         io:format(user, "beamtalk_watch: reload failed: ~tp~n", [{C, R, S}]),
                         W
                 end,
            {noreply, St#st{roots = maps:put(Root, W1, St#st.roots)}};
        error -> {noreply, St}
    end;
handle_info(_Msg, St) ->
    {noreply, St}.

terminate(_Reason, _St) -> ok.
code_change(_Old, St, _Extra) -> {ok, St}.

%% Load what compiled; remember and report what did not.
reload(#{reloads := N, errors := Errs0} = W, Modules, Errors) ->
    Files = [F || {_, _, _, F} <- Modules],
    {Loaded, LoadErrors} =
        case Modules of
            [] -> {[], []};
            _ ->
                case beamtalk_peer_code:load_modules([{M, F} || {M, F, _, _} <- Modules]) of
                    ok -> {[C || {_, _, C, _} <- Modules], []};
                    {error, Why} -> {[], [{F, Why} || F <- Files]}
                end
        end,
    Errs1 = maps:without(Files, Errs0),
    Errs = maps:merge(Errs1, maps:from_list(Errors ++ LoadErrors)),
    Lines = [["\x{21bb} Reloaded ", lists:join(", ", [atom_to_binary(C) || C <- Loaded]), "\n"]
             || Loaded =/= []]
        ++ [["\x{21bb} ", T, "\n"] || {_, T} <- Errors ++ LoadErrors],
    Text = unicode:characters_to_binary(Lines),
    _ = Text =/= <<>> andalso (catch beamtalk_transcript:write(Text)),
    W#{reloads => N + 1, errors => Errs, last => Text}.

tell_peer(Roots) ->
    beamtalk_store:watches_changed(lists:sort(maps:keys(Roots))),
    beamtalk_compiler_peer:send_watch(lists:sort(maps:keys(Roots))).
