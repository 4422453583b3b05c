%% @doc The plain workspace's distribution carrier: OTP's TCP distribution
%% with a door that only the node's own OS user can open.
%%
%% Why: OTP 25 turns the node name a peer announces into an atom as soon as
%% it reads the handshake's name message, before it checks the cookie, and
%% atoms are never freed.  Anyone who can open a TCP connection to the
%% distribution port could therefore fill the atom table (about a million
%% fresh names) and kill the node without knowing the cookie.  The listener
%% is on loopback, so "anyone" means any local OS user.
%%
%% How: the acceptor asks the kernel who owns the other end of each new
%% connection before a single byte of it is read.  A loopback connection has
%% both ends on this host, and /proc/net/tcp (and tcp6) lists the peer's
%% socket, its state and its owner's uid.  A connection is handed to
%% net_kernel (and the normal cookie handshake) only when that socket is
%% established and belongs to the node's own uid; any other is reset at once
%% and counted in beamtalk_dist_guard's thinned-out log.
%%
%% Trust: a process of the node's own user can read the cookie file anyway,
%% so it gains nothing it did not have.  Root is not special-cased: an
%% orphaned or closing socket is shown as owned by uid 0, which is why the
%% peer's socket must also be established.  Peers on other hosts never reach
%% this carrier: a workspace that listens off loopback runs `inet_tls`.
%%
%% Everything but accepting (listening, outgoing connections for `Workspace
%% connect:` and `spawnOn:`, the handshake itself, ticks) is OTP's
%% `inet_tcp_dist`, called unchanged.
-module(beamtalk_tcp_dist).

-export([listen/1, listen/2, accept/1, accept_connection/5, setup/5, close/1,
         select/1, address/0, is_node_name/1, setopts/2, getopts/2]).
-export([accept_loop/3, peer_uid/1, own_uid/0]).

-define(ESTABLISHED, <<"01">>).

listen(Name) -> inet_tcp_dist:listen(Name).
listen(Name, Host) -> inet_tcp_dist:listen(Name, Host).
accept_connection(AcceptPid, Socket, MyNode, Allowed, SetupTime) ->
    inet_tcp_dist:accept_connection(AcceptPid, Socket, MyNode, Allowed, SetupTime).
setup(Node, Type, MyNode, LongOrShortNames, SetupTime) ->
    inet_tcp_dist:setup(Node, Type, MyNode, LongOrShortNames, SetupTime).
close(Socket) -> inet_tcp_dist:close(Socket).
select(Node) -> inet_tcp_dist:select(Node).
address() -> inet_tcp_dist:address().
is_node_name(Node) -> inet_tcp_dist:is_node_name(Node).
setopts(Socket, Opts) -> inet_tcp_dist:setopts(Socket, Opts).
getopts(Socket, Opts) -> inet_tcp_dist:getopts(Socket, Opts).

%% @doc net_kernel's accept/1: a linked acceptor process, as inet_tcp_dist's.
accept(Listen) ->
    Uid = own_uid(),
    spawn_opt(?MODULE, accept_loop, [self(), Listen, Uid], [link, {priority, max}]).

%% The acceptor speaks net_kernel's protocol: announce an admitted socket
%% with `{accept, ...}`, then wait for the controller process and hand the
%% socket over.  A refused socket never reaches net_kernel.
accept_loop(Kernel, Listen, Uid) ->
    case inet_tcp:accept(Listen) of
        {ok, Socket} ->
            case admit(Socket, Uid) of
                true ->
                    Kernel ! {accept, self(), Socket, inet, tcp},
                    hand_over(Kernel, Socket);
                {false, Why} ->
                    refuse(Socket, Why, Uid)
            end,
            accept_loop(Kernel, Listen, Uid);
        Error ->
            exit(Error)
    end.

hand_over(Kernel, Socket) ->
    receive
        {Kernel, controller, Pid} ->
            forward(Pid, Socket),
            _ = inet_tcp:controlling_process(Socket, Pid),
            forward(Pid, Socket),
            Pid ! {self(), controller};
        {Kernel, unsupported_protocol} ->
            exit(unsupported_protocol)
    end.

%% Socket messages that reached the acceptor before the hand-over belong to
%% the controller (the socket is passive, so normally there are none).
forward(Pid, Socket) ->
    receive
        {tcp, Socket, _} = M -> Pid ! M, forward(Pid, Socket);
        {tcp_closed, Socket} = M -> Pid ! M, forward(Pid, Socket)
    after 0 -> ok
    end.

admit(_Socket, unknown) ->
    {false, "the node could not read its own uid"};
admit(Socket, Uid) ->
    admit(Socket, Uid, 3).

%% A peer's socket missing from the table is looked up again a few times
%% (a few ms): seen once on a loaded machine for a same-user peer.  A socket
%% that is found answers at once, so strangers cost no extra time.
admit(Socket, Uid, Tries) ->
    try peer_uid(Socket) of
        {error, "its socket is not in /proc/net/tcp" ++ _} when Tries > 1 ->
            timer:sleep(5),
            admit(Socket, Uid, Tries - 1);
        {ok, Uid} -> true;
        {ok, Other} -> {false, io_lib:format("its socket belongs to uid ~b", [Other])};
        {error, Why} -> {false, Why}
    catch _:_ -> {false, "its owner could not be determined"}
    end.

%% Reset (linger 0), so neither side keeps the connection in TIME_WAIT, and
%% log through the guard's filter, which counts and thins these lines.
refuse(Socket, Why, Uid) ->
    Port = case inet:peername(Socket) of
               {ok, {_, P}} -> P;
               _ -> 0
           end,
    _ = inet:setopts(Socket, [{linger, {true, 0}}]),
    _ = inet_tcp:close(Socket),
    error_logger:error_msg("** Connection attempt from local port ~b rejected before the "
                           "handshake: ~ts; only the node's own OS user (uid ~p) may connect "
                           "(other hosts: a TLS workspace) **~n", [Port, Why, Uid]).

%% @doc The uid owning the other end of a loopback connection, from the
%% kernel's socket tables; the peer's socket must be established.
peer_uid(Socket) ->
    {ok, {PeerIp, PeerPort}} = inet:peername(Socket),
    {ok, {OurIp, OurPort}} = inet:sockname(Socket),
    Find = fun(File, Hex) ->
                   Key = iolist_to_binary([Hex(PeerIp), $:, hex(PeerPort, 4), $\s,
                                           Hex(OurIp), $:, hex(OurPort, 4), $\s]),
                   case prim_file:read_file(File) of
                       {ok, Table} -> lookup(Table, Key);
                       {error, _} -> none
                   end
           end,
    case Find("/proc/net/tcp", fun hex4/1) of
        none ->
            case Find("/proc/net/tcp6", fun hex6/1) of
                none -> {error, "its socket is not in /proc/net/tcp (not a local connection)"};
                Found -> Found
            end;
        Found -> Found
    end.

%% The line after `local_address rem_address `: st tx:rx tr:when retrnsmt uid.
lookup(Table, Key) ->
    case binary:match(Table, Key) of
        nomatch -> none;
        {At, Len} ->
            Rest = binary:part(Table, At + Len, byte_size(Table) - At - Len),
            [Line | _] = binary:split(Rest, <<"\n">>),
            case binary:split(Line, <<" ">>, [global, trim_all]) of
                [?ESTABLISHED, _, _, _, Uid | _] -> {ok, binary_to_integer(Uid)};
                [_St | _] -> {error, "its socket is not established (closed or closing)"}
            end
    end.

%% /proc prints each 32-bit word of an address as the host-order integer.
hex4({A, B, C, D}) -> word(<<A, B, C, D>>);
hex4(_) -> <<"-">>.

hex6({A, B, C, D}) -> hex6({0, 0, 0, 0, 0, 16#ffff, (A bsl 8) bor B, (C bsl 8) bor D});
hex6({_, _, _, _, _, _, _, _} = Ip) ->
    Bytes = << <<W:16/big>> || W <- tuple_to_list(Ip) >>,
    [word(Wd) || <<Wd:4/binary>> <= Bytes].

word(Bytes) ->
    N = case erlang:system_info(endian) of
            little -> binary:decode_unsigned(Bytes, little);
            big -> binary:decode_unsigned(Bytes, big)
        end,
    hex(N, 8).

hex(N, Digits) -> string:right(integer_to_list(N, 16), Digits, $0).

%% @doc The node's effective uid (`unknown` off Linux: nobody is admitted).
own_uid() ->
    case prim_file:read_file("/proc/self/status") of
        {ok, Status} ->
            case re:run(Status, "^Uid:\\s+\\d+\\s+(\\d+)", [multiline, {capture, all_but_first, binary}]) of
                {match, [Uid]} -> binary_to_integer(Uid);
                nomatch -> unknown
            end;
        {error, _} -> unknown
    end.
