%% @doc Primitive methods of Actor (stdlib §8).  Instance methods are
%% actor style: `F(Self, State, Args...) -> {Result, State1}`, run inside
%% the actor's process.  Class-side methods are value style.  The stdlib
%% compiles `Actor`'s own methods actor style too (classes.py, kind_for), so
%% a send from outside (`anActor fieldAt: #total`) is a call into the actor,
%% and the primitive reads or writes the state the actor holds.
-module(beamtalk_prim_actor).

-export(['fieldAt:'/3, 'fieldAt:put:'/4, 'fieldNames'/2, 'isAlive'/2, 'pid'/2, 'stop'/2,
         'kill'/2, 'monitor'/2, 'perform:'/3, 'perform:withArguments:'/4,
         'perform:with:'/4, 'perform:with:with:'/5,
         'class spawn'/1, 'class spawnWith:'/2, 'class spawnOn:'/2, 'class new'/1, 'class new:'/2]).

'fieldAt:'(Self, _State, Name) when not is_atom(Name) ->
    beamtalk_send:symbol_expected(element(2, Self), 'fieldAt:', "a field name (a Symbol)", Name);
'fieldAt:'(Self, State, Name) ->
    case lists:member(Name, beamtalk_actor:fields_of(element(2, Self))) of
        true -> {maps:get(Name, State, nil), State};
        false -> {no_field(Self, 'fieldAt:', Name), State}
    end.

'fieldAt:put:'(Self, _State, Name, _Value) when not is_atom(Name) ->
    beamtalk_send:symbol_expected(element(2, Self), 'fieldAt:put:', "a field name (a Symbol)", Name);
'fieldAt:put:'(Self, State, Name, Value) ->
    case lists:member(Name, beamtalk_actor:fields_of(element(2, Self))) of
        true -> {Value, State#{Name => Value}};
        false -> {no_field(Self, 'fieldAt:put:', Name), State}
    end.

no_field(Self, Sel, Name) ->
    C = element(2, Self),
    beamtalk_exception:raise(runtime_error, C, Sel,
                             iolist_to_binary([atom_to_binary(C, utf8), " has no field '",
                                               beamtalk_print:display_string(Name), "'"]),
                             beamtalk_object:fields_hint(C, beamtalk_actor:fields_of(C), Name)).

'fieldNames'(Self, State) -> {beamtalk_actor:fields_of(element(2, Self)), State}.

'isAlive'(_Self, State) -> {true, State}.
'pid'(Self, State) -> {element(4, Self), State}.
'stop'(_Self, State) -> beamtalk_actor:stop_self(), {ok, State}.
%% `self kill` inside a method: the process dies at once (an `exit(kill)`
%% exception would be caught by the actor server and only re-raised in the
%% caller); the caller sees the actor die while serving its message.
'kill'(_Self, _State) -> exit(self(), kill).
'monitor'(Self, State) -> {erlang:monitor(process, element(4, Self)), State}.

%% perform: inside the actor runs the method here (a call to the actor's
%% own pid would deadlock).
'perform:'(Self, State, Sel) -> perform(Self, State, Sel, []).
'perform:with:'(Self, State, Sel, A) -> perform(Self, State, Sel, [A]).
'perform:with:with:'(Self, State, Sel, A, B) -> perform(Self, State, Sel, [A, B]).
'perform:withArguments:'(Self, State, Sel, Args) -> perform(Self, State, Sel, Args).

perform(Self, State, Sel, Args) when is_atom(Sel), is_list(Args) ->
    case beamtalk_send:selector_arity(Sel) =:= length(Args) of
        true -> beamtalk_send:self_send(Self, State, Sel, Args);
        false -> {beamtalk_send:perform(Self, Sel, Args), State}   % raises the arity error
    end;
perform(Self, State, Sel, Args) ->
    %% not a Symbol, or not a List of arguments: the same TypeError as a value's
    {beamtalk_send:perform(Self, Sel, Args), State}.

'class spawn'(Cls) -> beamtalk_actor:spawn(beamtalk_class:name_of(Cls), #{}).
'class spawnWith:'(Cls, Map) -> beamtalk_actor:spawn_with(beamtalk_class:name_of(Cls), Map).
'class spawnOn:'(Cls, Node) -> beamtalk_cluster:spawn_on(beamtalk_class:name_of(Cls), node_arg(Cls, Node), #{}).

node_arg(_Cls, Node) when is_atom(Node), Node =/= nil -> Node;
node_arg(_Cls, Node) when is_binary(Node) -> binary_to_atom(Node, utf8);
node_arg(Cls, Other) ->
    beamtalk_exception:raise(type_error, beamtalk_class:name_of(Cls), 'spawnOn:',
                             iolist_to_binary(["spawnOn: expects a node name (a Symbol like #'app@host'), not ",
                                               beamtalk_print:print_string(Other)]),
                             <<"Workspace nodes lists the connected nodes">>).
'class new'(Cls) -> beamtalk_object:new(beamtalk_class:name_of(Cls)).
'class new:'(Cls, Map) -> beamtalk_object:new(beamtalk_class:name_of(Cls), Map).
