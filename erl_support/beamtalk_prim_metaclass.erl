%% @doc Primitive methods of Metaclass (seed ADR 0034, DESIGN D8).  Self is
%% a metaclass object `{beamtalk_object, 'Metaclass', beamtalk_class, Pid}`,
%% Pid being the process of the class it describes; the rest of its
%% protocol comes from Behaviour and Class.
-module(beamtalk_prim_metaclass).

-export(['isMeta'/1, 'isClass'/1, 'isMetaclass'/1, 'thisClass'/1, 'name'/1,
         'printString'/1, 'displayString'/1, 'asString'/1, 'classMethods'/1,
         'localClassMethods'/1, 'classIncludesSelector:'/2, 'classBuilder'/1,
         'class new'/1, 'class new:'/2]).

'isMeta'(_) -> true.
'isClass'(_) -> false.
'isMetaclass'(_) -> true.
'thisClass'(Self) -> beamtalk_class:class_object(beamtalk_class:name_of(Self)).
%% @doc `Counter class name` is the String "Counter class".
'name'(Self) -> beamtalk_print:base_print_string(Self).
'printString'(Self) -> beamtalk_print:base_print_string(Self).
'displayString'(Self) -> beamtalk_print:base_print_string(Self).
'asString'(Self) -> beamtalk_print:base_print_string(Self).
'classMethods'(Self) ->
    lists:sort(maps:keys(beamtalk_class:class_side_methods(beamtalk_class:name_of(Self)))).
'localClassMethods'(Self) ->
    lists:sort(maps:keys(beamtalk_class:behaviour_own(beamtalk_class:behaviour(Self)))).
'classIncludesSelector:'(Self, Sel) ->
    maps:is_key(Sel, beamtalk_class:behaviour_own(beamtalk_class:behaviour(Self))).
'classBuilder'(_Self) ->
    beamtalk_exception:raise(runtime_error, 'Metaclass', classBuilder,
                             <<"Metaclass is sealed and cannot be subclassed">>, nil).

%% @doc `Metaclass new`: metaclasses are not made, they come with classes.
'class new'(_Cls) ->
    beamtalk_exception:raise(user_error, 'Metaclass', new,
                             <<"Cannot create a Metaclass with new">>,
                             <<"Every class has its metaclass: use x class to obtain it">>).
'class new:'(Cls, _) -> 'class new'(Cls).
