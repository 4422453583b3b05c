%% @doc Primitive methods of Class (stdlib §7): the class objects' own
%% protocol on top of Behaviour.
-module(beamtalk_prim_class).

-export(['name'/1, 'printString'/1, 'displayString'/1, 'asString'/1,
         'classBuilder'/1, 'isClass'/1, 'spawn'/1, 'spawnWith:'/2]).

%% @doc `Counter name` is the Symbol #Counter.
'name'(Self) -> beamtalk_class:name_of(Self).
'printString'(Self) -> beamtalk_print:base_print_string(Self).
'displayString'(Self) -> beamtalk_print:base_print_string(Self).
'asString'(Self) -> beamtalk_print:base_print_string(Self).
'isClass'(_) -> true.

%% @doc `Object classBuilder`: a ClassBuilder actor preset with this class
%% as superclass (seed ADR 0038).  It also remembers the class it was asked
%% of: without `name:`, `register` updates that class (README "ClassBuilder").
'classBuilder'(Self) ->
    beamtalk_actor:spawn('ClassBuilder', #{superclassRef => Self, originClass => Self}).

%% @doc `C spawn` for non-actor classes: a clear instantiation error (actor
%% classes answer it from Actor's class side).
'spawn'(Self) -> spawn_from(Self, #{}).
'spawnWith:'(Self, Map) -> spawn_from(Self, Map).

%% A metaclass (`Counter class spawn`) makes no instances, as with `new`.
spawn_from(Self, Map) ->
    case beamtalk_class:behaviour(Self) of
        {meta, _} -> beamtalk_send:send(Self, new, []);
        _ -> beamtalk_actor:spawn_with(beamtalk_class:name_of(Self), Map)
    end.
