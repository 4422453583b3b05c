%% @doc A process spawned from a session that dies of an error is reported
%% to that session, as the Erlang shell reports it, instead of only in the
%% node's log.
%%
%% Why: `Erlang erlang spawn: [1 foo]` answers a pid at once, and the crash
%% that follows was written to node.log, where nobody at the REPL looks: the
%% process simply vanished.  The VM reports such a crash to logger with the
%% process's group leader in the metadata; a process spawned by an
%% evaluation inherits the session's I/O server as its group leader
%% (beamtalk_io), so a primary logger filter can hand the session one line.
%% The line is written through that I/O server, so it is output of the
%% request that is running (or background output of the session when none
%% is), and the event still goes to the log unchanged.
-module(beamtalk_crash_notes).
-export([install/0, uninstall/0, filter/2, note/2]).

-define(FILTER, beamtalk_crash_notes).

%% @doc Add the filter (once per node; adding it again is harmless).
install() ->
    _ = logger:add_primary_filter(?FILTER, {fun ?MODULE:filter/2, []}),
    ok.

%% @doc Remove the filter (`beamtalk detach --unload` leaves the node as it
%% found it).
uninstall() ->
    _ = logger:remove_primary_filter(?FILTER),
    ok.

%% @doc Logger filter: note an emulator crash report of a session's process.
%% It never changes or drops the event, and never fails (logger would remove
%% a filter that raises).
filter(#{msg := {Format, [Pid | Args]}, meta := #{error_logger := #{emulator := true}, gl := GL}} = Event, _)
  when is_pid(Pid), is_pid(GL), Args =/= [] ->
    try
        case lists:prefix("Error in process", Format) andalso beamtalk_io:is_session_io(GL) of
            true ->
                %% The I/O request waits for the I/O server's reply: not in
                %% logger's own process.
                _ = spawn(?MODULE, note, [GL, text(Pid, lists:last(Args))]),
                ok;
            false -> ok
        end
    catch _:_ -> ok
    end,
    Event;
filter(Event, _) ->
    Event.

%% @doc Write Text to the session's I/O server (gone: nothing to tell).
note(GL, Text) ->
    catch io:put_chars(GL, Text),
    ok.

text(Pid, Reason) ->
    iolist_to_binary([<<"\x{26A0} Process "/utf8>>, beamtalk_print:print_string(Pid), " crashed: ",
                      beamtalk_errors:reason_text(Reason), "\n"]).
