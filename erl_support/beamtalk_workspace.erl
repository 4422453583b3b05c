%% @doc The workspace server: the one registered process Python talks to
%% (DESIGN D3).  It owns named sessions, each with a bindings map that lives
%% on this node (D5), and evaluates the abstract forms the Python compiler
%% sends.
%%
%% Why evaluations run in their own process: a crash, a runaway loop
%% (`interrupt`) or a timeout must never touch the session; bindings are
%% replaced only when an evaluation succeeds, so nothing is half-applied.
%%
%% Why two kinds of module: an input that creates no funs is compiled into the
%% session's scratch module, reloaded for every such input, so the atom table
%% does not grow per input.  An input that creates funs gets a module of its
%% own that is never purged, so closures stored in bindings, actor state or
%% classes keep working after any number of later inputs.
%%
%% Requests (gen_server calls): `{attach, Client, Session}`,
%% `{eval, Session, Req}` where Req is `#{forms := Forms}` (an input),
%% `#{load := [{Module, Forms}]}` (class modules, all or none) or
%% `#{tests := all | [ClassName], strict := boolean()}` (run BUnit tests;
%% answered `{tests, [ResultMap], Names}`), each optionally with `timeout`
%% (ms or infinity); `{interrupt, S}`, `{bindings, S}`, `{clear, S}`,
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

-record(session, {name :: binary(),
                  bindings = #{} :: map(),
                  io :: pid(),
                  running = none,          % none | #run{}
                  queue = queue:new()}).

-record(run, {pid, mon, from, timer}).

-record(st, {id :: binary(),
             owner = undefined :: undefined | reference(),
             dir :: binary(),
             started :: integer(),
             sessions = #{} :: #{binary() => #session{}},
             clients = #{} :: #{reference() => pid()},
             counter = 0 :: non_neg_integer(),
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
    St = #st{id = maps:get(id, Opts, <<"default">>),
             dir = maps:get(dir, Opts, <<".">>),
             started = erlang:monotonic_time(millisecond),
             idle_ms = maps:get(idle_ms, Opts, infinity)},
    {ok, schedule_idle(St)}.

handle_call({attach, Client, SessionName}, _From, St0) ->
    Mon = erlang:monitor(process, Client),
    St1 = cancel_idle(St0#st{clients = maps:put(Mon, Client, St0#st.clients)}),
    {S, St2} = session(SessionName, St1),
    {reply, {ok, info(St2, S)}, St2};
handle_call({eval, SessionName, Req}, From, St0) ->
    {S, St1} = session(SessionName, St0),
    case S#session.running of
        none -> {noreply, start_eval(S, From, Req, St1)};
        _ -> Q = queue:in({From, Req}, S#session.queue),
             {noreply, put_session(S#session{queue = Q}, St1)}
    end;
handle_call({interrupt, SessionName}, _From, St) ->
    case maps:find(SessionName, St#st.sessions) of
        {ok, #session{running = #run{pid = Pid}} = S} ->
            exit(Pid, kill),
            St1 = finish(S, {error, interrupted, <<"Interrupted">>}, St),
            {reply, ok, St1};
        _ ->
            {reply, idle, St}
    end;
handle_call({bindings, SessionName}, _From, St) ->
    {S, St1} = session(SessionName, St),
    Pairs = [{K, safe_print(V)} || {K, V} <- lists:sort(maps:to_list(S#session.bindings))],
    {reply, {ok, Pairs}, St1};
handle_call({clear, SessionName}, _From, St) ->
    {S, St1} = session(SessionName, St),
    {reply, ok, put_session(S#session{bindings = #{}}, St1)};
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
handle_call(ping, _From, St) ->
    {reply, pong, St};
handle_call(stop, _From, St) ->
    %% Reply first, then stop the node: the caller is told it worked.
    timer:apply_after(50, init, stop, []),
    {reply, ok, St};
%% Completion and `:help` (beamtalk_complete): `{complete, Session, Req}`
%% reads the session's bindings without creating the session and answers
%% from a process of its own, so a slow answer (the code path scanned for
%% module names) never holds up the server; `{docs, ClassName}`.
handle_call({complete, SessionName, Req}, From, St) ->
    Bindings = case maps:find(SessionName, St#st.sessions) of
                   {ok, #session{bindings = B}} -> B;
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

handle_info({eval_done, Pid, Result}, St) ->
    case running_session(Pid, St) of
        {ok, S} -> {noreply, complete(S, Result, St)};
        error -> {noreply, St}
    end;
handle_info({eval_timeout, Pid}, St) ->
    case running_session(Pid, St) of
        {ok, S} ->
            exit(Pid, kill),
            {noreply, finish(S, {error, timeout, <<"Request timed out">>}, St)};
        error -> {noreply, St}
    end;
handle_info({'DOWN', Mon, process, _Pid, _Reason}, #st{owner = Mon} = St) ->
    io:format(user, "beamtalk workspace ~ts: its owner has gone, stopping~n", [St#st.id]),
    init:stop(),
    {noreply, St};
handle_info({'DOWN', Mon, process, Pid, Reason}, St) ->
    case maps:take(Mon, St#st.clients) of
        {_Client, Clients} ->
            {noreply, schedule_idle(St#st{clients = Clients})};
        error ->
            case running_session(Pid, St) of
                {ok, S} ->
                    Text = iolist_to_binary(io_lib:format(
                             "The evaluation process died unexpectedly: ~tp", [Reason])),
                    {noreply, finish(S, {error, internal, Text}, St)};
                error -> {noreply, St}
            end
    end;
handle_info(idle_timeout, St) ->
    case maps:size(St#st.clients) =:= 0 andalso not any_running(St) of
        true ->
            io:format(user, "beamtalk workspace ~ts: idle timeout, stopping~n", [St#st.id]),
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

session(Name, St) ->
    case maps:find(Name, St#st.sessions) of
        {ok, S} -> {S, St};
        error ->
            S = #session{name = Name, io = beamtalk_io:start()},
            {S, put_session(S, St)}
    end.

put_session(S, St) ->
    St#st{sessions = maps:put(S#session.name, S, St#st.sessions)}.

running_session(Pid, St) ->
    Found = [S || S = #session{running = #run{pid = P}} <- maps:values(St#st.sessions),
                  P =:= Pid],
    case Found of
        [S] -> {ok, S};
        [] -> error
    end.

any_running(St) ->
    lists:any(fun(#session{running = R}) -> R =/= none end, maps:values(St#st.sessions)).

%%% Evaluation

start_eval(S, {Client, Tag} = From, Req, St0) ->
    St = cancel_idle(St0),
    beamtalk_io:begin_request(S#session.io, Client, Tag),
    {Mod, St1} = module_for(S#session.name, maps:get(module, Req, scratch), St),
    Server = self(),
    Io = S#session.io,
    Bindings = S#session.bindings,
    Pid = spawn(fun() ->
                        group_leader(Io, self()),
                        Result = case Req of
                                     #{load := Modules} -> load_modules(Modules);
                                     #{package := {Dir, App}} -> load_package(Dir, App);
                                     #{tests := Which} ->
                                         run_tests(Which, maps:get(strict, Req, true));
                                     #{forms := Forms} -> evaluate(Mod, Forms, Bindings)
                                 end,
                        Server ! {eval_done, self(), Result}
                end),
    Mon = erlang:monitor(process, Pid),
    Timer = case maps:get(timeout, Req, ?DEFAULT_TIMEOUT) of
                infinity -> undefined;
                Timeout -> erlang:send_after(Timeout, self(), {eval_timeout, Pid})
            end,
    Run = #run{pid = Pid, mon = Mon, from = From, timer = Timer},
    put_session(S#session{running = Run}, St1).

module_for(Session, scratch, St) ->
    {binary_to_atom(<<"bt@repl@", Session/binary>>, utf8), St};
module_for(_Session, none, St) ->
    {none, St};
module_for(_Session, unique, St) ->
    N = St#st.counter + 1,
    {binary_to_atom(<<"bt@repl@e", (integer_to_binary(N))/binary>>, utf8),
     St#st{counter = N}}.

evaluate(Mod, Forms, Bindings) ->
    case compile_forms(Mod, Forms) of
        {ok, Bin} ->
            _ = code:purge(Mod),
            case code:load_binary(Mod, "beamtalk_repl", Bin) of
                {module, Mod} -> run(Mod, Bindings);
                {error, What} ->
                    {internal, iolist_to_binary(io_lib:format("Cannot load ~ts: ~tp", [Mod, What]))}
            end;
        {error, Text} ->
            {internal, Text}
    end.

compile_forms(Mod, [{attribute, A, module, _} | Rest]) ->
    Opts = [binary, return_errors, nowarn_unused_vars, nowarn_shadow_vars, no_spawn_compiler_process],
    case compile:forms([{attribute, A, module, Mod} | Rest], Opts) of
        {ok, Mod, Bin} -> {ok, Bin};
        {ok, Mod, Bin, _Warnings} -> {ok, Bin};
        {error, Errors, _Warnings} ->
            {error, iolist_to_binary(io_lib:format(
                      "Internal compiler error: the generated code was rejected: ~tp", [Errors]))}
    end;
compile_forms(_Mod, _Forms) ->
    {error, <<"Internal compiler error: the forms do not start with a module attribute">>}.

%% Compile every module first; load only if all compiled, so a load that
%% fails changes nothing that is loaded.  Loading runs each module's on_load
%% hook, which registers (or hot-reloads) its class.
load_modules(Modules) ->
    Compiled = [{Mod, compile_forms(Mod, Forms)} || {Mod, Forms} <- Modules],
    case [Text || {_, {error, Text}} <- Compiled] of
        [Text | _] -> {internal, Text};
        [] ->
            try
                [load_one(Mod, Bin) || {Mod, {ok, Bin}} <- Compiled],
                beamtalk_cluster:loaded([{Mod, Bin} || {Mod, {ok, Bin}} <- Compiled]),
                {ok, <<"ok">>, undefined}
            catch
                throw:{load_failed, Text} -> {internal, Text};
                C:R:S -> runtime_error(C, R, S)
            end
    end.

load_one(Mod, Bin) ->
    load_with(Mod, fun() -> code:load_binary(Mod, atom_to_list(Mod) ++ ".beam", Bin) end).

%% A built package (seed ADR 0026 Phase 4): put its ebin on the code path and
%% load, parents first (the order of the `.app` file's `classes`), every class
%% module that is not loaded or whose loaded code differs from its `.beam`
%% file: a reconnect with nothing changed reloads nothing, and a rebuilt
%% class hot-reloads while its actors keep running.  Answers how many
%% modules were (re)loaded.
load_package(DirBin, App) ->
    Dir = unicode:characters_to_list(DirBin),
    AppFile = filename:join(Dir, atom_to_list(App) ++ ".app"),
    case file:consult(AppFile) of
        {ok, [{application, App, Props}]} ->
            Env = proplists:get_value(env, Props, []),
            Mods = [M || {M, _Class, _Super} <- proplists:get_value(classes, Env, [])],
            _ = code:add_patha(Dir),
            try
                Changed = [M || M <- Mods, changed(M, Dir)],
                [load_with(M, fun() -> code:load_abs(filename:join(Dir, atom_to_list(M))) end)
                 || M <- Changed],
                {ok, integer_to_binary(length(Changed)), undefined}
            catch
                throw:{load_failed, Text} -> {internal, Text};
                C:R:S -> runtime_error(C, R, S)
            end;
        Other ->
            {internal, iolist_to_binary(io_lib:format("Cannot read ~ts: ~tp", [AppFile, Other]))}
    end.

changed(Mod, Dir) ->
    case code:is_loaded(Mod) of
        false -> true;
        {file, _} ->
            case beam_lib:md5(filename:join(Dir, atom_to_list(Mod) ++ ".beam")) of
                {ok, {Mod, MD5}} -> Mod:module_info(md5) =/= MD5;
                _ -> true
            end
    end.

load_with(Mod, Load) ->
    _ = code:purge(Mod),
    case Load() of
        {module, Mod} -> ok;
        {error, on_load_failure} ->
            Key = {beamtalk_load_error, Mod},
            case persistent_term:get(Key, undefined) of
                undefined ->
                    throw({load_failed, iolist_to_binary(
                                          io_lib:format("Loading ~ts failed: its class could not be registered",
                                                        [Mod]))});
                Ex ->
                    persistent_term:erase(Key),
                    throw({load_failed, beamtalk_errors:format(Ex)})
            end;
        {error, What} ->
            throw({load_failed, iolist_to_binary(io_lib:format("Cannot load ~ts: ~tp", [Mod, What]))})
    end.

run(Mod, Bindings) ->
    try Mod:eval(Bindings) of
        {Value, NewBindings} ->
            try beamtalk_print:print_string(Value) of
                Text -> {ok, Text, NewBindings}
            catch C2:R2:S2 -> runtime_error(C2, R2, S2)
            end
    catch
        error:{beamtalk_undefined_variable, Name} ->
            {undefined_variable,
             iolist_to_binary(["Undefined variable: ", atom_to_binary(Name, utf8)])};
        C:R:S -> runtime_error(C, R, S)
    end.

%% The `tests` request: run the tests of `all` TestCase subclasses or of the
%% named classes (see beamtalk_test_runner:run_named/2); the reply carries
%% one result map per test.
run_tests(Which, Strict) ->
    try beamtalk_test_runner:run_named(Which, Strict) of
        Results -> {tests, Results}
    catch C:R:S -> runtime_error(C, R, S)
    end.

runtime_error(C, R, S) ->
    Ex = beamtalk_errors:wrap(C, R, S),
    {runtime_error, beamtalk_errors:format(Ex), Ex}.

%% Evaluation finished normally (the evaluator sent its result).
complete(S, {ok, Text, undefined}, St) ->
    finish(S, {ok, Text}, St);
complete(S, {ok, Text, NewBindings}, St) ->
    finish(S#session{bindings = NewBindings}, {ok, Text}, St);
complete(S, {runtime_error, Text, Ex}, St) ->
    Bindings = maps:put('_error', Ex, S#session.bindings),
    finish(S#session{bindings = Bindings}, {error, runtime, Text}, St);
complete(S, {undefined_variable, Text}, St) ->
    finish(S, {error, undefined_variable, Text}, St);
complete(S, {internal, Text}, St) ->
    finish(S, {error, internal, Text}, St);
complete(S, {tests, Results}, St) ->
    finish(S, {tests, Results}, St).

finish(#session{running = #run{pid = Pid, mon = Mon, from = {_, Tag}, timer = Timer}} = S,
       Outcome, St) ->
    erlang:demonitor(Mon, [flush]),
    _ = Timer =/= undefined andalso erlang:cancel_timer(Timer),
    flush_done(Pid),
    Names = lists:sort(maps:keys(S#session.bindings)),
    Reply = case Outcome of
                {ok, Text} -> {ok, Text, Names};
                {tests, Results} -> {tests, Results, Names};
                {error, Kind, Text} -> {error, Kind, Text, Names}
            end,
    beamtalk_io:finish_request(S#session.io, Tag, Reply),
    next(S#session{running = none}, St).

flush_done(Pid) ->
    receive {eval_done, Pid, _} -> ok after 0 -> ok end,
    receive {eval_timeout, Pid} -> ok after 0 -> ok end.

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
            class_info(Next, Seen#{Name => true}, [{Name, Kind, Fields, Super, Abstract} | Acc]);
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
