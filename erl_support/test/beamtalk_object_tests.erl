%% Value objects and plain objects (spec semantics §3.2, §3.3).
-module(beamtalk_object_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ex_class/1, ex_hint/1, ps/1]).

object_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun new_uses_defaults/0,
      fun defaults_are_evaluated_per_instance/0,
      fun new_colon_merges/0,
      fun new_colon_rejects_non_maps/0,
      fun keyword_constructor/0,
      fun getters_and_with_setters/0,
      fun user_methods_win_over_synthesised/0,
      fun object_subclass_gets_no_accessors/0,
      fun inherited_fields/0,
      fun structural_equality/0,
      fun field_reflection/0,
      fun immutable_values/0,
      fun abstract_classes/0,
      fun primitive_classes/0,
      fun actor_new_says_spawn/0,
      fun special_constructors/0,
      fun class_side_new_override_is_used_by_constructors/0,
      fun many_fields_constructor/0,
      fun redefinition_adds_fields_to_new_instances/0]}.

new_uses_defaults() ->
    bt_test:define_point('Point'),
    ?assertEqual(#{'$beamtalk_class' => 'Point', x => 0, y => 0}, s(g('Point'), new)),
    ?assertEqual(<<"a Point">>, ps(s(g('Point'), new))).

defaults_are_evaluated_per_instance() ->
    beamtalk_class:define(#{name => 'Stamp', superclass => 'Value',
                            fields => [{id, fun() -> erlang:unique_integer() end}]}),
    A = s(g('Stamp'), new), B = s(g('Stamp'), new),
    ?assertNot(maps:get(id, A) =:= maps:get(id, B)).

new_colon_merges() ->
    bt_test:define_point('Point'),
    ?assertEqual(#{'$beamtalk_class' => 'Point', x => 3, y => 0}, s(g('Point'), 'new:', [#{x => 3}])),
    %% extra keys are not rejected; the class key cannot be overridden
    P = s(g('Point'), 'new:', [#{z => 1, '$beamtalk_class' => 'Other'}]),
    ?assertEqual('Point', maps:get('$beamtalk_class', P)),
    ?assertEqual(1, maps:get(z, P)).

new_colon_rejects_non_maps() ->
    bt_test:define_point('Point'),
    F = fun() -> s(g('Point'), 'new:', [42]) end,
    ?assertEqual(type_error, ex_kind(F)),
    ?assertEqual('TypeError', ex_class(F)),
    ?assertEqual(<<"new: expects a Dictionary argument">>, ex_message(F)).

keyword_constructor() ->
    bt_test:define_point('Point'),
    P = s(g('Point'), 'x:y:', [3, 4]),
    ?assertEqual(#{'$beamtalk_class' => 'Point', x => 3, y => 4}, P),
    ?assertEqual(7, s(P, sum)),
    ?assertEqual(true, s(g('Point'), 'respondsTo:', ['x:y:'])),
    %% no constructor for a field-less value class
    beamtalk_class:define(#{name => 'Unit', superclass => 'Value'}),
    ?assertEqual(#{'$beamtalk_class' => 'Unit'}, s(g('Unit'), new)).

getters_and_with_setters() ->
    bt_test:define_point('Point'),
    P = s(g('Point'), 'x:y:', [3, 4]),
    ?assertEqual(3, s(P, x)),
    ?assertEqual(4, s(P, y)),
    P2 = s(P, 'withX:', [10]),
    ?assertEqual(10, s(P2, x)),
    ?assertEqual(3, s(P, x)),                          % the original is unchanged
    beamtalk_class:define(#{name => 'Person', superclass => 'Value',
                            fields => [{firstName, fun() -> <<"Ann">> end}]}),
    ?assertEqual(<<"Bob">>, s(s(s(g('Person'), new), 'withFirstName:', [<<"Bob">>]), firstName)).

user_methods_win_over_synthesised() ->
    beamtalk_class:define(#{name => 'Celsius', superclass => 'Value',
                            fields => [{degrees, fun() -> 0 end}],
                            methods => #{degrees => {v, fun(Self) -> {custom, maps:get(degrees, Self)} end}},
                            class_methods => #{'degrees:' => fun(_Cls, D) -> {made, D} end}}),
    ?assertEqual({custom, 0}, s(s(g('Celsius'), new), degrees)),
    ?assertEqual({made, 5}, s(g('Celsius'), 'degrees:', [5])),
    ?assertEqual(#{'$beamtalk_class' => 'Celsius', degrees => 9},
                 s(s(g('Celsius'), new), 'withDegrees:', [9])).

object_subclass_gets_no_accessors() ->
    beamtalk_class:define(#{name => 'Box', superclass => 'Object',
                            fields => [{content, fun() -> nil end}]}),
    B = s(g('Box'), new),
    ?assertEqual(#{'$beamtalk_class' => 'Box', content => nil}, B),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(B, content) end)),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(B, 'withContent:', [1]) end)),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(g('Box'), 'content:', [1]) end)),
    ?assertEqual(#{'$beamtalk_class' => 'Box', content => 1}, s(g('Box'), 'new:', [#{content => 1}])).

inherited_fields() ->
    bt_test:define_point('Point'),
    beamtalk_class:define(#{name => 'Point3', superclass => 'Point',
                            fields => [{z, fun() -> 0 end}]}),
    P = s(g('Point3'), 'x:y:z:', [1, 2, 3]),
    ?assertEqual(#{'$beamtalk_class' => 'Point3', x => 1, y => 2, z => 3}, P),
    ?assertEqual(3, s(P, sum)),                       % inherited method
    ?assertEqual(1, s(P, x)),                         % inherited getter
    ?assertEqual(3, s(P, z)),
    ?assertEqual([x, y, z], s(g('Point3'), allFieldNames)),
    ?assertEqual([z], s(g('Point3'), fieldNames)).

structural_equality() ->
    bt_test:define_point('Point'),
    A = s(g('Point'), 'x:y:', [1, 2]),
    B = s(g('Point'), 'x:y:', [1, 2]),
    C = s(g('Point'), 'x:y:', [1, 3]),
    ?assertEqual(true, s(A, '==', [B])),
    ?assertEqual(false, s(A, '==', [C])),
    ?assertEqual(true, A == B),
    ?assertEqual(s(A, hash), s(B, hash)).

field_reflection() ->
    bt_test:define_point('Point'),
    P = s(g('Point'), 'x:y:', [1, 2]),
    ?assertEqual([x, y], s(P, fieldNames)),
    ?assertEqual(2, s(P, 'fieldAt:', [y])),
    ?assertEqual(<<"Point has no field 'q'">>, ex_message(fun() -> s(P, 'fieldAt:', [q]) end)),
    ?assertEqual(immutable_value, ex_kind(fun() -> s(42, 'fieldAt:', [x]) end)),
    ?assertEqual([], s(42, fieldNames)).

immutable_values() ->
    bt_test:define_point('Point'),
    P = s(g('Point'), new),
    F = fun() -> s(P, 'fieldAt:put:', [x, 1]) end,
    ?assertEqual(immutable_value, ex_kind(F)),
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(<<"Cannot call 'fieldAt:put:' on Point (immutable value)">>, ex_message(F)),
    ?assertMatch(<<_/binary>>, ex_hint(F)),
    ?assertNotEqual(nomatch, binary:match(ex_hint(F), <<"withSlot:">>)),
    ?assertEqual(immutable_value, ex_kind(fun() -> s(42, 'fieldAt:put:', [x, 1]) end)).

abstract_classes() ->
    beamtalk_class:define(#{name => 'Shape2', superclass => 'Object', modifiers => [abstract]}),
    F = fun() -> s(g('Shape2'), new) end,
    ?assertEqual(instantiation_error, ex_kind(F)),
    ?assertEqual('InstantiationError', ex_class(F)),
    ?assertEqual(<<"Cannot call 'new' on Shape2">>, ex_message(F)),
    ?assertEqual(<<"Abstract classes cannot be instantiated. Subclass it first.">>, ex_hint(F)),
    ?assertEqual(<<"Abstract classes cannot be instantiated. Subclass it first.">>,
                 ex_hint(fun() -> s(g('Number'), new) end)),
    ?assertEqual(instantiation_error, ex_kind(fun() -> s(g('Collection'), new) end)),
    %% a concrete subclass works
    beamtalk_class:define(#{name => 'Square2', superclass => 'Shape2'}),
    ?assertEqual(#{'$beamtalk_class' => 'Square2'}, s(g('Square2'), new)).

primitive_classes() ->
    [begin
         F = fun() -> s(g(C), new) end,
         ?assertEqual({C, instantiation_error}, {C, ex_kind(F)}),
         ?assertEqual(iolist_to_binary(["Cannot call 'new' on ", atom_to_binary(C)]), ex_message(F)),
         ?assertEqual(iolist_to_binary([atom_to_binary(C), " is a primitive type and cannot be instantiated with new"]),
                      ex_hint(F)),
         ?assertEqual(instantiation_error, ex_kind(fun() -> s(g(C), 'new:', [#{}]) end))
     end || C <- ['Integer', 'String', 'Float', 'Symbol', 'True', 'False', 'UndefinedObject',
                  'Block', 'CompiledMethod']].

actor_new_says_spawn() ->
    beamtalk_class:define(bt_test:counter_desc('NewCounter')),
    F = fun() -> s(g('NewCounter'), new) end,
    ?assertEqual(instantiation_error, ex_kind(F)),
    ?assertEqual(<<"Cannot call 'new' on NewCounter">>, ex_message(F)),
    ?assertEqual(<<"Use spawn instead">>, ex_hint(F)),
    ?assertEqual(<<"Use spawn instead">>, ex_hint(fun() -> s(g('NewCounter'), 'new:', [#{}]) end)).

special_constructors() ->
    ?assertEqual([], s(g('List'), new)),
    ?assertEqual(#{}, s(g('Dictionary'), new)),
    ?assertEqual(#{a => 1}, s(g('Dictionary'), 'new:', [#{a => 1}])),
    ?assertEqual(type_error, ex_kind(fun() -> s(g('Dictionary'), 'new:', [1]) end)),
    ?assertEqual({}, s(g('Tuple'), new)),
    ?assertEqual(<<"Set()">>, ps(s(g('Set'), new))),
    ?assertEqual(#{'$beamtalk_class' => 'Object'}, s(g('Object'), new)),
    ?assertEqual(#{'$beamtalk_class' => 'Association', key => nil, value => nil},
                 s(g('Association'), new)).

class_side_new_override_is_used_by_constructors() ->
    beamtalk_class:define(#{name => 'Tagged', superclass => 'Value',
                            fields => [{a, fun() -> 0 end}],
                            class_methods => #{new => fun(Cls) ->
                                                              Base = beamtalk_send:super_send('Tagged', Cls, new, []),
                                                              Base#{tag => yes}
                                                      end}}),
    ?assertEqual(#{'$beamtalk_class' => 'Tagged', a => 0, tag => yes}, s(g('Tagged'), new)),
    ?assertEqual(#{'$beamtalk_class' => 'Tagged', a => 5, tag => yes}, s(g('Tagged'), 'a:', [5])),
    ?assertEqual(#{'$beamtalk_class' => 'Tagged', a => 6, tag => yes}, s(g('Tagged'), 'new:', [#{a => 6}])).

many_fields_constructor() ->
    Names = [list_to_atom([C]) || C <- "abcdefghijkl"],
    beamtalk_class:define(#{name => 'Wide', superclass => 'Value',
                            fields => [{N, fun() -> 0 end} || N <- Names]}),
    Sel = list_to_atom(lists:append([[C, $:] || C <- "abcdefghijkl"])),
    W = s(g('Wide'), Sel, lists:seq(1, 12)),
    ?assertEqual(12, s(W, l)),
    ?assertEqual(1, s(W, a)).

redefinition_adds_fields_to_new_instances() ->
    beamtalk_class:define(#{name => 'Growing', superclass => 'Value',
                            fields => [{a, fun() -> 1 end}]}),
    Old = s(g('Growing'), new),
    beamtalk_class:define(#{name => 'Growing', superclass => 'Value',
                            fields => [{a, fun() -> 1 end}, {b, fun() -> 2 end}]}),
    ?assertEqual(#{'$beamtalk_class' => 'Growing', a => 1, b => 2}, s(g('Growing'), new)),
    ?assertEqual(2, s(s(g('Growing'), new), b)),
    %% an old value keeps its map (values are immutable); the getter answers
    %% the new field's default
    ?assertEqual(#{'$beamtalk_class' => 'Growing', a => 1}, Old),
    ?assertEqual(2, s(Old, b)).
