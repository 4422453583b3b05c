%% @doc Holds an evaluator's shared binaries to its memory limit.
%%
%% Why: `max_heap_size` counts the process heap only (OTP 25 has no
%% `include_shared_binaries`), and a String is a binary that lives outside
%% the heap.  `s := s ++ s` in a loop grew one binary until the whole node
%% died of "Cannot allocate", taking every session with it.  A guard
%% process samples the binaries the evaluator references and kills it past
%% the limit; the VM's own kill at `max_heap_size` ends it the same way, so
%% the workspace reports both as the memory limit.
%%
%% Sampling alone is too slow for doubling (`s := s ++ s` goes from 64 MB
%% to 16 GB well within one interval), so `++` on Strings also checks the
%% size of the binary it is about to make (`check_new_binary/1`, O(1)).
%% The guard lives only while the evaluator runs a job.
-module(beamtalk_mem_guard).

-export([watch/0, done/1, binary_bytes/1, check_new_binary/1]).

-define(INTERVAL_MS, 100).
-define(CHECKED_FROM, 1048576).

%% @doc Start a guard over the calling process for as long as it runs one
%% job (`done/1` ends it): only a running job can grow its binaries, and an
%% idle evaluator should cost nothing.  `none` when the process has no limit.
watch() ->
    case limit_bytes() of
        0 -> none;
        Limit ->
            Pid = self(),
            spawn(fun() ->
                          Mon = erlang:monitor(process, Pid),
                          loop(Pid, Mon, Limit)
                  end)
    end.

done(none) -> ok;
done(Guard) -> exit(Guard, kill), ok.

loop(Pid, Mon, Limit) ->
    receive
        {'DOWN', Mon, process, Pid, _} -> ok
    after ?INTERVAL_MS ->
            case binary_bytes(Pid) > Limit of
                true -> exit(Pid, kill);
                false -> loop(Pid, Mon, Limit)
            end
    end.

%% The calling process's `max_heap_size` in bytes (0 = no limit).
limit_bytes() ->
    case erlang:process_info(self(), max_heap_size) of
        {max_heap_size, #{size := W}} -> W * erlang:system_info(wordsize);
        _ -> 0
    end.

%% @doc Bytes of the shared (reference-counted) binaries Pid references.
binary_bytes(Pid) ->
    case erlang:process_info(Pid, binary) of
        {binary, Bins} -> lists:sum([Size || {_, Size, _} <- Bins]);
        undefined -> 0
    end.

%% @doc Called before making a binary of Size bytes: past the calling
%% process's memory limit (its `max_heap_size`: evaluators and actors of a
%% workspace; none on a node Beamtalk was attached to) the process is
%% killed, as the VM kills it at that heap size.
check_new_binary(Size) when Size < ?CHECKED_FROM -> ok;
check_new_binary(Size) ->
    case limit_bytes() of
        Limit when Limit > 0, Size > Limit ->
            exit(self(), kill),
            receive after infinity -> ok end;
        _ -> ok
    end.
