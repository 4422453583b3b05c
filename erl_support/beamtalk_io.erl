%% @doc One I/O server per session, used as the group leader of every
%% evaluation in that session.
%%
%% Why: output written by an evaluation (io:format and friends) must reach the
%% client that asked for the evaluation, and must arrive *before* that
%% request's final reply.  Erlang only orders messages per sender, so the final
%% reply is routed through this same process: everything the client receives
%% for one request comes from one sender, in order.  Output written when no
%% request is running (a process spawned by an earlier input) goes to the last
%% client of the session, tagged `none`, so background output is not lost
%% while someone is attached.
%%
%% The Transcript hands text written by an evaluation to the session's I/O
%% server with `{beamtalk_transcript, From, Ref, Text}`; it is delivered like
%% output when a request is running (answer `{Ref, delivered, Client}`), and
%% refused otherwise (answer `{Ref, idle}`: the Transcript keeps it for its
%% buffer and subscribers instead).
-module(beamtalk_io).
-export([start/0, begin_request/3, finish_request/3, is_session_io/1, loop/1]).

-record(st, {client = undefined, tag = none, last_client = undefined}).

start() ->
    Parent = self(),
    Ref = make_ref(),
    Pid = spawn(fun() ->
                        put('$beamtalk_io', true),    % see is_session_io/1
                        Parent ! {Ref, ready},
                        loop(#st{})
                end),
    receive {Ref, ready} -> Pid end.

%% @doc Is Pid a session I/O server of this node?
is_session_io(Pid) when is_pid(Pid), node(Pid) =:= node() ->
    case erlang:process_info(Pid, dictionary) of
        {dictionary, D} -> lists:keymember('$beamtalk_io', 1, D);
        undefined -> false
    end;
is_session_io(_) ->
    false.

%% @doc Route output to Client (tagged Tag) until finish_request/3.
begin_request(Io, Client, Tag) ->
    Io ! {beamtalk_begin, Client, Tag},
    ok.

%% @doc Send the final reply for the running request, after all its output.
finish_request(Io, Tag, Reply) ->
    Io ! {beamtalk_final, Tag, Reply},
    ok.

loop(St) ->
    receive
        {io_request, From, ReplyAs, Request} ->
            Reply = request(Request, St),
            From ! {io_reply, ReplyAs, Reply},
            ?MODULE:loop(St);
        {beamtalk_begin, Client, Tag} ->
            ?MODULE:loop(St#st{client = Client, tag = Tag, last_client = Client});
        {beamtalk_transcript, From, Ref, Bin} ->
            case St#st.client of
                undefined -> From ! {Ref, idle};
                Client ->
                    Client ! {beamtalk_output, St#st.tag, Bin},
                    From ! {Ref, delivered, Client}
            end,
            ?MODULE:loop(St);
        {beamtalk_final, Tag, Reply} ->
            case St#st.client of
                undefined -> ok;
                Client -> Client ! {Tag, Reply}
            end,
            ?MODULE:loop(St#st{client = undefined, tag = none});
        stop ->
            ok;
        _Other ->
            ?MODULE:loop(St)
    end.

request({put_chars, Enc, Chars}, St) ->
    output(Enc, Chars, St);
request({put_chars, Enc, M, F, A}, St) ->
    try apply(M, F, A) of
        Chars -> output(Enc, Chars, St)
    catch _:_ -> {error, format}
    end;
request({put_chars, Chars}, St) ->
    output(latin1, Chars, St);
request({requests, Reqs}, St) ->
    lists:foldl(fun(R, ok) -> request(R, St);
                   (_, Err) -> Err
                end, ok, Reqs);
request({setopts, _}, _St) -> ok;
request(getopts, _St) -> [{binary, false}, {encoding, unicode}];
request({get_geometry, _}, _St) -> {error, enotsup};
request({get_chars, _, _, _}, _St) -> eof;
request({get_chars, _, _, _, _}, _St) -> eof;
request({get_line, _, _}, _St) -> eof;
request({get_line, _, _, _}, _St) -> eof;
request({get_until, _, _, _, _, _}, _St) -> eof;
request({get_until, _, _, _, _}, _St) -> eof;
request(_, _St) -> {error, request}.

output(Enc, Chars, St) ->
    case unicode:characters_to_binary(Chars, Enc, unicode) of
        Bin when is_binary(Bin) ->
            deliver(Bin, St),
            ok;
        _ ->
            {error, put_chars}
    end.

deliver(Bin, #st{client = undefined, last_client = undefined}) ->
    %% Nobody has ever been attached: keep it in the node's log.
    io:put_chars(user, Bin);
deliver(Bin, #st{client = undefined, last_client = Last}) ->
    Last ! {beamtalk_output, none, Bin};
deliver(Bin, #st{client = Client, tag = Tag}) ->
    Client ! {beamtalk_output, Tag, Bin}.
