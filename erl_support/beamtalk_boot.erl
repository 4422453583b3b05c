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
    %% The private HOME holds the cookie file: its path (never the cookie)
    %% is what the compiler peer gets.
    CookieFile = filename:join(os:getenv("HOME", "."), ".erlang.cookie"),
    case os:getenv("BEAMTALK_USER_HOME") of
        false -> ok;
        Home -> os:putenv("HOME", Home), os:unsetenv("BEAMTALK_USER_HOME")
    end,
    ok = beamtalk_bootstrap:boot(),
    case arg(beamtalk_stdlib, none) of
        none -> ok;
        StdlibDir -> ok = beamtalk_stdlib:load(StdlibDir)
    end,
    MaxHeap = case arg(beamtalk_max_heap_mb, default) of
                  default -> default;
                  Mb -> list_to_integer(Mb)
              end,
    {ok, _} = beamtalk_workspace:start(#{id => list_to_binary(Id),
                                         dir => list_to_binary(Dir),
                                         idle_ms => IdleMs,
                                         max_heap_mb => MaxHeap}),
    ok = beamtalk_log_rotate:start(Dir),
    start_compiler_peer(Dir, CookieFile),
    write_node_info(Dir),
    ok.

%% The compiler peer (DESIGN D11) starts in the background: the node is
%% ready for REPL clients before the peer's Python has imported.
start_compiler_peer(Dir, CookieFile) ->
    case arg(beamtalk_python, none) of
        none -> ok;
        Python ->
            ok = beamtalk_peer_sup:start(#{python => Python,
                                           pythonpath => arg(beamtalk_pythonpath, ""),
                                           cookie_file => CookieFile,
                                           dir => Dir})
    end.

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
