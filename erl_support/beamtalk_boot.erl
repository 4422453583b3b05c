%% @doc Node start-up for a workspace (DESIGN D4).
%%
%% The node is started by `beamtalk workspace start` with HOME pointing at a
%% private directory that holds the cookie, so the cookie never appears in any
%% command line or environment.  Once distribution is up, HOME is restored to
%% the user's real home so user code sees the usual environment.
-module(beamtalk_boot).
-export([start/0]).

start() ->
    Id = arg(beamtalk_workspace, "default"),
    Dir = arg(beamtalk_dir, "."),
    IdleMs = case arg(beamtalk_idle, "infinity") of
                 "infinity" -> infinity;
                 Secs -> list_to_integer(Secs) * 1000
             end,
    case os:getenv("BEAMTALK_USER_HOME") of
        false -> ok;
        Home -> os:putenv("HOME", Home), os:unsetenv("BEAMTALK_USER_HOME")
    end,
    ok = beamtalk_bootstrap:boot(),
    case arg(beamtalk_stdlib, none) of
        none -> ok;
        StdlibDir -> ok = beamtalk_stdlib:load(StdlibDir)
    end,
    {ok, _} = beamtalk_workspace:start(#{id => list_to_binary(Id),
                                         dir => list_to_binary(Dir),
                                         idle_ms => IdleMs}),
    ok = beamtalk_log_rotate:start(Dir),
    write_node_info(Dir),
    ok.

arg(Name, Default) ->
    case init:get_argument(Name) of
        {ok, [[Value | _] | _]} -> Value;
        _ -> Default
    end.

write_node_info(Dir) ->
    Info = io_lib:format("{\"node\": \"~ts\", \"os_pid\": ~ts, \"started\": ~b}~n",
                         [node(), os:getpid(), erlang:system_time(second)]),
    Path = filename:join(Dir, "node.info"),
    Tmp = Path ++ ".tmp",
    ok = file:write_file(Tmp, Info),
    ok = file:rename(Tmp, Path).
