%% @doc The workspace server: the one registered process Python talks to
%% (DESIGN D3).  It owns named sessions, each with a bindings map that lives
%% on this node (D5), and evaluates the abstract forms the Python compiler
%% sends.
%%
%% Why inputs run in a session evaluator (beamtalk_evaluator), not in the
%% server: a crash, a runaway loop (`interrupt`), a timeout or the memory
%% limit must never touch the session; bindings are replaced only when an
%% evaluation succeeds, so nothing is half-applied.  The evaluator is kept
%% across inputs (ETS tables, links, monitors live on) and replaced only
%% when it dies; the reply that sees it go carries a notice saying what was
%% lost.  An evaluation belongs to the client that asked for it: when that
%% client goes away it is stopped, unless the request was `detached`.
%%
%% Why two kinds of module: an input that creates no funs is compiled into the
%% session's scratch module, reloaded for every such input, so the atom table
%% does not grow per input.  An input that creates funs runs in a module
%% lent by beamtalk_code_pool, which keeps that code alive while any of its
%% funs exists (closures stored in bindings, actor state or classes keep
%% working after any number of later inputs) and reuses the name after.
%%
%% Requests (gen_server calls): `{attach, Client, Session}` (the reply's
%% info has `other_clients`), `{binding_names, Session}`,
%% `{eval, Session, Req}` where Req is `#{forms := Forms}` (an input),
%% `#{load := [{Module, Forms}]}` (class modules, all or none) or
%% `#{tests := all | [ClassName], strict := boolean()}` (run BUnit tests;
%% answered `{tests, [ResultMap], Names}`), each optionally with `timeout`
%% (ms or infinity) and `detached` (true: runs on when its client goes);
%% an eval reply is `{ok, Text, Names}`, `{error, Kind, Text, Names}` or
%% `{tests, Results, Names}`, with the notice appended as one more element
%% when the session's evaluator was replaced; `{interrupt, S}` (or `{interrupt, S, Client}`:
%% the client's own request first), `{bindings, S}`, `{clear, S}`, `{forget, S, Name}`,
%% `{class_info, Names}`, `{transcript_subscribe, Pid}` and
%% `{transcript_unsubscribe, Pid}` (Pid then receives `{transcript, Text}`,
%% see beamtalk_transcript), `{stop_with, Pid}` (stop the node when Pid
%% exits: ephemeral workspaces), `sessions`, `info`, `ping`, `stop`.
-module(beamtalk_workspace).
-behaviour(gen_server).

-export([start/1, start_link/1, stop/0, lookup/2]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(SERVER, ?MODULE).
-define(DEFAULT_TIMEOUT, 30000).

%% A session: its bindings (the one source of truth for which names are
%% bound, DESIGN D5), its I/O server, its evaluator process (started on
%% first use and after a death), what that evaluator held when last seen
%% (`summary`, for the notice when it dies unseen), and a notice waiting to
%% ride on the next reply.  `seen` is the bindings map the evaluator holds
%% (none for a new one) and `stored` the one the store last committed: each
%% is handed only what changed since (beamtalk_bindings_delta).
-record(session, {name :: binary(),
                  bindings = #{} :: map(),
                  seen = none :: none | map(),
                  stored = #{} :: map(),
                  io :: pid(),
                  evaluator = none :: none | {pid(), reference()},
                  summary = #{} :: map(),
                  notice = none :: none | binary(),
                  running = none,          % none | #run{}
                  queue = queue:new()}).

%% A running request: the process running it (the evaluator, or a worker
%% of its own for loads and tests), the worker's monitor, the job's
%% reference, the requester's monitor (undefined for a detached request).
-record(run, {pid, mon, ref, from, timer, client_mon, in_evaluator = true}).

-record(st, {id :: binary(),
             owner = undefined :: undefined | reference(),
             dir :: binary(),
             started :: integer(),
             sessions = #{} :: #{binary() => #session{}},
             clients = #{} :: #{reference() => {pid(), binary()}},
             max_heap = 0 :: non_neg_integer(),   % words, 0 = no limit
             idle_ms = infinity :: infinity | pos_integer(),
             idle_timer = undefined}).

%%% API

start(Opts) ->
    gen_server:start({local, ?SERVER}, ?MODULE, Opts, []).

%% @doc As a supervisor's child (a node Beamtalk attached to: beamtalk_attach).
start_link(Opts) ->
    gen_server:start_link({local, ?SERVER}, ?MODULE, Opts, []).

stop() ->
    gen_server:call(?SERVER, stop).

%% @doc Read a session binding from generated code; an unbound name (cleared by
%% another client since this input was compiled) is the compile-time error
%% text, not a badkey crash.
lookup(Name, Bindings) ->
    case Bindings of
        #{Name := V} -> V;
        _ -> erlang:error({beamtalk_undefined_variable, Name})
    end.

%%% gen_server

init(Opts) ->
    process_flag(trap_exit, true),
    ok = beamtalk_crash_notes:install(),
    St = #st{id = maps:get(id, Opts, <<"default">>),
             dir = maps:get(dir, Opts, <<".">>),
             started = erlang:monotonic_time(millisecond),
             max_heap = beamtalk_evaluator:max_heap_words(maps:get(max_heap_mb, Opts, default)),
             idle_ms = maps:get(idle_ms, Opts, infinity)},
    %% Actors run with the same limit as evaluators (beamtalk_actor:start_link).
    persistent_term:put(beamtalk_actor_max_heap, St#st.max_heap),
    {ok, schedule_idle(restored(St))}.

handle_call({attach, Client, SessionName}, _From, St0) ->
    Others = length([P || {P, N} <- maps:values(St0#st.clients),
                          N =:= SessionName, P =/= Client]),
    Mon = erlang:monitor(process, Client),
    St1 = cancel_idle(St0#st{clients = maps:put(Mon, {Client, SessionName}, St0#st.clients)}),
    {S, St2} = session(SessionName, St1),
    {reply, {ok, (info(St2, S))#{other_clients => Others}}, St2};
handle_call({binding_names, SessionName}, _From, St) ->
    Names = case maps:find(SessionName, St#st.sessions) of
                {ok, #session{bindings = B}} -> lists:sort(maps:keys(B));
                error -> []
            end,
    {reply, {ok, Names}, St};
handle_call({eval, SessionName, Req}, From, St0) ->
    {S, St1} = session(SessionName, St0),
    case S#session.running of
        none -> {noreply, start_eval(S, From, Req, St1)};
        _ -> Q = queue:in({From, Req}, S#session.queue),
             {noreply, put_session(S#session{queue = Q}, St1)}
    end;
handle_call({interrupt, SessionName, Client}, From, St) ->
    %% A client's interrupt (Ctrl-C at its prompt) is about what it waits
    %% for: its own running request, or else its own queued ones, which are
    %% answered Interrupted while another client's run goes on.  A client
    %% with nothing of its own in the session stops the session's run.
    case maps:find(SessionName, St#st.sessions) of
        {ok, #session{running = #run{from = {Client, _}}}} ->
            handle_call({interrupt, SessionName}, From, St);
        {ok, #session{queue = Q} = S} ->
            case lists:partition(fun({{P, _}, _}) -> P =:= Client end, queue:to_list(Q)) of
                {[], _} ->
                    handle_call({interrupt, SessionName}, From, St);
                {Mine, Others} ->
                    Names = lists:sort(maps:keys(S#session.bindings)),
                    Text = <<"Interrupted: the input had not started (another client's evaluation "
                             "was running in this session)">>,
                    [gen_server:reply(F, {error, interrupted, Text, Names}) || {F, _} <- Mine],
                    {reply, ok, put_session(S#session{queue = queue:from_list(Others)}, St)}
            end;
        error ->
            {reply, idle, St}
    end;
handle_call({interrupt, SessionName}, _From, St) ->
    case maps:find(SessionName, St#st.sessions) of
        {ok, #session{running = #run{}} = S} ->
            Text = beamtalk_where:stopped(<<"Interrupted">>, running_pid(S)),
            S1 = stop_running(S, <<"was stopped by the interrupt">>),
            {reply, ok, finish(S1, {error, interrupted, Text}, St)};
        _ ->
            {reply, idle, St}
    end;
handle_call({bindings, SessionName}, _From, St) ->
    {S, St1} = session(SessionName, St),
    Pairs = [{K, safe_print(V)} || {K, V} <- lists:sort(maps:to_list(S#session.bindings)), K =/= '_'],
    {reply, {ok, Pairs}, St1};
handle_call({clear, SessionName}, _From, St) ->
    {S, St1} = session(SessionName, St),
    beamtalk_store:session_cleared(SessionName),
    {reply, ok, put_session(S#session{bindings = #{}, stored = #{}}, St1)};
handle_call({forget, SessionName, Name}, _From, St) ->
    %% `:forget x` (the Erlang shell's `f(X)`): one binding; the evaluator's
    %% copy learns it from the next job's delta, the store here
    {S, St1} = session(SessionName, St),
    case S#session.bindings of
        #{Name := _} = B0 ->
            B = maps:remove(Name, B0),
            beamtalk_store:evaluation_done(SessionName, beamtalk_bindings_delta:diff(durable(S#session.stored),
                                                                                     durable(B))),
            {reply, ok, put_session(S#session{bindings = B, stored = B}, St1)};
        _ ->
            {reply, unbound, St1}
    end;
handle_call({class_info, Names}, _From, St) ->
    {reply, {ok, class_info(Names)}, St};
handle_call({stop_with, Pid}, _From, St) ->
    %% An ephemeral workspace (`beamtalk test`) ends with its owner, also
    %% when the owner is killed or its connection drops.
    {reply, ok, St#st{owner = erlang:monitor(process, Pid)}};
handle_call({transcript_subscribe, Pid}, _From, St) ->
    {reply, catch beamtalk_transcript:subscribe(Pid), St};
handle_call(transcript_recent, _From, St) ->
    {reply, catch beamtalk_transcript:recent(), St};
handle_call({transcript_unsubscribe, Pid}, _From, St) ->
    {reply, catch beamtalk_transcript:unsubscribe(Pid), St};
handle_call(sessions, _From, St) ->
    {reply, {ok, lists:sort(maps:keys(St#st.sessions))}, St};
handle_call(info, _From, St) ->
    {reply, {ok, info(St, undefined)}, St};
handle_call(compiler_status, _From, St) ->
    %% The compiler peer and the file watches (beamtalk_watch), for
    %% `beamtalk workspace status`.
    {reply, {ok, #{peer => beamtalk_compiler_peer:status(),
                   watches => try beamtalk:watches() catch _:_ -> [] end}}, St};
handle_call(ping, _From, St) ->
    {reply, pong, St};
handle_call(stop, _From, St) ->
    %% Reply first, then stop the node: the caller is told it worked.
    note_stopped(St, <<"`beamtalk workspace stop`">>),
    timer:apply_after(50, init, stop, []),
    {reply, ok, St};
%% Completion and `:help` (beamtalk_complete): `{complete, Session, Req}`
%% reads the session's bindings without creating the session and answers
%% from a process of its own, so a slow answer (the code path scanned for
%% module names) never holds up the server; `{docs, ClassName}`.
handle_call({complete, SessionName, Req}, From, St) ->
    Bindings = case maps:find(SessionName, St#st.sessions) of
                   {ok, #session{bindings = B}} -> named_binding(Req, B);
                   error -> #{}
               end,
    spawn(fun() ->
                  Reply = try beamtalk_complete:complete(Bindings, Req)
                          catch _:_ -> {ok, []}
                          end,
                  gen_server:reply(From, Reply)
          end),
    {noreply, St};
handle_call({docs, Name}, _From, St) ->
    {reply, try beamtalk_complete:docs(Name) catch _:_ -> {error, not_found} end, St};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast(_Msg, St) ->
    {noreply, St}.

%% Completion reads at most the one binding its request names: the
%% completing process is handed that, not a copy of every bound value.
named_binding({selectors, {chain, Base, _}}, B) -> named_binding({selectors, Base}, B);
named_binding({selectors, {binding, Name}}, B) -> maps:with([Name], B);
named_binding(_, _) -> #{}.

handle_info({eval_done, _Pid, Ref, Result}, St) ->
    case find_session(fun(#session{running = R}) -> is_record(R, run) andalso R#run.ref =:= Ref end, St) of
        {ok, S} -> {noreply, observe(complete(S, Result, St), S#session.name)};
        error -> {noreply, St}
    end;
handle_info({eval_timeout, Ref}, St) ->
    case find_session(fun(#session{running = R}) -> is_record(R, run) andalso R#run.ref =:= Ref end, St) of
        {ok, S} ->
            Text = beamtalk_where:stopped(<<"Request timed out">>, running_pid(S)),
            S1 = stop_running(S, <<"was stopped when the request timed out">>),
            {noreply, finish(S1, {error, timeout, Text}, St)};
        error -> {noreply, St}
    end;
handle_info({beamtalk_input_wait, Io, Waiting}, St) ->
    %% The request's timeout counts time spent running, not time spent
    %% waiting for the person at the REPL to type a line (beamtalk_io).
    case find_session(fun(#session{io = I, running = R}) -> I =:= Io andalso is_record(R, run) end, St) of
        {ok, #session{running = R} = S} ->
            Timer = case {Waiting, R#run.timer} of
                        {true, T} when is_reference(T) ->
                            case erlang:cancel_timer(T) of
                                Left when is_integer(Left) -> {paused, Left};
                                false -> T           % already fired: its message decides
                            end;
                        {false, {paused, Left}} -> erlang:send_after(Left, self(), {eval_timeout, R#run.ref});
                        {_, T} -> T
                    end,
            {noreply, put_session(S#session{running = R#run{timer = Timer}}, St)};
        error -> {noreply, St}
    end;
handle_info({'DOWN', Mon, process, _Pid, _Reason}, #st{owner = Mon} = St) ->
    io:format(user, "beamtalk workspace ~ts: its owner has gone, stopping~n", [St#st.id]),
    note_stopped(St, <<"its --ephemeral client has gone">>),
    init:stop(),
    {noreply, St};
handle_info({'DOWN', Mon, process, Pid, Reason}, St) ->
    case maps:take(Mon, St#st.clients) of
        {{Client, _Session}, Clients} ->
            {noreply, schedule_idle(client_gone(Client, St#st{clients = Clients}))};
        error ->
            {noreply, process_down(Mon, Pid, Reason, St)}
    end;
handle_info(idle_timeout, St) ->
    case maps:size(St#st.clients) =:= 0 andalso not any_running(St) of
        true ->
            io:format(user, "beamtalk workspace ~ts: idle timeout, stopping~n", [St#st.id]),
            note_stopped(St, <<"its idle timeout">>),
            init:stop(),
            {noreply, St};
        false ->
            {noreply, St#st{idle_timer = undefined}}
    end;
handle_info(_Msg, St) ->
    {noreply, St}.

terminate(_Reason, _St) -> ok.

code_change(_Old, St, _Extra) -> {ok, St}.

%%% Sessions

%% The sessions of the last run (beamtalk_restore).  Restored input modules
%% keep their names: beamtalk_code_pool never lends a name that has code.
restored(St) ->
    Sessions = maps:map(fun(Name, B) -> #session{name = Name, bindings = B, stored = B,
                                                 io = beamtalk_io:start()} end,
                        beamtalk_restore:sessions()),
    St#st{sessions = Sessions}.

session(Name, St) ->
    case maps:find(Name, St#st.sessions) of
        {ok, S} -> {S, St};
        error ->
            S = #session{name = Name, io = beamtalk_io:start()},
            {S, put_session(S, St)}
    end.

put_session(S, St) ->
    St#st{sessions = maps:put(S#session.name, S, St#st.sessions)}.

find_session(Pred, St) ->
    case [S || S <- maps:values(St#st.sessions), Pred(S)] of
        [S | _] -> {ok, S};
        [] -> error
    end.

any_running(St) ->
    lists:any(fun(#session{running = R}) -> R =/= none end, maps:values(St#st.sessions)).

%%% Evaluation

%% Forms run in the session's evaluator (started here when there is none);
%% loads, packages and tests run in a worker of their own, as they need no
%% process state and must not leave any in the evaluator.
start_eval(S0, {Client, Tag} = From, Req, St0) ->
    St = cancel_idle(St0),
    beamtalk_io:begin_request(S0#session.io, Client, Tag),
    {Mod, St1} = module_for(S0#session.name, maps:get(module, Req, scratch), St),
    Ref = make_ref(),
    {S, Run0} = case Req of
                    #{forms := _} ->
                        S1 = ensure_evaluator(S0, St1),
                        {Pid, _} = S1#session.evaluator,
                        B = S1#session.bindings,
                        Update = case S1#session.seen of
                                     none -> {full, B};
                                     Seen -> beamtalk_bindings_delta:diff(Seen, B)
                                 end,
                        beamtalk_evaluator:run(Pid, Ref, beamtalk_eval_jobs:job(Req, Mod, Update)),
                        {S1#session{seen = B}, #run{pid = Pid}};
                    _ ->
                        Job = beamtalk_eval_jobs:job(Req, Mod, none),
                        {Pid, Mon} = spawn_worker(S0#session.io, Ref, Job),
                        {S0, #run{pid = Pid, mon = Mon, in_evaluator = false}}
                end,
    %% The requester is watched: an evaluation nobody waits for any more is
    %% stopped, unless it was asked for as detached.
    ClientMon = case maps:get(detached, Req, false) of
                    true -> undefined;
                    _ -> erlang:monitor(process, Client)
                end,
    Timer = case maps:get(timeout, Req, ?DEFAULT_TIMEOUT) of
                infinity -> undefined;
                Timeout -> erlang:send_after(Timeout, self(), {eval_timeout, Ref})
            end,
    Run = Run0#run{ref = Ref, from = From, timer = Timer, client_mon = ClientMon},
    put_session(S#session{running = Run}, St1).

ensure_evaluator(#session{evaluator = none} = S, St) ->
    S#session{evaluator = beamtalk_evaluator:start(S#session.io, St#st.max_heap),
              summary = #{}, seen = none};
ensure_evaluator(S, _St) ->
    S.

spawn_worker(Io, Ref, Job) ->
    Server = self(),
    spawn_monitor(fun() ->
                          group_leader(Io, self()),
                          Server ! {eval_done, self(), Ref, Job()}
                  end).

module_for(Session, scratch, St) ->
    {binary_to_atom(<<"bt@repl@", Session/binary>>, utf8), St};
module_for(_Session, none, St) ->
    {none, St};
module_for(_Session, unique, St) ->
    {unique, St}.

%% Kill what runs the session's request (interrupt, timeout, requester
%% gone).  Killing the evaluator ends its process state: what it held is
%% read first, for the notice on the reply.
stop_running(#session{running = #run{in_evaluator = false, pid = Pid}} = S, _Why) ->
    exit(Pid, kill),
    S;
stop_running(#session{running = #run{}, evaluator = {Pid, Mon}} = S, Why) ->
    Summary = beamtalk_evaluator:summary(Pid),
    exit(Pid, kill),
    erlang:demonitor(Mon, [flush]),
    add_notice(S#session{evaluator = none, summary = #{}},
               beamtalk_evaluator:death_text(Why, {seen, Summary})).

%% The process running the session's request (where it was is told
%% before it is stopped: beamtalk_where).
running_pid(#session{running = #run{in_evaluator = false, pid = Pid}}) -> Pid;
running_pid(#session{evaluator = {Pid, _}}) -> Pid;
running_pid(_) -> undefined.

add_notice(#session{notice = none} = S, Text) -> S#session{notice = Text};
add_notice(#session{notice = Old} = S, Text) -> S#session{notice = <<Old/binary, " ", Text/binary>>}.

%% After a reply, note what the evaluator holds, so a death nobody saw
%% coming (memory limit, a linked process's exit) can still say what went.
observe(St, Name) ->
    case maps:find(Name, St#st.sessions) of
        {ok, #session{evaluator = {Pid, _}, running = none} = S} ->
            put_session(S#session{summary = beamtalk_evaluator:summary(Pid)}, St);
        _ -> St
    end.

%% A client went away: drop its queued requests, stop the request it is
%% waiting for (its requester monitor fires too, see process_down/4).
client_gone(Client, St) ->
    Sessions = maps:map(fun(_, S) ->
                                Q = queue:filter(fun({{P, _}, _}) -> P =/= Client end,
                                                 S#session.queue),
                                S#session{queue = Q}
                        end, St#st.sessions),
    St#st{sessions = Sessions}.

process_down(Mon, Pid, Reason, St) ->
    ByClient = fun(#session{running = R}) -> is_record(R, run) andalso R#run.client_mon =:= Mon end,
    ByWorker = fun(#session{running = R}) -> is_record(R, run) andalso R#run.mon =:= Mon end,
    ByEvaluator = fun(#session{evaluator = E}) -> E =:= {Pid, Mon} end,
    case find_session(ByClient, St) of
        {ok, S} ->
            %% Nobody waits for this reply: stop the evaluation, apply none of it.
            {From, _} = (S#session.running)#run.from,
            St1 = client_gone(From, St),
            {ok, SF} = maps:find(S#session.name, St1#st.sessions),
            S1 = stop_running(SF, <<"was stopped because its client went away">>),
            finish(S1#session{notice = none},
                   {error, interrupted, <<"Interrupted: the client went away">>},
                   S1#session.notice, St1);
        error ->
            case find_session(ByWorker, St) of
                {ok, S} ->
                    Text = iolist_to_binary(["The request's process exited: ",
                                             beamtalk_errors:reason_text(Reason)]),
                    finish(S, {error, internal, Text}, St);
                error ->
                    case find_session(ByEvaluator, St) of
                        {ok, S} -> evaluator_down(S, Reason, St);
                        error -> St
                    end
            end
    end.

%% The evaluator died by itself: killed at its memory limit, or an exit
%% signal (a linked process ended) it did not trap.  A running request
%% fails with that reason; either way the next input gets a new evaluator
%% and the reply names what was lost.  The full reason is `_error details`.
%% `killed` is the memory limit only while it runs an input: an idle one
%% allocates nothing, so there it came from a link (a linked actor killed)
%% or `exit(Pid, kill)`, and is told as the exit it is.
evaluator_down(S0, Reason, St) ->
    S = S0#session{evaluator = none},
    Running = case S#session.running of
                  #run{in_evaluator = true} -> true;
                  _ -> false
              end,
    {Why, Kind, Text, Ex} =
        case Reason of
            killed when Running ->
                Mb = St#st.max_heap * erlang:system_info(wordsize) div (1024 * 1024),
                T = iolist_to_binary(io_lib:format(
                      "ERROR: memory limit: the evaluation used more than ~b MB of memory and was "
                      "stopped (the workspace's limit, BEAMTALK_MAX_HEAP_MB when it starts)", [Mb])),
                {<<"was stopped at its memory limit">>, memory_limit, T, none};
            _ ->
                E = beamtalk_errors:exit_signal(Reason),
                {<<"exited: ", (beamtalk_errors:reason_text(Reason))/binary>>, runtime,
                 beamtalk_errors:format(E), E}
        end,
    S1 = add_notice(S#session{summary = #{}}, beamtalk_evaluator:death_text(Why, {last, S#session.summary})),
    S2 = case Ex of
             none -> S1;
             _ -> S1#session{bindings = maps:put('_error', Ex, S1#session.bindings)}
         end,
    case Running of
        true -> finish(S2, {error, Kind, Text}, St);
        false -> put_session(S2, St)
    end.

%% Evaluation finished normally (the evaluator sent its result).
complete(S, {ok, Text, undefined}, St) ->
    finish(S, {ok, Text}, St);
complete(#session{bindings = B, seen = B} = S, {ok, Text, {delta, _, _} = Delta}, St) ->
    %% the input's changes, applied to the evaluator's copy and ours (the
    %% same map unless the bindings were cleared while it ran)
    New = beamtalk_bindings_delta:patch(B, Delta),
    finish(S#session{bindings = New, seen = New}, {ok, Text}, St);
complete(S, {ok, Text, {delta, _, _} = Delta}, St) ->
    finish(S#session{bindings = beamtalk_bindings_delta:patch(S#session.bindings, Delta),
                     seen = case S#session.seen of
                                none -> none;
                                Seen -> beamtalk_bindings_delta:patch(Seen, Delta)
                            end}, {ok, Text}, St);
complete(S, {ok, Text, same}, St) ->
    finish(S, {ok, Text}, St);
complete(S, {runtime_error, Text, Ex}, St) ->
    Bindings = maps:put('_error', Ex, S#session.bindings),
    finish(S#session{bindings = Bindings}, {error, runtime, Text}, St);
complete(S, {undefined_variable, Text}, St) ->
    finish(S, {error, undefined_variable, Text}, St);
complete(S, {internal, Text}, St) ->
    finish(S, {error, internal, Text}, St);
complete(S, {tests, Results}, St) ->
    finish(S, {tests, Results}, St).

%% Send the reply (with the session's pending notice, if any) and start
%% the next queued request.  Keep is a notice for the *next* reply.
finish(S, Outcome, St) ->
    finish(S, Outcome, none, St).

%% What the store keeps of a session's bindings: not `_`, the last value
%% (like a shell's, it does not outlive the node, and a restore does not
%% count it as one of the user's bindings).
durable(Bindings) -> maps:remove('_', Bindings).

finish(#session{running = #run{ref = Ref, mon = Mon, from = {_, Tag}, timer = Timer,
                               client_mon = ClientMon}} = S,
       Outcome, Keep, St) ->
    _ = Mon =/= undefined andalso erlang:demonitor(Mon, [flush]),
    _ = ClientMon =/= undefined andalso erlang:demonitor(ClientMon, [flush]),
    _ = is_reference(Timer) andalso erlang:cancel_timer(Timer),
    flush_done(Ref),
    %% Durable before the user sees the reply (beamtalk_store).
    beamtalk_store:evaluation_done(S#session.name,
                                   beamtalk_bindings_delta:diff(durable(S#session.stored),
                                                                durable(S#session.bindings))),
    Names = lists:sort(maps:keys(S#session.bindings)),
    Reply0 = case Outcome of
                 {ok, Text} -> {ok, Text, Names};
                 {tests, Results} -> {tests, Results, Names};
                 {error, Kind, Text} -> {error, Kind, Text, Names}
             end,
    %% A notice rides as one more element: {ok, Text, Names, Notice}, ...
    Reply = case S#session.notice of
                none -> Reply0;
                Notice -> erlang:append_element(Reply0, Notice)
            end,
    beamtalk_io:finish_request(S#session.io, Tag, Reply),
    next(S#session{running = none, notice = Keep, stored = S#session.bindings}, St).

flush_done(Ref) ->
    receive {eval_done, _, Ref, _} -> ok after 0 -> ok end,
    receive {eval_timeout, Ref} -> ok after 0 -> ok end.

next(S, St) ->
    case queue:out(S#session.queue) of
        {{value, {From, Req}}, Q} ->
            start_eval(S#session{queue = Q}, From, Req, St);
        {empty, _} ->
            schedule_idle(put_session(S, St))
    end.

%%% Info and idle timeout

info(St, S) ->
    Base = #{id => St#st.id,
             node => node(),
             os_pid => list_to_binary(os:getpid()),
             uptime_ms => erlang:monotonic_time(millisecond) - St#st.started,
             sessions => lists:sort(maps:keys(St#st.sessions)),
             clients => maps:size(St#st.clients),
             otp_release => list_to_binary(erlang:system_info(otp_release)),
             classes => length(beamtalk_complete:class_names()),
             actors => beamtalk_complete:actor_count(),
             runtime => unicode:characters_to_binary(filename:dirname(code:which(?MODULE))),
             stdlib => case code:which('bt@stdlib@object') of
                           P when is_list(P) -> unicode:characters_to_binary(filename:dirname(P));
                           _ -> <<>>
                       end},
    case S of
        undefined -> Base;
        #session{name = N, bindings = B} ->
            Base#{session => N, bindings => lists:sort(maps:keys(B))}
    end.

%% What the compiler needs to know of classes it did not define itself: the
%% kind (actor/value/object), its own fields and its superclass,
%% for every class on the way up the chain.
class_info(Names) ->
    class_info(Names, #{}, []).

class_info([], _Seen, Acc) ->
    lists:reverse(Acc);
class_info([Name | Rest], Seen, Acc) when is_map_key(Name, Seen) ->
    class_info(Rest, Seen, Acc);
class_info([Name | Rest], Seen, Acc) ->
    case catch beamtalk_class:info(Name) of
        {ok, #{kind := Kind, fields := Fields, superclass := Super} = Info} ->
            Next = case Super of nil -> Rest; _ -> [Super | Rest] end,
            Abstract = maps:get(abstract, Info, false),
            %% a protected (stdlib) class never changes: clients may keep its entry
            Protected = maps:get(protected, Info, false),
            Module = maps:get(module, Info, nil),
            class_info(Next, Seen#{Name => true},
                       [{Name, Kind, Fields, Super, Abstract, Protected, Module} | Acc]);
        _ ->
            class_info(Rest, Seen#{Name => true}, Acc)
    end.

safe_print(V) ->
    try beamtalk_print:print_string(V)
    catch _:_ -> <<"<unprintable>">>
    end.

schedule_idle(#st{idle_ms = infinity} = St) -> St;
schedule_idle(St0) ->
    St = cancel_idle(St0),
    case maps:size(St#st.clients) =:= 0 andalso not any_running(St) of
        true -> St#st{idle_timer = erlang:send_after(St#st.idle_ms, self(), idle_timeout)};
        false -> St
    end.

cancel_idle(#st{idle_timer = undefined} = St) -> St;
cancel_idle(#st{idle_timer = T} = St) ->
    _ = erlang:cancel_timer(T),
    receive idle_timeout -> ok after 0 -> ok end,
    St#st{idle_timer = undefined}.


%% Why this node stopped, for a client that finds it gone (`node.stopped`:
%% "OsPid Reason"): a stop asked for is not reported as a death.  Only in a
%% workspace directory of ours (it has node.info); never in the working
%% directory of a node we attached to.
note_stopped(#st{dir = Dir}, Why) ->
    case filelib:is_regular(filename:join(Dir, "node.info")) of
        true ->
            Path = filename:join(Dir, "node.stopped"),
            _ = file:write_file(Path, [os:getpid(), " ", Why, "\n"]),
            _ = file:change_mode(Path, 8#600),
            ok;
        false ->
            ok
    end.
