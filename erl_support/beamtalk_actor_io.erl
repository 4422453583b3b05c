%% @doc The group leader of every actor: sends what an actor prints with
%% `io:format` and friends to the evaluation waiting on it.
%%
%% Why: an actor is started by `beamtalk_actor_sup`, so its group leader was
%% the node's own, and `Erlang io format:` in an actor method called from the
%% REPL went to `node.log`, out of sight of the person debugging it.  The
%% Transcript already follows an actor's caller (`'$bt_caller'`) to the
%% session's I/O server; this does the same for Erlang I/O.  An I/O request
%% is passed on unchanged (the I/O server answers the actor directly): to the
%% session's `beamtalk_io` when the actor serves a synchronous send of an
%% evaluation (through a chain of actors too), else to this process's own
%% group leader (the node's), as before.  Nothing is looked up per message:
%% only when an actor prints.
-module(beamtalk_actor_io).
-export([start_link/0, init/1, loop/0, adopt/0]).

%% @doc Make it the calling process's group leader (an actor's `init`); on a
%% node where it does not run, nothing changes.
adopt() ->
    case whereis(?MODULE) of
        undefined -> ok;
        Pid -> group_leader(Pid, self())
    end.

start_link() ->
    proc_lib:start_link(?MODULE, init, [self()]).

init(_Parent) ->
    register(?MODULE, self()),
    proc_lib:init_ack({ok, self()}),
    loop().

loop() ->
    receive
        {io_request, From, _ReplyAs, _Request} = Msg ->
            Target = try beamtalk_transcript:session_io(From)
                     catch _:_ -> none
                     end,
            case Target of
                none -> group_leader() ! Msg;
                Io -> Io ! Msg
            end;
        _ ->
            ok
    end,
    ?MODULE:loop().
