%% @doc Actors: one gen_server per instance (spec semantics §3.4, §4.1, §9).
%%
%% Actors are started under `beamtalk_actor_sup` (simple_one_for_one,
%% temporary), never linked to the process that spawned them, so they
%% outlive the REPL evaluation that created them.
%%
%% State is a map: `'$beamtalk_class'`, `'__class_mod__'`, `'__version__'`
%% (the class version the state was built for) and one key per field.  The
%% method table is not kept in the state: every message looks it up in
%% persistent_term, so a redefined class runs its new code on the next
%% message.  When the class version differs from the state's, fields the
%% new definition added are filled with their defaults first (hot reload,
%% spec §10); existing values are kept.
%%
%% Protocol: sync send `{Selector, Args}` answered `{ok, Result}` or
%% `{error, Class, Reason, Stack}` - an error inside a method is caught in
%% the actor, which keeps running with its previous state, and re-raised in
%% the caller with its original class.  While a call is served, the pid of
%% the caller is in the process dictionary under `'$bt_caller'` (erased for
%% casts): `beamtalk_transcript` follows it to route an actor's output to
%% the evaluation waiting on it.  Cast `{cast, Selector, Args}`
%% never answers and never reports errors.
-module(beamtalk_actor).
-behaviour(gen_server).

-export([spawn/2, spawn_with/2, check_fields/3, initial_state/3, initialize/1, send/3, call/3, call/4, start_link/2, stop/1, kill/1,
         is_alive/1, stop_self/0, call_timeout/0, set_call_timeout/1,
         upgrade/1, fields_of/1]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(CK, '$beamtalk_class').
-define(DEFAULT_TIMEOUT, 5000).

%%% ---------------------------------------------------------------------
%%% Spawning
%%% ---------------------------------------------------------------------

%% @doc `C spawn` / `C spawnWith: overrides`: start the actor, run
%% `initialize` (if the class chain defines it) before answering.
spawn(ClassName, Overrides) ->
    {Mod, State1} = initial_state(ClassName, Overrides, spawn),
    {ok, Pid} = supervisor:start_child(beamtalk_actor_sup, [{ClassName, Mod}, State1]),
    notify_spawn(Pid),
    Obj = {beamtalk_object, ClassName, Mod, Pid},
    initialize(Obj),
    Obj.

%% A BUnit test process watches the actors it spawns (the runner stops
%% those still running after tearDown): it keeps a fun under '$bt_on_spawn'.
notify_spawn(Pid) ->
    case get('$bt_on_spawn') of
        F when is_function(F, 1) -> F(Pid);
        _ -> ok
    end.

%% @doc The checked class module and initial state of a new actor of
%% ClassName (field defaults, then Overrides): what `spawn` starts, and what
%% a supervisor restarts an actor child with (beamtalk_supervisor).
initial_state(ClassName, Overrides, Sel) ->
    Info = case beamtalk_class:class_info(ClassName) of
               undefined -> beamtalk_class:not_found(ClassName);
               I -> I
           end,
    case Info of
        #{kind := actor, abstract := false} -> ok;
        #{kind := actor} ->
            beamtalk_exception:raise(
              instantiation_error, ClassName, Sel,
              iolist_to_binary(["Cannot call '", atom_to_binary(Sel, utf8), "' on ",
                                atom_to_binary(ClassName, utf8)]),
              <<"Abstract classes cannot be instantiated. Subclass it first.">>);
        _ ->
            beamtalk_exception:raise(
              instantiation_error, ClassName, Sel,
              iolist_to_binary(["Cannot call '", atom_to_binary(Sel, utf8), "' on ",
                                atom_to_binary(ClassName, utf8)]),
              <<"Only Actor subclasses can be spawned; use new instead">>)
    end,
    is_map(Overrides) andalso not maps:is_key(?CK, Overrides) orelse
        beamtalk_exception:raise(type_error, ClassName, 'spawnWith:',
                                 <<"spawnWith: expects a Dictionary argument">>, nil),
    #{fields := Fields, version := Version, module := Mod0} = Info,
    Mod = case Mod0 of undefined -> ?MODULE; _ -> Mod0 end,
    State0 = maps:from_list([{N, F()} || {N, F} <- Fields]),
    State = maps:merge(State0, Overrides),
    {Mod, State#{?CK => ClassName, '__class_mod__' => Mod, '__version__' => Version}}.

%% @doc `C spawnWith: overrides` typed by a user: as spawn/2, after checking
%% that every key names a field (internal spawns pass their own keys).
spawn_with(ClassName, Overrides) ->
    check_fields(ClassName, Overrides, 'spawnWith:'),
    ?MODULE:spawn(ClassName, Overrides).

%% @doc Refuse a key of `spawnWith:` (or of a supervisor child's `#with`)
%% that names no field of ClassName: a typo or a String key was dropped
%% silently, leaving the default.  Anything else is left to initial_state/3.
check_fields(ClassName, Overrides, Sel) when is_map(Overrides) ->
    case beamtalk_class:class_info(ClassName) of
        #{kind := actor, fields := Fields} ->
            Names = [N || {N, _} <- Fields],
            case [K || K <- maps:keys(Overrides), not lists:member(K, Names), K =/= ?CK] of
                [] -> ok;
                [Unknown | _] -> no_such_field(ClassName, Sel, Unknown, Names)
            end;
        _ -> ok
    end;
check_fields(_, _, _) ->
    ok.

no_such_field(ClassName, Sel, Key, FieldNames) ->
    Name = atom_to_binary(ClassName, utf8),
    Shown = case is_atom(Key) of
                true -> ["'", atom_to_binary(Key, utf8), "'"];
                false -> beamtalk_print:print_string(Key)
            end,
    Known = [atom_to_binary(N, utf8) || N <- FieldNames],
    Hint = case Key of
               _ when FieldNames =:= [] -> [Name, " has no fields"];
               _ when is_binary(Key) ->
                   case lists:member(Key, Known) of
                       true -> ["Field names are Symbols: #", Key];
                       false -> ["Its fields are: ", lists:join(", ", Known)]
                   end;
               _ -> ["Its fields are: ", lists:join(", ", Known)]
           end,
    beamtalk_exception:raise(runtime_error, ClassName, Sel,
                             iolist_to_binary([Name, " has no field ", Shown]),
                             iolist_to_binary(Hint)).

%% @doc Run `initialize` (if the class chain defines it) on a started actor;
%% a failure kills the actor and is raised in the caller, with a hint that
%% names the method (the message alone, `badarith`, did not say where).
initialize({beamtalk_object, ClassName, _, Pid} = Obj) ->
    case maps:is_key(initialize, beamtalk_class:instance_methods(ClassName)) of
        true ->
            try call(Obj, initialize, [])
            catch C:R:S ->
                    exit(Pid, kill),
                    case beamtalk_exception:is_control(C, R) of
                        true -> erlang:raise(C, R, S);
                        false -> erlang:raise(error, in_initialize(ClassName, beamtalk_errors:wrap(C, R, S)), S)
                    end
            end;
        false -> ok
    end.

in_initialize(ClassName, #{error := Rec} = Ex) ->
    Note = ["raised by ", atom_to_binary(ClassName, utf8), ">>initialize, so spawn started no actor"],
    Hint = case maps:get(hint, Rec, nil) of
               H when H =:= nil; H =:= undefined -> iolist_to_binary(Note);
               H when is_binary(H) -> iolist_to_binary([H, " (", Note, ")"]);
               H -> H
           end,
    Ex#{error := Rec#{hint := Hint}}.

%% An actor runs with the workspace's memory limit (set by
%% beamtalk_workspace; none on a node Beamtalk was attached to): without it,
%% one actor allocating without bound took the whole node down.
start_link(ClassAndMod, State) ->
    Opts = case max_heap_words() of
               0 -> [];
               W -> [{spawn_opt, [{max_heap_size, #{size => W, kill => true, error_logger => false}}]}]
           end,
    gen_server:start_link(?MODULE, {ClassAndMod, State}, Opts).

max_heap_words() -> persistent_term:get(beamtalk_actor_max_heap, 0).

%%% ---------------------------------------------------------------------
%%% Sending (caller side)
%%% ---------------------------------------------------------------------

%% @doc A send to an actor record: lifecycle selectors are answered here
%% (they work on dead actors too), everything else is a synchronous call.
send({beamtalk_object, _, _, Pid} = R, Sel, Args) ->
    case Sel of
        isAlive when Args =:= [] -> is_alive(Pid);
        stop when Args =:= [] -> stop(Pid);
        kill when Args =:= [] -> kill(Pid);
        monitor when Args =:= [] -> erlang:monitor(process, Pid);
        pid when Args =:= [] -> Pid;
        _ -> call(R, Sel, Args)
    end.

%% @doc Synchronous call with the default timeout (5000 ms).
call(R, Sel, Args) ->
    call(R, Sel, Args, call_timeout()).

call({beamtalk_object, Class, _, Pid} = Self, Sel, Args, Timeout) when Pid =:= self() ->
    case get('$bt_vstate') of
        State when is_map(State) ->
            %% inside a value-style method of this actor (beamtalk_send:invoke_v)
            {T, _} = current(State),
            {Result, State1} = beamtalk_send:invoke(T, Self, State, Sel, Args),
            put('$bt_vstate', State1),
            Result;
        _ -> self_call_error(Class, Sel, Args, Timeout)
    end;
call({beamtalk_object, Class, _, Pid}, Sel, Args, Timeout) ->
    %% (beamtalk_where finds whom a caller waits for from its stack and its
    %% monitors: nothing is written here, on the path of every actor send)
    try gen_server:call(Pid, {Sel, Args}, Timeout) of
        {ok, Result} -> Result;
        {error, C, R, S} -> erlang:raise(C, R, S)
    catch
        exit:{timeout, {gen_server, call, _}} ->
            Hint = case beamtalk_where:call_timeout_hint(Class, Pid) of
                       default -> <<"The actor may be busy or waiting on another actor (deadlock)">>;
                       H -> H
                   end,
            beamtalk_exception:raise(
              timeout, Class, Sel,
              iolist_to_binary(io_lib:format("Actor call timed out: a ~ts did not answer '~ts' within ~b ms",
                                             [Class, Sel, Timeout])),
              Hint);
        exit:{killed, {gen_server, call, _}} when node(Pid) =:= node() ->
            killed(Class, Sel);
        exit:{_Reason, {gen_server, call, _}} ->
            case node(Pid) =/= node() andalso not lists:member(node(Pid), nodes()) of
                true -> node_gone(Class, Sel, node(Pid));
                false -> dead(Class, Sel)
            end
    end.

%% An actor of another node (`spawnOn:`) whose node went away.
node_gone(Class, Sel, Node) ->
    N = atom_to_binary(Node, utf8),
    beamtalk_exception:raise(
      actor_dead, Class, Sel,
      iolist_to_binary(["Cannot send '", atom_to_binary(Sel, utf8), "' to a ",
                        atom_to_binary(Class, utf8), " on ", N, ": node ", N,
                        " went away, with every actor that ran there"]),
      <<"Workspace nodes lists the nodes still connected">>).

self_call_error(Class, Sel, _Args, _Timeout) ->
    beamtalk_exception:raise(
      runtime_error, Class, Sel,
      iolist_to_binary(["A ", atom_to_binary(Class, utf8), " sent '", atom_to_binary(Sel, utf8),
                        "' to itself through a reference; this would deadlock"]),
      <<"Inside an actor method, send to self directly">>).

%% The actor was killed while it answered: at its memory limit (the VM
%% kills with reason `killed`), or by an explicit kill.
killed(Class, Sel) ->
    Limit = case max_heap_words() of
                0 -> <<>>;
                W -> io_lib:format(" (at the workspace's memory limit of ~b MB per process, "
                                   "BEAMTALK_MAX_HEAP_MB, or by `kill`)",
                                   [W * erlang:system_info(wordsize) div (1024 * 1024)])
            end,
    beamtalk_exception:raise(
      actor_dead, Class, Sel,
      iolist_to_binary(["Cannot send '", atom_to_binary(Sel, utf8), "' to a ",
                        atom_to_binary(Class, utf8), " (actor process has terminated): "
                        "it was killed while answering", Limit]),
      <<"Spawn a new actor; keep what an actor holds bounded">>).

dead(Class, Sel) ->
    beamtalk_exception:raise(
      actor_dead, Class, Sel,
      iolist_to_binary(["Cannot send '", atom_to_binary(Sel, utf8), "' to a ",
                        atom_to_binary(Class, utf8), " (actor process has terminated)"]),
      <<"Check isAlive before sending, or spawn a new actor">>).

is_alive(Pid) when node(Pid) =:= node() ->
    is_process_alive(Pid);
is_alive(Pid) ->
    rpc:call(node(Pid), erlang, is_process_alive, [Pid], 5000) =:= true.

%% @doc `actor stop`: graceful, idempotent, answers ok.
stop(Pid) when Pid =:= self() ->
    stop_self();
stop(Pid) ->
    try gen_server:stop(Pid, normal, call_timeout())
    catch exit:_ -> ok
    end,
    ok.

%% @doc Stop the calling actor once the current message has been answered.
stop_self() ->
    self() ! '$bt_stop',
    ok.

%% @doc `actor kill`: answers ok (also when already dead).
kill(Pid) ->
    exit(Pid, kill),
    ok.

call_timeout() ->
    persistent_term:get(beamtalk_actor_call_timeout, ?DEFAULT_TIMEOUT).

%% @doc Change the synchronous call timeout (tests use short ones).
set_call_timeout(Ms) when is_integer(Ms), Ms > 0; Ms =:= infinity ->
    persistent_term:put(beamtalk_actor_call_timeout, Ms).

%% @doc The field names of an actor's class.
fields_of(ClassName) ->
    case beamtalk_class:class_info(ClassName) of
        #{fields := Fs} -> [N || {N, _} <- Fs];
        _ -> []
    end.

%%% ---------------------------------------------------------------------
%%% gen_server
%%% ---------------------------------------------------------------------

init({{Class, Mod}, {'$bt_revived', State}}) ->
    %% brought back from the store (beamtalk_revive): already stored
    put('$bt_self', {beamtalk_object, Class, Mod, self()}),
    beamtalk_actor_io:adopt(),
    {ok, State};
init({{Class, Mod}, State}) ->
    put('$bt_self', {beamtalk_object, Class, Mod, self()}),
    beamtalk_actor_io:adopt(),
    beamtalk_revive:changed(State),
    {ok, State}.

handle_call({Sel, Args}, {Caller, _}, State0) when is_atom(Sel), is_list(Args) ->
    %% Who is waiting on this message: the Transcript follows it to route
    %% text an actor writes for an evaluation to that evaluation's output.
    put('$bt_caller', Caller),
    case current(State0) of
        {not_actor, Kind} -> {reply, {error, error, not_actor(State0, Sel, Kind), []}, State0};
        {T, State} -> run_call(T, State0, State, Sel, Args)
    end;
handle_call(Other, _From, State) ->
    %% Only Erlang code sends anything else (`gen_server:call(Pid, count)`):
    %% an {error, Text} it can read (what to send, or beamtalk:send/3),
    %% not the internal error reply.
    Example = case Other of
                  Sel when is_atom(Sel) -> [": {", atom_to_binary(Sel, utf8), ", []}"];
                  _ -> <<", e.g. {printString, []}">>
              end,
    {reply, {error, iolist_to_binary(["an actor takes {Selector, Arguments} requests", Example,
                                      " (answered {ok, Value}), or use beamtalk:send(Pid, Selector, Arguments)"])},
     State}.

run_call(T, State0, State, Sel, Args) ->
    Self = get('$bt_self'),
    try beamtalk_send:invoke(T, Self, State, Sel, Args) of
        {Result, State1} when is_map(State1) ->
            snapshot(State0, State1),
            {reply, {ok, Result}, State1};
        Other -> {reply, {error, error, bad_method_result(Sel, Other), []}, State}
    catch
        C:R:S ->
            %% An Erlang call's exception is mapped here, where the actor
            %% (Beamtalk code) catches it: the note naming the function
            %% lives in this process (beamtalk_erlang:noted/2).
            case beamtalk_erlang:noted(C, R) of
                {ok, Ex} -> {reply, {error, error, Ex, S}, State};
                none ->
                    case beamtalk_cluster:foreign_block(C, R, S) of
                        {ok, Ex} -> {reply, {error, error, Ex, S}, State};
                        none -> {reply, {error, C, beamtalk_exception:clean(R), S}, State}
                    end
            end
    end.

%% The actor's class was redefined as an Object or Value subclass: its
%% methods are now value methods of map instances and cannot run on this
%% process's state (they failed on the first field read).  The actor keeps
%% its state and answers again once the class is an Actor subclass again.
not_actor(#{?CK := Class}, Sel, Kind) ->
    C = atom_to_binary(Class, utf8),
    What = case Kind of value -> <<"a Value subclass">>; _ -> <<"an Object subclass">> end,
    beamtalk_exception:new(runtime_error, Class, Sel,
                           iolist_to_binary(["Cannot send '", atom_to_binary(Sel, utf8), "' to a ", C,
                                             " actor: ", C, " is now ", What, ", not an Actor"]),
                           iolist_to_binary(["define ", C, " as an Actor subclass again to reach this "
                                             "actor, or make new instances with ", C, " new"])).

handle_cast({cast, Sel, Args}, State0) when is_atom(Sel), is_list(Args) ->
    erase('$bt_caller'),                 % nobody waits: background work
    case current(State0) of
        {not_actor, _} -> {noreply, State0};
        {T, State} ->
            try beamtalk_send:invoke(T, get('$bt_self'), State, Sel, Args) of
                {_Result, State1} when is_map(State1) ->
                    snapshot(State0, State1),
                    {noreply, State1};
                _ -> {noreply, State}
            catch _:_ -> {noreply, State}
            end
    end;
handle_cast(_Msg, State) ->
    {noreply, State}.

handle_info('$bt_stop', State) ->
    {stop, normal, State};
handle_info(_Msg, State) ->
    {noreply, State}.

terminate(_Reason, _State) -> ok.

code_change(_Old, State, _Extra) -> {ok, State}.

%% A revivable actor's changed state is noted for the store (beamtalk_revive).
snapshot(Same, Same) -> ok;
snapshot(_, State) -> beamtalk_revive:changed(State).

bad_method_result(Sel, Other) ->
    beamtalk_exception:new(internal_error, undefined, Sel,
                           iolist_to_binary(io_lib:format(
                                              "Actor method ~ts returned ~tp instead of {Result, State}",
                                              [Sel, Other])), nil).

%% The class's current method table, and the state brought up to the
%% class's current version: fields a redefinition added are filled with
%% their defaults (hot reload).  One persistent_term lookup per message.
current(#{?CK := Class, '__version__' := V} = State) ->
    case persistent_term:get(Class, undefined) of
        #{'$info' := #{version := V}} = T -> {T, State};
        #{'$info' := #{kind := Kind}} when Kind =:= value; Kind =:= object -> {not_actor, Kind};
        #{'$info' := Info} = T -> {T, upgrade(State, Info)};
        _ -> {#{}, State}
    end;
current(State) ->
    {beamtalk_class:raw_table(maps:get(?CK, State, undefined)), State}.

%% @doc Bring a state map up to its class's current version.
upgrade(#{?CK := Class} = State) ->
    case beamtalk_class:class_info(Class) of
        undefined -> State;
        Info -> upgrade(State, Info)
    end.

upgrade(#{'__version__' := V} = State, #{version := V}) ->
    State;
upgrade(State, #{version := V1, fields := Fields}) ->
    Missing = [{N, F} || {N, F} <- Fields, not maps:is_key(N, State)],
    State1 = lists:foldl(fun({N, F}, Acc) ->
                                 Acc#{N => try F() catch _:_ -> nil end}
                         end, State, Missing),
    State1#{'__version__' => V1}.
