%% @doc Keeps a workspace's `node.log' from growing without bound.
%%
%% The node's standard output and error (logger reports, the emulator's own
%% last words such as "Cannot allocate ... bytes of memory") go to `node.log',
%% opened by the launcher in append mode.  Renaming the file would leave the
%% emulator writing to the renamed one, so rotation copies and truncates:
%% `node.log' is copied to `node.log.1' (older copies shift up to
%% `node.log.Keep', the oldest is dropped) and then emptied; appends continue
%% at its new end.  Lines written between the copy and the truncation are
%% lost, a price worth paying for a log that stays small.
%%
%% The check runs at start and then every `BEAMTALK_LOG_CHECK_MS' (10 000) ms
%% in a registered process of its own (a `timer:apply_interval' would die with
%% the boot process that starts it); a check never raises, so the loop needs
%% no supervisor.  The limits come from `BEAMTALK_LOG_MAX_BYTES' (10 MiB) and
%% `BEAMTALK_LOG_KEEP' (3 old files).  Every copy is mode 0600, and each tick
%% also keeps the files of the workspace's directory private
%% (`beamtalk_file_modes').
-module(beamtalk_log_rotate).
-export([start/1, check/3, loop/4]).

-define(MAX_BYTES, 10 * 1024 * 1024).
-define(KEEP, 3).
-define(CHECK_MS, 10000).

start(Dir) ->
    Path = filename:join(Dir, "node.log"),
    Max = env_int("BEAMTALK_LOG_MAX_BYTES", ?MAX_BYTES),
    Keep = env_int("BEAMTALK_LOG_KEEP", ?KEEP),
    check(Path, Max, Keep),
    Every = env_int("BEAMTALK_LOG_CHECK_MS", ?CHECK_MS),
    Pid = spawn(?MODULE, loop, [Path, Max, Keep, Every]),
    true = register(?MODULE, Pid),
    ok.

loop(Path, Max, Keep, Every) ->
    receive
        stop -> ok
    after Every ->
        check(Path, Max, Keep),
        ?MODULE:loop(Path, Max, Keep, Every)
    end.

check(Path, Max, Keep) ->
    try
        case filelib:file_size(Path) > Max of
            true -> rotate(Path, Keep);
            false -> ok
        end,
        %% the tick is also when the files of the workspace's directory
        %% (the store's new Mnesia files above all) are made private
        %% (beamtalk_file_modes)
        beamtalk_file_modes:private_tree(filename:dirname(Path))
    catch _:_ -> ok
    end.

rotate(Path, Keep) ->
    _ = file:delete(old(Path, Keep)),
    lists:foreach(fun(N) -> _ = file:rename(old(Path, N), old(Path, N + 1)) end,
                  lists:seq(Keep - 1, 1, -1)),
    case file:copy(Path, old(Path, 1)) of
        {ok, _} ->
            %% file:copy makes the copy with the umask's mode; the log
            %% may quote what was typed
            beamtalk_file_modes:private_file(old(Path, 1)),
            _ = file:write_file(Path, <<>>), ok;
        {error, _} -> ok
    end.

old(Path, N) -> Path ++ "." ++ integer_to_list(N).

env_int(Name, Default) ->
    case os:getenv(Name) of
        false -> Default;
        Text ->
            case string:to_integer(Text) of
                {N, ""} when N > 0 -> N;
                _ -> Default
            end
    end.
