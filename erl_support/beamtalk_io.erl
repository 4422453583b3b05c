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
%%
%% Reading (`io:get_line`, `io:get_chars`, `io:fread`, `io:read`) while a
%% request runs asks its client for a line, as the Erlang shell and Python's
%% `input()` read the terminal: `{beamtalk_input, Tag, self(), Ref, Prompt}`
%% to the client, answered `{beamtalk_input, Ref, Line | eof}` (repl.md §8's
%% need-input).  Readers are served one at a time in arrival order from one
%% buffer of what was typed; the request's timeout is paused while the
%% client is asked (beamtalk_workspace).  With no request running (a process
%% an earlier input left reading) the answer is eof, as before: nobody is
%% there to type.  What a finished request left unread is dropped.
-module(beamtalk_io).
-export([start/0, begin_request/3, finish_request/3, is_session_io/1, loop/1]).

-record(st, {client = undefined, tag = none, last_client = undefined,
             buf = [] :: [char()],          % typed, not yet read
             readers = [] :: list(),        % {From, ReplyAs, Collect, Cont}, oldest first
             asked = undefined,             % the Ref of the line the client is asked for
             binary = true}).               % get_line/get_chars answer Strings (binaries)

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
            case reader(Request) of
                none when element(1, Request) =:= setopts, tuple_size(Request) =:= 2 ->
                    {Reply, St1} = setopts(element(2, Request), St),
                    From ! {io_reply, ReplyAs, Reply},
                    ?MODULE:loop(St1);
                none when Request =:= getopts ->
                    From ! {io_reply, ReplyAs, [{binary, St#st.binary}, {encoding, unicode}]},
                    ?MODULE:loop(St);
                none ->
                    Reply = request(Request, St),
                    From ! {io_reply, ReplyAs, Reply},
                    ?MODULE:loop(St);
                _ when St#st.client =:= undefined ->
                    From ! {io_reply, ReplyAs, eof},
                    ?MODULE:loop(St);
                {Prompt, Collect, Cont} ->
                    R = {From, ReplyAs, Prompt, Collect, Cont, text_reader(Request)},
                    ?MODULE:loop(serve(St#st{readers = St#st.readers ++ [R]}))
            end;
        {beamtalk_input, Ref, Data} when Ref =:= St#st.asked ->
            [R | Rest] = St#st.readers,
            wait(false),
            ?MODULE:loop(feed(R, typed(Data), St#st{asked = undefined, readers = Rest}));
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
            %% readers left (a process the input spawned) get eof: nobody is
            %% asked for their lines any more
            [From ! {io_reply, RA, eof} || {From, RA, _, _, _, _} <- St#st.readers],
            ?MODULE:loop(St#st{client = undefined, tag = none, buf = [], readers = [],
                               asked = undefined});
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
request({get_geometry, _}, _St) -> {error, enotsup};
request(_, _St) -> {error, request}.

%%% Reading

%% A read request as {Prompt, Collect, InitialContinuation}, or none.
%% Collect(Cont, Chars | eof) answers {done, Result, RestChars} or
%% {more, Cont}, as get_until's functions do (the I/O protocol).
reader({get_line, _Enc, Prompt}) -> {Prompt, fun line/2, []};
reader({get_line, Prompt}) -> {Prompt, fun line/2, []};
reader({get_chars, _Enc, Prompt, N}) when is_integer(N), N >= 0 -> {Prompt, fun chars/2, {N, []}};
reader({get_chars, Prompt, N}) when is_integer(N), N >= 0 -> {Prompt, fun chars/2, {N, []}};
reader({get_until, _Enc, Prompt, M, F, As}) -> {Prompt, until(M, F, As), []};
reader({get_until, Prompt, M, F, As}) -> {Prompt, until(M, F, As), []};
reader(_) -> none.

%% get_line and get_chars answer text: binaries in binary mode (result/3).
text_reader(Request) -> element(1, Request) =/= get_until.

line(Stack, eof) when Stack =:= [] -> {done, eof, []};
line(Stack, eof) -> {done, lists:reverse(Stack), []};
line(Stack, [$\n | T]) -> {done, lists:reverse(Stack, "\n"), T};
line(Stack, [C | T]) -> line([C | Stack], T);
line(Stack, []) -> {more, Stack}.

chars({0, S}, Rest) -> {done, lists:reverse(S), rest(Rest)};
chars({_, []}, eof) -> {done, eof, []};
chars({_, S}, eof) -> {done, lists:reverse(S), []};
chars({N, S}, [C | T]) -> chars({N - 1, [C | S]}, T);
chars(Cont, []) -> {more, Cont}.

%% A String (binary) argument is taken as the charlist Erlang expects:
%% `Erlang io fread: "Number: " with: "~d"` reads a number.
until(M, F, As0) ->
    As = [case is_binary(A) of
              true -> unicode:characters_to_list(A);
              false -> A
          end || A <- As0],
    fun(Cont, Data) ->
            case apply(M, F, [Cont, Data | As]) of
                {done, Result, Rest} -> {done, Result, rest(Rest)};
                {more, Cont1} -> {more, Cont1}
            end
    end.

rest(eof) -> [];
rest(L) when is_list(L) -> L;
rest(B) when is_binary(B) -> unicode:characters_to_list(B).

%% Serve the oldest reader: from what is buffered, else ask the client.
serve(#st{asked = undefined, readers = [R | Rest], buf = Buf} = St) when Buf =/= [] ->
    feed(R, Buf, St#st{readers = Rest, buf = []});
serve(#st{asked = undefined, readers = [{_, _, Prompt, _, _, _} | _], client = Client, tag = Tag} = St)
  when Client =/= undefined ->
    Ref = make_ref(),
    wait(true),
    Client ! {beamtalk_input, Tag, self(), Ref, prompt_text(Prompt)},
    St#st{asked = Ref};
serve(St) ->
    St.

feed({From, ReplyAs, Prompt, Collect, Cont, Text}, Data, St) ->
    try Collect(Cont, Data) of
        {done, Result, Rest} ->
            From ! {io_reply, ReplyAs, result(Text, Result, St)},
            serve(St#st{buf = Rest ++ St#st.buf});
        {more, Cont1} ->
            %% Data is used up: ask again for the same reader
            serve(St#st{readers = [{From, ReplyAs, Prompt, Collect, Cont1, Text} | St#st.readers]})
    catch _:_ ->
            From ! {io_reply, ReplyAs, {error, get_until}},
            serve(St)
    end.

%% Binary mode (the default: a line read is a String, as Beamtalk's Strings
%% are binaries) for get_line and get_chars; get_until's functions make
%% their own terms.
result(true, Chars, #st{binary = true}) when is_list(Chars) ->
    unicode:characters_to_binary(Chars);
result(_, Result, _) ->
    Result.

%% `io:setopts`: binary or list mode; other options are accepted as before.
setopts(Opts, St) when is_list(Opts) ->
    Binary = lists:foldl(fun(binary, _) -> true;
                            (list, _) -> false;
                            ({binary, B}, _) when is_boolean(B) -> B;
                            (_, B) -> B
                         end, St#st.binary, Opts),
    {ok, St#st{binary = Binary}};
setopts(_, St) ->
    {{error, enotsup}, St}.

typed(eof) -> eof;
typed(Bin) when is_binary(Bin) ->
    case unicode:characters_to_list(Bin) of
        L when is_list(L) -> L;
        _ -> binary_to_list(Bin)
    end.

%% Tell the workspace server the request waits for its client (its timeout
%% is paused meanwhile).
wait(Waiting) ->
    case whereis(beamtalk_workspace) of
        undefined -> ok;
        Ws -> Ws ! {beamtalk_input_wait, self(), Waiting}
    end.

prompt_text(P) when is_atom(P) -> atom_to_binary(P, utf8);
prompt_text(P) ->
    try unicode:characters_to_binary(P) of
        B when is_binary(B) -> B;
        _ -> iolist_to_binary(io_lib:format("~tp", [P]))
    catch _:_ -> iolist_to_binary(io_lib:format("~tp", [P]))
    end.

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
