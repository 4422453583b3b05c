%% @doc Supervises the node's compiler service (DESIGN D11, D13): the watch
%% registry and the owner of the compiler peer's port.
%%
%% rest_for_one, watch first: the port owner asks the watch registry for the
%% watched roots when it starts, so a restarted owner hands them to its new
%% peer; the watches themselves outlive any peer.
-module(beamtalk_peer_sup).
-behaviour(supervisor).

-export([start/1, init/1]).

%% @doc Start unlinked from the caller (the boot process exits after start).
start(Opts) ->
    case supervisor:start_link({local, ?MODULE}, ?MODULE, Opts) of
        {ok, Pid} -> unlink(Pid), ok;
        {error, {already_started, _}} -> ok;
        Other -> Other
    end.

init(Opts) ->
    {ok, {#{strategy => rest_for_one, intensity => 10, period => 10},
          [#{id => beamtalk_watch, start => {beamtalk_watch, start_link, []}},
           #{id => beamtalk_compiler_peer, start => {beamtalk_compiler_peer, start_link, [Opts]},
             shutdown => 5000}]}}.
