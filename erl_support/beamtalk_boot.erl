%% @doc Node start-up for a workspace (DESIGN D4).
%%
%% The node is started by `beamtalk workspace start` with HOME pointing at a
%% private directory that holds the cookie, so the cookie never appears in any
%% command line or environment.  Once distribution is up, HOME is restored to
%% the user's real home so user code sees the usual environment.
-module(beamtalk_boot).
-export([start/0]).

start() ->
    preload_compiler(),
    preload_runtime(),
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
    %% The durable state (beamtalk_store, beamtalk_restore): classes and
    %% globals before the workspace server, whose init takes the bindings.
    StoreOpen = beamtalk_store:open(Dir),
    Code = beamtalk_restore:restore_code(),
    %% From here on a class changed at the REPL is a pending source change.
    beamtalk_changes:enable(),
    {ok, _} = beamtalk_workspace:start(#{id => list_to_binary(Id),
                                         dir => list_to_binary(Dir),
                                         idle_ms => IdleMs,
                                         max_heap_mb => MaxHeap}),
    ok = beamtalk_log_rotate:start(Dir),
    start_compiler_peer(Dir, CookieFile),
    Watches = length([R || {R, _} <- maps:get(bt_watch, beamtalk_store:read_all(#{}), [])]),
    Summary = Code#{bindings => length(maps:get(bt_binding, beamtalk_store:read_all(#{}), [])),
                    watches => Watches},
    %% Watches need the compiler peer, which starts in the background.
    _ = Watches > 0 andalso is_pid(spawn(fun beamtalk_restore:watches/0)),
    write_node_info(Dir, restore_text(StoreOpen, Summary)),
    ok.

%% The first input is compiled on the node, and a node's first compile
%% loads the compiler's modules (about 80 ms on this project's machine).
%% Loading them in the background (code:ensure_modules_loaded/1 prepares
%% them in parallel) while the node boots keeps most of that off the path
%% to the first result; a compile that comes first loads what it needs.
preload_compiler() ->
    spawn(fun() ->
                  _ = application:load(compiler),
                  case application:get_key(compiler, modules) of
                      {ok, Mods} -> _ = code:ensure_modules_loaded(Mods -- compiler_unused());
                      _ -> ok
                  end
          end),
    ok.

%% The compiler's modules that compile:forms with this project's options
%% never calls: listings and pretty-printers (`'S'`, `dcore`, ...), Core
%% Erlang input and its linter, the inliner (`inline`).  Loading them would
%% only take CPU from the boot.
compiler_unused() ->
    [beam_disasm, beam_listing, beam_ssa_pp, core_pp, v3_kernel_pp, core_scan,
     core_parse, core_lint, beam_ssa_lint, cerl_inline, sys_core_inline,
     sys_core_prepare, sys_messages].

%% The boot goes on to use nearly every module of the runtime and of the
%% compiled stdlib (about 150).  Loaded one by one, on first call, each
%% waits for the code server, a file read and the JIT in turn;
%% code:ensure_modules_loaded/1 prepares them all in parallel first.
preload_runtime() ->
    Own = filename:dirname(code:which(?MODULE)),
    Stdlib = case arg(beamtalk_stdlib, none) of
                 none -> [];
                 Dir -> true = code:add_patha(Dir), [Dir]
             end,
    Mods = [list_to_atom(filename:basename(F, ".beam"))
            || D <- [Own | Stdlib], F <- filelib:wildcard(filename:join(D, "*.beam"))],
    %% a module that cannot be loaded here fails later, where it is used,
    %% with that caller's error
    _ = code:ensure_modules_loaded(Mods -- [?MODULE]),
    ok.

%% What `beamtalk workspace start` says it restored (nothing on a fresh
%% store), and any problem met on the way.
restore_text(StoreOpen, #{problems := Problems} = Summary) ->
    Main = case StoreOpen of
               {off, Why} -> Why;
               ok ->
                   case maps:get(bindings, Summary) + maps:get(classes, Summary)
                        + maps:get(globals, Summary) + maps:get(watches, Summary) of
                       0 -> <<>>;
                       _ -> beamtalk_restore:summary_text(Summary)
                   end
           end,
    Lines = [Main | [<<"  not restored: ", P/binary>> || P <- Problems, P =/= Main]],
    iolist_to_binary(lists:join("\n", [L || L <- Lines, L =/= <<>>])).

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

write_node_info(Dir, Restored) ->
    Info = io_lib:format("{\"node\": \"~ts\", \"os_pid\": ~ts, \"started\": ~b, \"restored\": ~ts}~n",
                         [node(), os:getpid(), erlang:system_time(second), json_string(Restored)]),
    Path = filename:join(Dir, "node.info"),
    Tmp = Path ++ ".tmp",
    ok = file:write_file(Tmp, Info),
    ok = file:change_mode(Tmp, 8#600),      % private whatever the umask
    ok = file:rename(Tmp, Path).

%% A JSON string literal (node.info is read by Python's json).
json_string(Bin) ->
    Escaped = [case C of
                   $" -> "\\\"";
                   $\\ -> "\\\\";
                   $\n -> "\\n";
                   C when C < 32 -> io_lib:format("\\u~4.16.0b", [C]);
                   C -> C
               end || C <- unicode:characters_to_list(Bin)],
    unicode:characters_to_binary([$", Escaped, $"]).
