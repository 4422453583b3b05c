%% @doc The node's door to its compiler (DESIGN D11): owns the port that runs
%% the Python compiler peer and routes compile requests to it.
%%
%% Why a port and distribution both: the port ties the peer's life to this
%% process (the node starts it, sees it exit, and closing the port closes
%% the peer's stdin, so it stops with the node), while the compiled forms
%% travel back over Erlang distribution, where the peer is a hidden node
%% that sends `{peer_ready, Pid, OsPid}` once it is connected.  The peer
%% reads the cookie from the workspace's mode-0600 file: only its path is
%% on the peer's command line (DESIGN D4).
%%
%% Why requests queue: the peer takes a moment to start (Python imports),
%% and the node must be ready for REPL clients before that, so the port is
%% opened without waiting and a request that arrives early waits for the
%% peer, up to ?START_WAIT, then fails with a clear message.  A peer that
%% exits (crash, OS kill) fails its in-flight requests and is started again
%% with a growing back-off; the request after that works.
-module(beamtalk_compiler_peer).
-behaviour(gen_server).

-export([start_link/1, request/1, request/2, status/0, send_watch/1]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(SERVER, ?MODULE).
%% A node Beamtalk was attached to (`beamtalk repl --node`) runs no peer:
%% the REPL compiles on its own side there.
-define(NO_PEER, <<"This node has no Beamtalk compiler of its own (Beamtalk was attached to it with "
                   "`beamtalk repl --node`): compile on your side with `:load FILE` in the REPL, "
                   "and `:reload Class` to load a class's file again">>).
-define(START_WAIT, 30000).
-define(REQUEST_TIMEOUT, 60000).
-define(LOG_LINES, 20).

-record(st, {opts :: map(),
             port = undefined,
             os_pid = undefined,
             peer = undefined :: undefined | pid(),
             peer_mon = undefined,
             waiting = [] :: [{term(), term(), reference()}],
             inflight = #{} :: #{reference() => {term(), term(), reference(), 0 | 1}},
             backoff = 200 :: pos_integer(),
             starts = 0 :: non_neg_integer(),
             log = [] :: [binary()],
             last_exit = undefined,
             watch = [] :: [binary()]}).

%%% API

%% Opts: `python` (executable), `pythonpath`, `cookie_file`, `dir`
%% (the workspace directory), all strings.
start_link(Opts) ->
    gen_server:start_link({local, ?SERVER}, ?MODULE, Opts, []).

%% @doc Ask the peer to compile: `{eval, Source}`, `{load, [Path]}`,
%% `{method, ClassName, ClassSide, Source}`.  Answers the peer's reply or
%% `{error, Text}`; never raises.
request(Op) -> request(Op, ?REQUEST_TIMEOUT + ?START_WAIT).

request(Op, Timeout) ->
    try gen_server:call(?SERVER, {compile, Op}, Timeout)
    catch
        exit:{noproc, _} -> {error, ?NO_PEER};
        exit:{timeout, _} -> {error, <<"The compiler peer did not answer in time">>};
        exit:{Reason, _} ->
            {error, iolist_to_binary(io_lib:format("The compiler peer failed: ~tp", [Reason]))}
    end.

%% @doc What `beamtalk workspace status` shows of the peer.
status() ->
    try gen_server:call(?SERVER, status, 5000)
    catch exit:_ -> #{state => not_running}
    end.

%% @doc The set of watched roots (the peer watches them; sent again to
%% every new peer).
send_watch(Roots) ->
    gen_server:cast(?SERVER, {watch, Roots}).

%%% gen_server

init(Opts) ->
    process_flag(trap_exit, true),
    Roots = try beamtalk_watch:roots() catch _:_ -> [] end,
    {ok, open(#st{opts = Opts, watch = Roots})}.

handle_call({compile, Op}, From, #st{peer = undefined} = St) ->
    Timer = erlang:send_after(?START_WAIT, self(), {start_wait_over, From}),
    {noreply, St#st{waiting = St#st.waiting ++ [{From, {Op, 0}, Timer}]}};
handle_call({compile, Op}, From, St) ->
    {noreply, forward(From, {Op, 0}, St)};
handle_call(status, _From, St) ->
    State = if St#st.peer =/= undefined -> ready;
               St#st.port =/= undefined -> starting;
               true -> restarting
            end,
    {reply, #{state => State, os_pid => St#st.os_pid, starts => St#st.starts,
              peer => St#st.peer, watch => St#st.watch}, St};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast({watch, Roots}, St) ->
    _ = St#st.peer =/= undefined andalso (St#st.peer ! {watch, Roots}),
    {noreply, St#st{watch = Roots}};
handle_cast(_Msg, St) ->
    {noreply, St}.

handle_info({peer_ready, Pid, OsPid}, St) ->
    Mon = erlang:monitor(process, Pid),
    _ = St#st.watch =/= [] andalso (Pid ! {watch, St#st.watch}),
    St1 = St#st{peer = Pid, peer_mon = Mon, os_pid = OsPid, backoff = 200},
    St2 = lists:foldl(fun({From, Op, Timer}, Acc) ->
                              _ = erlang:cancel_timer(Timer),
                              forward(From, Op, Acc)
                      end, St1#st{waiting = []}, St#st.waiting),
    {noreply, St2};
handle_info({compiled, Ref, Reply}, St) ->
    case maps:take(Ref, St#st.inflight) of
        {{From, _Op, Timer, _Tries}, Rest} ->
            _ = erlang:cancel_timer(Timer),
            gen_server:reply(From, Reply),
            {noreply, St#st{inflight = Rest}};
        error -> {noreply, St}
    end;
handle_info({request_timeout, Ref}, St) ->
    case maps:take(Ref, St#st.inflight) of
        {{From, _, _, _}, Rest} ->
            gen_server:reply(From, {error, <<"The compiler peer did not answer within 60 s">>}),
            {noreply, St#st{inflight = Rest}};
        error -> {noreply, St}
    end;
handle_info({start_wait_over, From}, St) ->
    case lists:keytake(From, 1, St#st.waiting) of
        {value, _, Rest} ->
            gen_server:reply(From, {error, not_started_text(St)}),
            {noreply, St#st{waiting = Rest}};
        false -> {noreply, St}
    end;
handle_info({Port, {data, {Eol, Line}}}, #st{port = Port} = St) ->
    io:format(user, "compiler peer: ~ts~n", [Line]),
    Log = lists:sublist([iolist_to_binary(Line) | St#st.log], ?LOG_LINES),
    _ = Eol,
    {noreply, St#st{log = Log}};
handle_info({Port, {exit_status, Status}}, #st{port = Port} = St) ->
    {noreply, peer_gone(iolist_to_binary(io_lib:format("exited with status ~b", [Status])), St)};
handle_info({'EXIT', Port, Reason}, #st{port = Port} = St) ->
    {noreply, peer_gone(iolist_to_binary(io_lib:format("stopped: ~tp", [Reason])), St)};
handle_info({'DOWN', Mon, process, _, _}, #st{peer_mon = Mon} = St) ->
    %% The connection is gone; the process follows (its exit_status ends it).
    {noreply, St#st{peer = undefined, peer_mon = undefined}};
handle_info(restart, #st{port = undefined} = St) ->
    {noreply, open(St)};
handle_info(_Msg, St) ->
    {noreply, St}.

terminate(_Reason, #st{port = Port, os_pid = OsPid}) ->
    _ = Port =/= undefined andalso (catch port_close(Port)),
    _ = is_integer(OsPid) andalso os:cmd("kill " ++ integer_to_list(OsPid) ++ " 2>/dev/null"),
    ok.

code_change(_Old, St, _Extra) -> {ok, St}.

%%% Internals

open(#st{opts = Opts} = St) ->
    Python = maps:get(python, Opts),
    Args = ["-m", "beamtalk_ws.peer",
            "--node", atom_to_list(node()),
            "--cookie-file", maps:get(cookie_file, Opts),
            "--workspace-dir", maps:get(dir, Opts)],
    Env = case maps:get(pythonpath, Opts, "") of
              "" -> [];
              Path -> [{"PYTHONPATH", Path}]
          end,
    try open_port({spawn_executable, Python},
                  [{args, Args}, {env, [{"PYTHONUNBUFFERED", "1"} | Env]},
                   exit_status, use_stdio, stderr_to_stdout, binary, {line, 4096}]) of
        Port ->
            OsPid = case erlang:port_info(Port, os_pid) of
                        {os_pid, P} -> P;
                        _ -> undefined
                    end,
            St#st{port = Port, os_pid = OsPid, starts = St#st.starts + 1}
    catch
        error:Reason ->
            Text = iolist_to_binary(io_lib:format("cannot run ~ts: ~tp", [Python, Reason])),
            schedule_restart(St#st{last_exit = Text, log = [Text | St#st.log]})
    end.

peer_gone(Why, St) ->
    io:format(user, "compiler peer ~ts; starting it again~n", [Why]),
    %% Compiling has no side effects, so a request the peer took with it is
    %% asked again of the next peer, once: a request that kills two peers
    %% in a row fails with the reason.
    Text = <<"The compiler peer ", Why/binary, " while compiling this (twice); it is restarted">>,
    Retry = maps:fold(
              fun(_Ref, {From, Op, Timer, Tries}, Acc) ->
                      _ = erlang:cancel_timer(Timer),
                      case Tries of
                          0 ->
                              T = erlang:send_after(?START_WAIT, self(), {start_wait_over, From}),
                              [{From, {Op, 1}, T} | Acc];
                          _ ->
                              gen_server:reply(From, {error, Text}),
                              Acc
                      end
              end, [], St#st.inflight),
    _ = St#st.peer_mon =/= undefined andalso erlang:demonitor(St#st.peer_mon, [flush]),
    schedule_restart(St#st{port = undefined, peer = undefined, peer_mon = undefined,
                           os_pid = undefined, inflight = #{}, last_exit = Why,
                           waiting = lists:reverse(Retry) ++ St#st.waiting}).

schedule_restart(St) ->
    erlang:send_after(St#st.backoff, self(), restart),
    St#st{backoff = min(St#st.backoff * 2, 5000)}.

forward(From, {Op, Tries}, #st{peer = Peer} = St) ->
    Ref = make_ref(),
    Peer ! {compile, Ref, Op},
    Timer = erlang:send_after(?REQUEST_TIMEOUT, self(), {request_timeout, Ref}),
    St#st{inflight = maps:put(Ref, {From, Op, Timer, Tries}, St#st.inflight)}.

not_started_text(#st{last_exit = undefined, log = Log}) ->
    iolist_to_binary(["The compiler peer did not start within 30 s", log_tail(Log)]);
not_started_text(#st{last_exit = Why, log = Log}) ->
    iolist_to_binary(["The compiler peer could not start (it ", Why, ")", log_tail(Log)]).

log_tail([]) -> [];
log_tail(Log) ->
    ["; its last output:\n  ", lists:join(<<"\n  ">>, lists:reverse(lists:sublist(Log, 5)))].
