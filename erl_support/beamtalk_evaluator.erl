%% @doc A session's evaluator: one long-lived process per session that runs
%% the session's inputs one after another, as the Erlang shell keeps one
%% evaluator per shell.
%%
%% Why one process for all inputs: what Erlang ties to a process (ETS
%% tables it owns, ports, links, monitors, `trap_exit`, the process
%% dictionary, its mailbox) must live from one input to the next, or
%% `t := Erlang ets new: ...` is gone before the next line can use it.
%% Bindings belong to the workspace server: an evaluator that dies (crash
%% of a linked process, interrupt, timeout, memory limit) loses its process
%% state but never a binding, and the server starts a new one for the next
%% input.  The evaluator keeps a copy between inputs so that a job carries
%% only the names that changed since the last one, and its reply only the
%% names the input changed (beamtalk_bindings_delta: handing the whole map
%% over copied every bound value twice per input).
%%
%% An error raised by an input is caught inside the job, so it does not
%% replace the evaluator (the Erlang shell's `catch_exception(true)`): only
%% a kill or an exit signal does.
%%
%% The loop takes only its own job messages, so whatever else arrives
%% (`{'EXIT', Pid, Reason}` when trapping exits, replies, user messages)
%% stays in the mailbox for the user's code to receive.
-module(beamtalk_evaluator).

-export([start/2, run/3, summary/1, lost_text/1, death_text/2, max_heap_words/1,
         loop/1, loop/2]).

-define(JOB, '$bt_eval_job').

%% @doc Start an evaluator whose group leader is Io; MaxHeap is a heap size
%% in words (0 = no limit).  Answers `{Pid, MonitorRef}`.
start(Io, MaxHeap) ->
    Server = self(),
    Heap = case MaxHeap of
               0 -> [];
               W -> [{max_heap_size, #{size => W, kill => true, error_logger => false}}]
           end,
    {Pid, Mon} = spawn_opt(fun() -> ?MODULE:loop(Server, #{}) end, [monitor | Heap]),
    %% Signals from one sender arrive in order: the group leader is set
    %% before the first job message reaches the evaluator.
    group_leader(Io, Pid),
    {Pid, Mon}.

%% @doc Hand a job to the evaluator; it answers `{eval_done, Pid, Ref,
%% Result}` to the server.  A job is a fun answering a result term, or
%% `{bindings, Delta, Fun}`: the change to the evaluator's copy of the
%% session's bindings since the last job (`{full, Map}` for a new
%% evaluator) and a fun of the bindings; its `{ok, Text, NewBindings}`
%% reaches the server as `{ok, Text, Delta}`, the input's own changes.
run(Pid, Ref, Job) ->
    Pid ! {?JOB, Ref, Job},
    ok.

loop(Server) -> loop(Server, #{}).

loop(Server, Bindings0) ->
    receive
        {?JOB, Ref, Job} ->
            %% Shared binaries (Strings) are outside the heap: a guard holds
            %% them to the same limit while the job runs (beamtalk_mem_guard).
            Guard = beamtalk_mem_guard:watch(),
            {Result, Bindings} = try do(Job, Bindings0)
                                 catch C:R:S -> {beamtalk_eval_jobs:runtime_error(C, R, S), Bindings0}
                                 end,
            beamtalk_mem_guard:done(Guard),
            tidy(),
            Server ! {eval_done, self(), Ref, Result},
            ?MODULE:loop(Server, Bindings)
    end.

do({bindings, Update, Fun}, Bindings0) ->
    Bindings = case Update of
                   {full, Map} -> Map;
                   Delta -> beamtalk_bindings_delta:patch(Bindings0, Delta)
               end,
    case Fun(Bindings) of
        {ok, Text, New} when is_map(New) ->
            {{ok, Text, beamtalk_bindings_delta:diff(Bindings, New)}, New};
        Other ->
            {Other, Bindings}
    end;
do(Job, Bindings) ->
    {Job(), Bindings}.

%% The runtime's own process-dictionary entries (handler stacks, print
%% depth, ...) are scoped to one evaluation; drop any an abrupt exit left.
tidy() ->
    [erase(K) || {K, _} <- get(), is_atom(K), is_runtime_key(K)],
    ok.

is_runtime_key(K) ->
    case atom_to_binary(K, utf8) of
        <<"$bt_", _/binary>> -> true;
        _ -> false
    end.

%% @doc What the evaluator holds that dies with it: ETS tables it owns,
%% ports, links, monitors, process-dictionary keys of the user, trap_exit.
summary(Pid) ->
    case erlang:process_info(Pid, [links, monitors, dictionary, trap_exit, group_leader]) of
        undefined -> #{};
        [{links, Links}, {monitors, Mons0}, {dictionary, Dict}, {trap_exit, Trap}, {group_leader, GL}] ->
            %% a read waiting for its line monitors the session's I/O server:
            %% that is the evaluation's own, not something the user made
            Mons = [M || M <- Mons0, M =/= {process, GL}],
            Tables = [table_name(T) || T <- ets:all(), ets:info(T, owner) =:= Pid],
            Ports = [P || P <- Links, is_port(P)],
            Keys = [K || {K, _} <- Dict, not internal_key(K)],
            #{tables => Tables,
              ports => length(Ports),
              links => length(Links) - length(Ports),
              monitors => length(Mons),
              dictionary => length(Keys),
              trap_exit => Trap}
    end.

table_name(T) ->
    case ets:info(T, named_table) of
        true -> ets:info(T, name);
        _ -> unnamed
    end.

internal_key(K) when is_atom(K) ->
    case atom_to_binary(K, utf8) of
        <<"$bt_", _/binary>> -> true;
        <<"$ancestors">> -> true;
        <<"$initial_call">> -> true;
        <<"$beamtalk", _/binary>> -> true;
        _ -> false
    end;
internal_key(_) -> false.

%% @doc One line naming what a dead evaluator took with it.
lost_text(Summary) ->
    Parts = tables(maps:get(tables, Summary, []))
        ++ counted(maps:get(ports, Summary, 0), "port")
        ++ counted(maps:get(links, Summary, 0), "link")
        ++ counted(maps:get(monitors, Summary, 0), "monitor")
        ++ counted(maps:get(dictionary, Summary, 0), "process dictionary entry", "process dictionary entries")
        ++ case maps:get(trap_exit, Summary, false) of
               true -> ["trap_exit"];
               false -> []
           end,
    case Parts of
        [] -> <<"nothing was lost">>;
        _ -> iolist_to_binary(["lost ", lists:join(", ", Parts)])
    end.

tables([]) -> [];
tables(Ts) ->
    Named = [atom_to_list(N) || N <- Ts, N =/= unnamed],
    N = length(Ts),
    Noun = case N of 1 -> "ETS table"; _ -> "ETS tables" end,
    [io_lib:format("~b ~s~ts", [N, Noun, case Named of
                                            [] -> "";
                                            _ -> [" (", lists:join(", ", Named), ")"]
                                        end])].

counted(N, Noun) -> counted(N, Noun, Noun ++ "s").

counted(0, _, _) -> [];
counted(1, One, _) -> ["1 " ++ One];
counted(N, _, Many) -> [integer_to_list(N) ++ " " ++ Many].

%% @doc The notice for a replaced evaluator: why it went and what went with
%% it.  `{seen, Summary}` was read just before the kill; `{last, Summary}`
%% after the previous input (a death nobody saw coming cannot be asked).
death_text(Why, {seen, Summary}) ->
    iolist_to_binary(["The session's evaluator process ", Why,
                      "; a new one runs the next input (", lost_text(Summary),
                      "; bindings are kept)."]);
death_text(Why, {last, Summary}) ->
    Held = case lost_text(Summary) of
               <<"nothing was lost">> -> <<"after the last input it held no ETS table, port, link, "
                                           "monitor or process dictionary entry">>;
               <<"lost ", What/binary>> -> <<"after the last input it held ", What/binary>>
           end,
    iolist_to_binary(["The session's evaluator process ", Why,
                      "; a new one runs the next input (", Held, "; bindings are kept)."]).

%% @doc The default memory limit of one evaluator: a quarter of the
%% machine's memory, in words (0 when it cannot be read: no limit).
max_heap_words(default) ->
    case file:read_file("/proc/meminfo") of
        {ok, Info} ->
            case re:run(Info, <<"MemTotal:\\s+(\\d+) kB">>, [{capture, all_but_first, binary}]) of
                {match, [Kb]} ->
                    binary_to_integer(Kb) * 1024 div 4 div erlang:system_info(wordsize);
                nomatch -> 0
            end;
        _ -> 0
    end;
max_heap_words(Mb) when is_integer(Mb), Mb >= 0 ->
    Mb * 1024 * 1024 div erlang:system_info(wordsize).
