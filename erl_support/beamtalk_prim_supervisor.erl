%% @doc Supervisor (stdlib/supervisor.bt): a running supervisor is a value
%% `#{'$beamtalk_class' => AppSup, pid => Pid}`; its methods ask OTP's
%% `supervisor` about that process (beamtalk_supervisor builds it).
%%
%% Children are always looked up through the supervisor, by id, when asked
%% for: a restarted child is a new process, and the reference answered
%% before the restart names the old one.
-module(beamtalk_prim_supervisor).
-export(['class start'/1, 'class current'/1, 'class new'/1,
         'children'/1, 'which'/1, 'child:'/2, 'terminateChild:'/2, 'restartChild:'/2,
         'startChild:'/2, 'deleteChild:'/2, 'stop'/1, 'isAlive'/1, 'pid'/1,
         'printString'/1, 'displayString'/1]).

-define(CK, '$beamtalk_class').

'class start'(Cls) ->
    Class = beamtalk_class:name_of(Cls),
    instance(Class, beamtalk_supervisor:start(Class)).

'class current'(Cls) ->
    Class = beamtalk_class:name_of(Cls),
    case whereis(Class) of
        undefined -> nil;
        Pid -> instance(Class, Pid)
    end.

'class new'(Cls) ->
    Class = beamtalk_class:name_of(Cls),
    beamtalk_exception:raise(instantiation_error, Class, new,
                             iolist_to_binary(["Cannot call 'new' on ", atom_to_binary(Class, utf8)]),
                             iolist_to_binary(["A supervisor is a process: use ",
                                               atom_to_binary(Class, utf8), " start"])).

instance(Class, Pid) ->
    (beamtalk_object:instantiate(Class))#{pid => Pid}.

'children'(Self) ->
    Sup = live(Self, children),
    [Ref || {Id, Child, _, _} <- which_children(Self, Sup, children),
            (Ref = beamtalk_supervisor:child_ref(Sup, Id, Child)) =/= nil].

'which'(Self) ->
    Sup = live(Self, which),
    [#{id => Id, type => Type, child => beamtalk_supervisor:child_ref(Sup, Id, Child)}
     || {Id, Child, Type, _} <- which_children(Self, Sup, which)].

'child:'(Self, Id) ->
    Sup = live(Self, 'child:'),
    case lists:keyfind(Id, 1, which_children(Self, Sup, 'child:')) of
        {Id, Child, _, _} -> beamtalk_supervisor:child_ref(Sup, Id, Child);
        false -> no_child(Self, Sup, 'child:', Id)
    end.

'terminateChild:'(Self, Id) ->
    Sup = live(Self, 'terminateChild:'),
    case supervisor:terminate_child(Sup, Id) of
        ok -> Self;
        {error, not_found} -> no_child(Self, Sup, 'terminateChild:', Id);
        {error, R} -> failed(Self, 'terminateChild:', R)
    end.

'restartChild:'(Self, Id) ->
    Sup = live(Self, 'restartChild:'),
    case supervisor:restart_child(Sup, Id) of
        {ok, Child} -> beamtalk_supervisor:child_ref(Sup, Id, Child);
        {ok, Child, _} -> beamtalk_supervisor:child_ref(Sup, Id, Child);
        {error, not_found} -> no_child(Self, Sup, 'restartChild:', Id);
        {error, running} ->
            failed(Self, 'restartChild:', [beamtalk_print:print_string(Id),
                                           " is running (terminateChild: it first)"]);
        {error, R} -> failed(Self, 'restartChild:', R)
    end.

'startChild:'(Self, Desc) ->
    Sup = live(Self, 'startChild:'),
    #{id := Id} = Spec = beamtalk_supervisor:child_spec(Desc),
    case supervisor:start_child(Sup, Spec) of
        {ok, Child} -> beamtalk_supervisor:child_ref(Sup, Id, Child);
        {ok, Child, _} -> beamtalk_supervisor:child_ref(Sup, Id, Child);
        {error, {already_started, _}} ->
            failed(Self, 'startChild:', ["a child with the id ", beamtalk_print:print_string(Id),
                                         " is already running"]);
        {error, already_present} ->
            failed(Self, 'startChild:', ["a child with the id ", beamtalk_print:print_string(Id),
                                         " exists (deleteChild: it first)"]);
        {error, {{actor_start_failed, _, Text}, _}} -> failed(Self, 'startChild:', Text);
        {error, R} -> failed(Self, 'startChild:', R)
    end.

'deleteChild:'(Self, Id) ->
    Sup = live(Self, 'deleteChild:'),
    _ = supervisor:terminate_child(Sup, Id),
    case supervisor:delete_child(Sup, Id) of
        ok -> Self;
        {error, not_found} -> no_child(Self, Sup, 'deleteChild:', Id);
        {error, R} -> failed(Self, 'deleteChild:', R)
    end.

%% A REPL-started supervisor is a temporary child of the holder; one that
%% belongs to an application is stopped like any process (its parent may
%% restart it, as OTP decides).
'stop'(#{pid := Pid}) when is_pid(Pid) ->
    case supervisor:terminate_child(beamtalk_supervisor:holder(), Pid) of
        ok -> ok;
        {error, not_found} ->
            try gen_server:stop(Pid, shutdown, infinity) catch exit:_ -> ok end
    end,
    nil;
'stop'(_) -> nil.

'isAlive'(#{pid := Pid}) when is_pid(Pid) -> is_process_alive(Pid);
'isAlive'(_) -> false.

'pid'(#{pid := Pid}) -> Pid.

'printString'(#{?CK := Class, pid := Pid}) ->
    iolist_to_binary([atom_to_binary(Class, utf8), "(", pid_to_list(Pid), ")"]).

'displayString'(Self) -> 'printString'(Self).

%%% helpers

live(#{?CK := Class, pid := Pid}, Sel) when is_pid(Pid) ->
    case is_process_alive(Pid) of
        true -> Pid;
        false -> dead(Class, Sel)
    end;
live(#{?CK := Class}, Sel) ->
    dead(Class, Sel).

which_children(#{?CK := Class}, Sup, Sel) ->
    %% OTP lists the children newest first; Beamtalk shows them in start order.
    try lists:reverse(supervisor:which_children(Sup))
    catch exit:_ -> dead(Class, Sel)
    end.

dead(Class, Sel) ->
    beamtalk_exception:raise(
      actor_dead, Class, Sel,
      iolist_to_binary(["Cannot send '", atom_to_binary(Sel, utf8), "' to a ",
                        atom_to_binary(Class, utf8), " (supervisor process has terminated)"]),
      iolist_to_binary([atom_to_binary(Class, utf8), " start starts it again"])).

no_child(#{?CK := Class}, Sup, Sel, Id) ->
    Ids = [beamtalk_print:print_string(I) || {I, _, _, _} <- supervisor:which_children(Sup)],
    beamtalk_exception:raise(
      runtime_error, Class, Sel,
      iolist_to_binary([atom_to_binary(Class, utf8), " has no child ", beamtalk_print:print_string(Id)]),
      case Ids of
          [] -> <<"It has no children">>;
          _ -> iolist_to_binary(["Its children are: ", lists:join(", ", Ids)])
      end).

failed(#{?CK := Class}, Sel, Reason) ->
    Text = case Reason of
               B when is_binary(B) -> B;
               L when is_list(L) -> iolist_to_binary(L);
               Other -> iolist_to_binary(io_lib:format("~tp", [Other]))
           end,
    beamtalk_exception:raise(runtime_error, Class, Sel, Text, nil).
