%% @doc Keeps the files the node writes under `$BEAMTALK_HOME' private.
%%
%% Erlang cannot set a process's umask, and the node runs with the user's
%% (a stricter one would make every file user code writes private too), so
%% files that OTP creates for us follow it: under `umask 000' Mnesia's store
%% files (the bindings, so any secret bound at the REPL) came out 0666.
%% Their directories are 0700, which already keeps other users out; this is
%% the second fence, for the day a directory is copied or its mode changed.
%% Files we write ourselves are made private as they are written; Mnesia
%% makes new files as it dumps its log, so the store is swept at open, and
%% the whole workspace directory (also what an older version left open) on
%% every housekeeping tick of `beamtalk_log_rotate'.
-module(beamtalk_file_modes).
-export([private_file/1, private_tree/1]).

-include_lib("kernel/include/file.hrl").

%% @doc Mode 0600 for one file we just wrote (never raises).
-spec private_file(file:filename_all()) -> ok.
private_file(Path) ->
    _ = file:change_mode(Path, 8#600),
    ok.

%% @doc Every regular file below `Dir' that group or others may touch
%% becomes 0600, every such directory 0700.  Symbolic links are not
%% followed.  Never raises: a file that goes away meanwhile is skipped.
-spec private_tree(file:filename_all()) -> ok.
private_tree(Dir) ->
    case file:list_dir(Dir) of
        {ok, Names} -> lists:foreach(fun(N) -> private_entry(filename:join(Dir, N)) end, Names);
        {error, _} -> ok
    end.

private_entry(Path) ->
    case file:read_link_info(Path) of
        {ok, #file_info{type = regular, mode = Mode}} when Mode band 8#077 =/= 0 ->
            _ = file:change_mode(Path, 8#600), ok;
        {ok, #file_info{type = directory, mode = Mode}} ->
            Mode band 8#077 =/= 0 andalso file:change_mode(Path, 8#700),
            private_tree(Path);
        _ -> ok
    end.
