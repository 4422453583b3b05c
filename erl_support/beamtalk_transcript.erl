%% @doc The Transcript: one `TranscriptStream` actor per node, bound as the
%% workspace global `Transcript` (and answered by `TranscriptStream
%% current`); spec stdlib §10, repl.md §6.
%%
%% The process speaks the actor protocol of `beamtalk_actor` (a send is
%% `gen_server:call(Pid, {Selector, Args})` answered `{ok, Result}` or
%% `{error, Class, Reason, Stack}`; a `!` send is a cast), so
%% `Transcript show: "x"` is an ordinary actor send and `Transcript` prints
%% like any actor.  Its methods are the actor-style primitives of
%% `beamtalk_prim_transcript_stream`, looked up in the TranscriptStream
%% method table and run here with the state map below.  It is a process of
%% its own (and not a `beamtalk_actor`) because routing needs the caller of
%% each message, which a plain actor never sees.
%%
%% Where text goes (every write: `show:`, `cr`, `tab`, ...):
%%
%% * Into the ring buffer of the last 1000 chunks (`recent`), always.
%% * To the output of the evaluation that wrote it: when the writing process,
%%   or the process that is synchronously waiting on it (an actor serving a
%%   call from an evaluation, followed through `beamtalk_actor`'s
%%   `'$bt_caller'`), has a session's `beamtalk_io` as group leader and that
%%   session is running a request, the text is handed to that I/O server and
%%   reaches the client as output of that request, before its reply.
%% * To every subscriber, except the client that just received it as request
%%   output (so a REPL that both evaluates and subscribes sees it once).
%%   Text written by background processes (actors running a `!` send or on
%%   their own, processes outliving their evaluation) therefore reaches the
%%   buffer and the subscribers, and is never lost when no REPL is attached.
%%
%% Subscribing: `Transcript subscribe` subscribes the calling process;
%% `beamtalk_transcript:subscribe(Pid)` any process (the workspace server
%% does this for clients, DESIGN D3).  A subscriber receives
%%
%%     {transcript, Text :: binary()}
%%
%% for every chunk, in write order, until it unsubscribes or exits (it is
%% monitored).
%%
%% The process is a permanent child of the runtime supervisor; every start
%% (also a restart after `Transcript kill`) rebinds the `Transcript` global.
-module(beamtalk_transcript).
-behaviour(gen_server).

-export([start_link/0, current/0, subscribe/1, unsubscribe/1, recent/0, write/1,
         caller/0, display_text/1, ring_size/0]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).
%% used by beamtalk_prim_transcript_stream (inside this process)
-export([emit/2, add_subscriber/2, remove_subscriber/2]).
%% beamtalk_actor_io: where an actor's Erlang I/O goes
-export([session_io/1]).

-define(SERVER, ?MODULE).
-define(CLASS, 'TranscriptStream').
-define(RING, 1000).
-define(IO_TIMEOUT, 2000).
-define(MAX_CHAIN, 16).

%%% API

start_link() ->
    gen_server:start_link({local, ?SERVER}, ?MODULE, [], []).

%% @doc The Transcript actor record.
current() ->
    case whereis(?SERVER) of
        undefined ->
            beamtalk_exception:raise(actor_dead, ?CLASS, current,
                                     <<"The Transcript is not running">>, nil);
        Pid -> record(Pid)
    end.

record(Pid) -> {beamtalk_object, ?CLASS, ?MODULE, Pid}.

%% @doc Subscribe Pid to `{transcript, Text}` pushes.
subscribe(Pid) when is_pid(Pid) ->
    gen_server:call(?SERVER, {'$subscribe', Pid}).

unsubscribe(Pid) when is_pid(Pid) ->
    gen_server:call(?SERVER, {'$unsubscribe', Pid}).

%% @doc The buffered chunks, oldest first.
recent() ->
    {ok, L} = gen_server:call(?SERVER, {recent, []}),
    L.

%% @doc Write text as the calling process would with `Transcript show:`.
write(Text) ->
    {ok, _} = gen_server:call(?SERVER, {'show:', [Text]}),
    ok.

%% @doc Inside a Transcript method: the process that sent the message.
caller() ->
    get('$bt_transcript_caller').

ring_size() -> ?RING.

%% @doc The text `show:` appends: strings raw, symbols bare, lists with
%% their elements in this same form (`#(a, 1)`), everything else its
%% displayString (spec semantics §11.1).
display_text(V) when is_binary(V) -> V;
display_text(V) when is_list(V) ->
    try
        iolist_to_binary(["#(", lists:join(<<", ">>, [display_text(E) || E <- V]), ")"])
    catch error:_ -> beamtalk_print:display_string(V)    % improper list
    end;
display_text(V) -> beamtalk_print:display_string(V).

%%% gen_server

init([]) ->
    beamtalk_class:set_global('Transcript', record(self())),
    {ok, #{ring => queue:new(), count => 0, subscribers => #{}}}.

handle_call({'$subscribe', Pid}, _From, St) ->
    {reply, ok, add_subscriber(St, Pid)};
handle_call({'$unsubscribe', Pid}, _From, St) ->
    {reply, ok, remove_subscriber(St, Pid)};
handle_call({Sel, Args}, {Caller, _}, St) when is_atom(Sel), is_list(Args) ->
    put('$bt_transcript_caller', Caller),
    try invoke(St, Sel, Args) of
        {Result, St1} when is_map(St1) -> {reply, {ok, Result}, St1}
    catch
        C:R:S -> {reply, {error, C, beamtalk_exception:clean(R), S}, St}
    after
        erase('$bt_transcript_caller')
    end;
handle_call(_Other, _From, St) ->
    {reply, {error, error, badarg, []}, St}.

handle_cast({cast, Sel, Args}, St) when is_atom(Sel), is_list(Args) ->
    %% A `!` send: nobody waits, so the text counts as background output.
    try invoke(St, Sel, Args) of
        {_Result, St1} when is_map(St1) -> {noreply, St1}
    catch _:_ -> {noreply, St}
    end;
handle_cast(_Msg, St) ->
    {noreply, St}.

handle_info({'DOWN', Mon, process, Pid, _}, #{subscribers := Subs} = St) ->
    case Subs of
        #{Pid := Mon} -> {noreply, St#{subscribers => maps:remove(Pid, Subs)}};
        _ -> {noreply, St}
    end;
handle_info({io_request, From, ReplyAs, Request}, St) when is_pid(From) ->
    %% An Erlang I/O device too (`io:format(Transcript pid, ...)`): output
    %% is written as `show:` writes it, for the process that asked.
    put('$bt_transcript_caller', From),
    try io_request(Request, St) of
        {Reply, St1} -> From ! {io_reply, ReplyAs, Reply}, {noreply, St1}
    after
        erase('$bt_transcript_caller')
    end;
handle_info(_Msg, St) ->
    {noreply, St}.

%% The I/O protocol's output requests; the Transcript cannot be read from.
io_request({put_chars, Enc, Chars}, St) ->
    put_chars(Enc, fun() -> Chars end, St);
io_request({put_chars, Enc, M, F, A}, St) ->
    put_chars(Enc, fun() -> erlang:apply(M, F, A) end, St);
io_request({put_chars, Chars}, St) ->
    put_chars(latin1, fun() -> Chars end, St);
io_request({put_chars, M, F, A}, St) ->
    put_chars(latin1, fun() -> erlang:apply(M, F, A) end, St);
io_request({requests, Reqs}, St) ->
    lists:foldl(fun(R, {ok, S}) -> io_request(R, S);
                   (_R, Done) -> Done
                end, {ok, St}, Reqs);
io_request(getopts, St) ->
    {[{binary, true}, {encoding, unicode}], St};
io_request(_Other, St) ->
    {{error, enotsup}, St}.

put_chars(Enc, Chars, St) ->
    try unicode:characters_to_binary(Chars(), Enc, utf8) of
        Text when is_binary(Text) -> {ok, emit(St, Text)};
        _ -> {{error, put_chars}, St}
    catch _:_ -> {{error, put_chars}, St}
    end.

terminate(_Reason, _St) -> ok.

code_change(_Old, St, _Extra) -> {ok, St}.

invoke(St, Sel, Args) ->
    T = beamtalk_class:raw_table(?CLASS),
    beamtalk_send:invoke(T, record(self()), St, Sel, Args).

%%% Writing

%% @doc Append a chunk: buffer, session output of the writer's evaluation,
%% subscribers.  Runs inside the Transcript process.
emit(St, <<>>) ->
    St;
emit(#{ring := Q0, count := N0, subscribers := Subs} = St, Text) ->
    {Q1, N1} = case N0 >= ?RING of
                   true -> {queue:in(Text, queue:drop(Q0)), N0};
                   false -> {queue:in(Text, Q0), N0 + 1}
               end,
    Got = deliver_to_session(caller(), Text),
    [Pid ! {transcript, Text} || Pid <- maps:keys(Subs), Pid =/= Got],
    St#{ring => Q1, count => N1}.

%% The client the text was delivered to as request output, or none.
deliver_to_session(Caller, Text) when is_pid(Caller) ->
    case session_io(Caller, 0) of
        none -> none;
        Io ->
            Ref = erlang:monitor(process, Io),
            Io ! {beamtalk_transcript, self(), Ref, Text},
            receive
                {Ref, delivered, Client} -> erlang:demonitor(Ref, [flush]), Client;
                {Ref, idle} -> erlang:demonitor(Ref, [flush]), none;
                {'DOWN', Ref, process, Io, _} -> none
            after ?IO_TIMEOUT ->
                    erlang:demonitor(Ref, [flush]),
                    none
            end
    end;
deliver_to_session(_, _) ->
    none.

%% @doc The session I/O server of the evaluation Pid works for, or none.
session_io(Pid) ->
    session_io(Pid, 0).

%% The session I/O server of the evaluation Pid belongs to: its own group
%% leader when that is a session's beamtalk_io, else (an actor serving a
%% synchronous call) that of the process waiting on it.
session_io(_Pid, Depth) when Depth >= ?MAX_CHAIN -> none;
session_io(Pid, Depth) when node(Pid) =:= node() ->
    case erlang:process_info(Pid, [group_leader, dictionary]) of
        [{group_leader, GL}, {dictionary, Dict}] ->
            case beamtalk_io:is_session_io(GL) of
                true -> GL;
                false ->
                    case lists:keyfind('$bt_caller', 1, Dict) of
                        {_, Next} when is_pid(Next), Next =/= Pid -> session_io(Next, Depth + 1);
                        _ -> none
                    end
            end;
        undefined -> none
    end;
session_io(_Pid, _Depth) ->
    none.

%%% Subscribers

add_subscriber(#{subscribers := Subs} = St, Pid) ->
    case Subs of
        #{Pid := _} -> St;
        _ -> St#{subscribers => Subs#{Pid => erlang:monitor(process, Pid)}}
    end.

remove_subscriber(#{subscribers := Subs} = St, Pid) ->
    case maps:take(Pid, Subs) of
        {Mon, Rest} -> erlang:demonitor(Mon, [flush]), St#{subscribers => Rest};
        error -> St
    end.
