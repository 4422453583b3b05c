%% @doc Keeps strangers from filling the node's log.
%%
%% Why: every distribution handshake that fails (wrong cookie, disallowed
%% node) makes the kernel log a line of about 150 bytes ("** Connection
%% attempt from node X rejected. Invalid challenge reply. **").  Anyone who
%% can reach the distribution port can repeat that without the cookie, so
%% the log grew without bound.  This logger filter counts those lines and
%% lets through the first ten and then only the 100th, 1000th, 10 000th, ...
%% with the count so far: the log stays readable and grows logarithmically.
%%
%% The plain carrier (beamtalk_tcp_dist) logs the connections it resets
%% before the handshake (peers of another OS user) with the same prefix, so
%% they are counted and thinned here too.
%%
%% What it cannot do: OTP 25 interns the peer's node name as an atom when it
%% reads the name, before the cookie is checked (dist_util, recv_name), so
%% each fresh name that reaches the handshake costs one atom.  Other local
%% users never reach it (beamtalk_tcp_dist); other hosts need TLS (see the
%% README, "Strangers at the distribution port").
-module(beamtalk_dist_guard).

-export([install/0, rejected/0, filter/2]).

-define(KEY, {?MODULE, counter}).
-define(LOG_FIRST, 10).

%% @doc Install the filter (idempotent).
install() ->
    case persistent_term:get(?KEY, undefined) of
        undefined -> persistent_term:put(?KEY, counters:new(1, [write_concurrency]));
        _ -> ok
    end,
    _ = logger:add_primary_filter(?MODULE, {fun ?MODULE:filter/2, []}),
    ok.

%% @doc How many failed connection attempts the kernel reported.
rejected() ->
    case persistent_term:get(?KEY, undefined) of
        undefined -> 0;
        C -> counters:get(C, 1)
    end.

%% error_logger:error_msg/2 arrives as a report with `format` and `args`
%% (OTP 25); a logger `{Format, Args}` message is matched too.
filter(#{msg := {report, #{label := {error_logger, _}, format := Fmt, args := Args}}} = Event, X) ->
    filter_text(Event, Fmt, Args, X);
filter(#{msg := {Fmt, Args}} = Event, X) when is_list(Args), Fmt =/= report, Fmt =/= string ->
    filter_text(Event, Fmt, Args, X);
%% A TLS workspace: ssl reports each handshake a stranger fails (no or a bad
%% certificate, not TLS at all) as a notice of the server side, ~80 bytes
%% each; counted and thinned like the kernel's lines.
filter(#{msg := {report, #{alert := _, role := server, statename := St} = R}} = Event, _)
  when St =/= connection ->
    thin(Event, fun() -> tls_text(R) end);
filter(Event, _) ->
    Event.

filter_text(Event, Fmt, Args, _) ->
    case is_rejection(Fmt) of
        false -> Event;
        true -> thin(Event, fun() -> text(Fmt, Args) end)
    end.

thin(Event, Text) ->
    C = persistent_term:get(?KEY),
    counters:add(C, 1, 1),
    N = counters:get(C, 1),
    case N =< ?LOG_FIRST orelse power_of_ten(N) of
        false -> stop;
        true when N =< ?LOG_FIRST -> Event;
        true -> Event#{msg := {"~ts (~b failed connection attempts since the node "
                                "started; after the first ~b only every power "
                                "of ten is logged)~n",
                               [Text(), N, ?LOG_FIRST]}}
    end.

tls_text(Report) ->
    try ssl_logger:format(Report) of
        {Fmt, Args} -> text(Fmt, Args)
    catch _:_ -> <<"TLS server: handshake refused">>
    end.

is_rejection(Fmt) ->
    try string:prefix(unicode:characters_to_list(Fmt), "** Connection attempt from") =/= nomatch
    catch _:_ -> false
    end.

power_of_ten(N) when N rem 10 =/= 0 -> false;
power_of_ten(10) -> true;
power_of_ten(N) -> power_of_ten(N div 10).

text(Fmt, Args) ->
    try string:trim(unicode:characters_to_binary(io_lib:format(Fmt, Args)), trailing)
    catch _:_ -> <<"** Connection attempt rejected **">>
    end.
