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
%% The guard only samples while the evaluator is not waiting: an idle
%% evaluator's binaries cannot grow.
-module(beamtalk_mem_guard).

-export([start/2, binary_bytes/1, check_new_binary/1]).

-define(INTERVAL_MS, 100).
-define(CHECKED_FROM, 1048576).

%% @doc Watch Pid until it ends; kill it when its binaries pass LimitBytes.
start(Pid, LimitBytes) when is_integer(LimitBytes), LimitBytes > 0 ->
    spawn(fun() ->
                  Mon = erlang:monitor(process, Pid),
                  loop(Pid, Mon, LimitBytes)
          end).

loop(Pid, Mon, Limit) ->
    receive
        {'DOWN', Mon, process, Pid, _} -> ok
    after ?INTERVAL_MS ->
            case erlang:process_info(Pid, status) of
                {status, waiting} -> loop(Pid, Mon, Limit);
                undefined -> ok;
                _ ->
                    case binary_bytes(Pid) > Limit of
                        true -> exit(Pid, kill);
                        false -> loop(Pid, Mon, Limit)
                    end
            end
    end.

%% @doc Bytes of the shared (reference-counted) binaries Pid references.
binary_bytes(Pid) ->
    case erlang:process_info(Pid, binary) of
        {binary, Bins} -> lists:sum([Size || {_, Size, _} <- Bins]);
        undefined -> 0
    end.

%% @doc Called before making a binary of Size bytes: past the calling
%% process's memory limit (its `max_heap_size`, in words; 0 = none, as for
%% actors) the process is killed, as the VM kills it at that heap size.
check_new_binary(Size) when Size < ?CHECKED_FROM -> ok;
check_new_binary(Size) ->
    case erlang:process_info(self(), max_heap_size) of
        {max_heap_size, #{size := W}} when W > 0 ->
            case Size > W * erlang:system_info(wordsize) of
                true ->
                    exit(self(), kill),
                    receive after infinity -> ok end;
                false -> ok
            end;
        _ -> ok
    end.
