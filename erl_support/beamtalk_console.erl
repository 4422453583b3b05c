%% @doc The Transcript on a node without a workspace: a subscriber that
%% writes every chunk to the node's standard output (`user`).
%%
%% A package started as an OTP application (beamtalk_app) has no REPL to
%% show `Transcript showCr: "..."`; without this the text would only reach
%% the Transcript's ring buffer.  The Transcript may be restarted (it is a
%% permanent child of the runtime supervisor), so the console monitors it
%% and subscribes again to the new process.
-module(beamtalk_console).
-behaviour(gen_server).

-export([start_link/0]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-define(RETRY_MS, 100).

start_link() ->
    gen_server:start_link({local, ?MODULE}, ?MODULE, [], []).

init([]) ->
    {ok, subscribe(undefined)}.

handle_call(_Msg, _From, Mon) -> {reply, ok, Mon}.

handle_cast(_Msg, Mon) -> {noreply, Mon}.

handle_info({transcript, Text}, Mon) ->
    io:put_chars(user, Text),
    {noreply, Mon};
handle_info({'DOWN', Mon, process, _, _}, Mon) ->
    erlang:send_after(?RETRY_MS, self(), resubscribe),
    {noreply, undefined};
handle_info(resubscribe, undefined) ->
    {noreply, subscribe(undefined)};
handle_info(_Msg, Mon) ->
    {noreply, Mon}.

subscribe(_) ->
    case whereis(beamtalk_transcript) of
        undefined ->
            erlang:send_after(?RETRY_MS, self(), resubscribe),
            undefined;
        Pid ->
            Mon = erlang:monitor(process, Pid),
            try beamtalk_transcript:subscribe(self()) of
                _ -> Mon
            catch exit:_ ->
                    erlang:demonitor(Mon, [flush]),
                    erlang:send_after(?RETRY_MS, self(), resubscribe),
                    undefined
            end
    end.
