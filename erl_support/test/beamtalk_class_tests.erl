%% Classes: definition from description maps, the registry, the metaclass
%% tower (DESIGN D8), class variables, protected and sealed classes,
%% redefinition in place, reflection.
-module(beamtalk_class_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ex_class/1, ps/1]).

setup() -> bt_test:boot().

class_test_() ->
    {setup, fun setup/0, fun(_) -> ok end,
     [fun define_answers_class_object/0,
      fun class_process_is_registered/0,
      fun boot_is_idempotent/0,
      fun kind_follows_superclass_chain/0,
      fun metaclass_tower/0,
      fun metaclass_protocol/0,
      fun parallel_hierarchy_everywhere/0,
      fun class_protocol/0,
      fun reflection/0,
      fun class_methods_are_inherited_along_the_metaclass_chain/0,
      fun class_variables/0,
      fun class_variables_survive_redefinition/0,
      fun globals/0,
      fun unknown_class/0,
      fun stdlib_classes_are_protected/0,
      fun stdlib_may_reregister_its_classes/0,
      fun sealed_superclass/0,
      fun sealed_method/0,
      fun missing_superclass/0,
      fun circular_superclass/0,
      fun redefinition_updates_subclass_tables/0,
      fun removed_methods_become_dnu/0,
      fun remove_from_system/0,
      fun compiled_method/0,
      fun redefinition_from_another_module_warns/0,
      fun info_for_the_compiler/0,
      fun add_method/0,
      fun add_method_to_live_actors/0,
      fun add_method_errors/0,
      fun stdlib_hierarchy/0,
      fun bad_descriptions_are_type_errors/0]}.

define_answers_class_object() ->
    C = beamtalk_class:define(#{name => 'Alpha', superclass => 'Object'}),
    ?assertMatch({beamtalk_object, 'Alpha class', beamtalk_class, Pid} when is_pid(Pid), C),
    ?assertEqual(C, g('Alpha')),
    ?assertEqual(<<"Alpha">>, ps(C)),
    ?assertEqual('Alpha', s(C, name)).

class_process_is_registered() ->
    {beamtalk_object, _, _, Pid} = beamtalk_class:define(#{name => 'Beta', superclass => 'Object'}),
    ?assertEqual(Pid, whereis(beamtalk_class_Beta)),
    %% redefinition keeps the same process
    {beamtalk_object, _, _, Pid2} = beamtalk_class:define(#{name => 'Beta', superclass => 'Object'}),
    ?assertEqual(Pid, Pid2).

boot_is_idempotent() ->
    Before = g('Integer'),
    ok = beamtalk_bootstrap:boot(),
    ?assertEqual(Before, g('Integer')).

kind_follows_superclass_chain() ->
    beamtalk_class:define(#{name => 'Shape', superclass => 'Object'}),
    beamtalk_class:define(#{name => 'Triangle', superclass => 'Shape'}),
    beamtalk_class:define(#{name => 'Money', superclass => 'Value'}),
    beamtalk_class:define(#{name => 'Euro', superclass => 'Money'}),
    beamtalk_class:define(bt_test:counter_desc('KindCounter')),
    beamtalk_class:define(#{name => 'SubCounter', superclass => 'KindCounter'}),
    ?assertEqual(object, maps:get(kind, beamtalk_class:class_info('Triangle'))),
    ?assertEqual(value, maps:get(kind, beamtalk_class:class_info('Euro'))),
    ?assertEqual(actor, maps:get(kind, beamtalk_class:class_info('SubCounter'))),
    ?assertEqual(value, s(g('Euro'), kind)).

metaclass_tower() ->
    beamtalk_class:define(bt_test:counter_desc('Counter')),
    Counter = g('Counter'),
    Meta = s(Counter, class),
    {beamtalk_object, _, _, CPid} = Counter,
    %% Counter class is Counter's metaclass: same pid, tag 'Metaclass'
    ?assertEqual({beamtalk_object, 'Metaclass', beamtalk_class, CPid}, Meta),
    ?assertEqual(g('Metaclass'), s(Meta, class)),
    Metaclass = g('Metaclass'),
    ?assert(s(s(s(Metaclass, class), class), '==', [Metaclass])),
    ?assertEqual(Metaclass, s(s(Metaclass, class), class)),
    ?assertEqual(s(g('Actor'), class), s(Meta, superclass)),
    ?assertEqual(g('Class'), s(s(g('ProtoObject'), class), superclass)),
    ?assertEqual(s(g('Object'), class), s(s(g('Actor'), class), superclass)),
    ?assertEqual(s(g('ProtoObject'), class), s(s(g('Object'), class), superclass)),
    %% no new processes for metaclasses
    ?assertEqual(CPid, element(4, Meta)),
    ?assertEqual(g('Integer'), s(42, class)),
    ?assertEqual(s(g('Integer'), class), s(s(42, class), class)),
    ?assertEqual(Metaclass, s(s(s(42, class), class), class)).

metaclass_protocol() ->
    beamtalk_class:define(bt_test:counter_desc('Counter')),
    Counter = g('Counter'),
    Meta = s(Counter, class),
    ?assertEqual(true, s(Meta, isMeta)),
    ?assertEqual(false, s(Meta, isClass)),
    ?assertEqual(false, s(Counter, isMeta)),
    ?assertEqual(true, s(Counter, isClass)),
    ?assertEqual(Counter, s(Meta, thisClass)),
    ?assertEqual(<<"Counter class">>, s(Meta, name)),
    ?assertEqual('Counter', s(Counter, name)),
    ?assertEqual(<<"Counter class">>, s(Meta, printString)),
    ?assertEqual(<<"Counter class">>, ps(Meta)),
    ?assertEqual(<<"Counter">>, ps(Counter)),
    ?assertEqual(<<"Metaclass">>, ps(g('Metaclass'))),
    ?assertEqual(<<"Metaclass class">>, ps(s(g('Metaclass'), class))),
    ?assertEqual(<<"Metaclass class">>, s(s(g('Metaclass'), class), name)),
    ?assertEqual(false, s(s(s(Counter, class), class), isMeta)),
    ?assertEqual(true, s(Meta, 'respondsTo:', [thisClass])),
    ?assertEqual(true, s(Meta, 'canUnderstand:', [spawn])),
    ?assertEqual(false, s(Meta, 'canUnderstand:', [increment])),
    ?assertEqual(true, s(Counter, 'canUnderstand:', [increment])),
    ?assertEqual(user_error, ex_kind(fun() -> s(g('Metaclass'), new) end)),
    ?assertEqual(<<"Metaclass does not understand 'frobnicate'">>,
                 ex_message(fun() -> s(Meta, frobnicate) end)),
    ?assertEqual(<<"Counter class does not understand 'frobnicate'">>,
                 ex_message(fun() -> s(Counter, frobnicate) end)).

parallel_hierarchy_everywhere() ->
    %% Foo class superclass == Foo superclass class, for every stdlib class
    [begin
         C = g(Name),
         case s(C, superclass) of
             nil -> ?assertEqual(g('Class'), s(s(C, class), superclass));
             Super -> ?assertEqual(s(Super, class), s(s(C, class), superclass))
         end
     end || Name <- beamtalk_class:all_names()].

class_protocol() ->
    beamtalk_class:define(bt_test:counter_desc('Counter')),
    Counter = g('Counter'),
    ?assertEqual(g('Actor'), s(Counter, superclass)),
    ?assertEqual(nil, s(g('ProtoObject'), superclass)),
    ?assertEqual([g('Actor'), g('Object'), g('ProtoObject')], s(Counter, allSuperclasses)),
    ?assert(lists:member(Counter, s(g('Actor'), subclasses))),
    ?assert(lists:member(Counter, s(g('Object'), allSubclasses))),
    ?assertEqual(true, s(Counter, 'inheritsFrom:', [g('Object')])),
    ?assertEqual(false, s(Counter, 'inheritsFrom:', [Counter])),
    ?assertEqual(true, s(Counter, 'includesBehaviour:', [Counter])),
    ?assertEqual(true, s(Counter, 'includesSelector:', [increment])),
    ?assertEqual(false, s(Counter, 'includesSelector:', [printString])),
    ?assertEqual(true, s(Counter, 'canUnderstand:', [printString])),
    ?assertEqual(g('Object'), s(Counter, 'whichClassIncludesSelector:', [printString])),
    ?assertEqual([value], s(Counter, fieldNames)),
    ?assert(lists:member(increment, s(Counter, methods))),
    ?assertEqual(true, s(g('Class'), 'respondsTo:', [classBuilder])),
    ?assertEqual(true, s(g('Object'), 'respondsTo:', [classBuilder])).

reflection() ->
    ?assertEqual(true, s(g('Integer'), 'inheritsFrom:', [g('Number')])),
    ?assertEqual(true, s(3, 'isKindOf:', [g('Number')])),
    ?assertEqual(false, s(3, 'isMemberOf:', [g('Number')])),
    ?assertEqual(true, s(3, 'isMemberOf:', [g('Integer')])),
    ?assertEqual(true, s(g('Integer'), 'isKindOf:', [g('Class')])),
    ?assertEqual(true, s(s(g('Integer'), class), 'isKindOf:', [g('Metaclass')])),
    ?assertEqual(true, s(g('Number'), isAbstract)),
    ?assertEqual(true, s(g('Integer'), isSealed)).

class_methods_are_inherited_along_the_metaclass_chain() ->
    beamtalk_class:define(#{name => 'Base', superclass => 'Object',
                            class_methods => #{create => fun(Cls) -> {made, s(Cls, name)} end,
                                               answer => fun(_) -> 42 end}}),
    beamtalk_class:define(#{name => 'Derived', superclass => 'Base',
                            class_methods => #{answer => fun(_) -> 43 end}}),
    ?assertEqual({made, 'Derived'}, s(g('Derived'), create)),
    ?assertEqual(42, s(g('Base'), answer)),
    ?assertEqual(43, s(g('Derived'), answer)),
    %% class-side super goes up the metaclass chain
    beamtalk_class:define(#{name => 'Derived2', superclass => 'Base',
                            class_methods => #{answer => fun(Cls) ->
                                                                 1 + beamtalk_send:super_send('Derived2', Cls, answer, [])
                                                         end}}),
    ?assertEqual(43, s(g('Derived2'), answer)),
    %% class methods are not instance methods
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(s(g('Derived'), new), answer) end)).

class_variables() ->
    beamtalk_class:define(#{name => 'Registry1', superclass => 'Object',
                            class_vars => [{count, fun() -> 0 end}],
                            class_methods => #{bump => fun(Cls) ->
                                                               N = beamtalk_class:class_var(Cls, count) + 1,
                                                               beamtalk_class:set_class_var(Cls, count, N)
                                                       end,
                                               count => fun(Cls) -> beamtalk_class:class_var(Cls, count) end}}),
    C = g('Registry1'),
    ?assertEqual(0, s(C, count)),
    ?assertEqual(1, s(C, bump)),
    ?assertEqual(2, s(C, bump)),
    ?assertEqual(2, s(C, count)),
    %% shared with subclasses (declared in Registry1)
    beamtalk_class:define(#{name => 'Registry2', superclass => 'Registry1'}),
    ?assertEqual(3, s(g('Registry2'), bump)),
    ?assertEqual(3, s(C, count)),
    %% an instance reaches them through its class
    ?assertEqual(3, s(s(s(C, new), class), count)).

class_variables_survive_redefinition() ->
    Desc = #{name => 'Registry3', superclass => 'Object',
             class_vars => [{count, fun() -> 0 end}]},
    C = beamtalk_class:define(Desc),
    beamtalk_class:set_class_var(C, count, 7),
    beamtalk_class:define(Desc#{class_vars => [{count, fun() -> 0 end}, {extra, fun() -> x end}]}),
    ?assertEqual(7, beamtalk_class:class_var(C, count)),
    ?assertEqual(x, beamtalk_class:class_var(C, extra)).

globals() ->
    beamtalk_class:set_global('Transcript', some_transcript),
    ?assertEqual(some_transcript, g('Transcript')),
    %% a class of the same name wins
    beamtalk_class:set_global('Integer', shadow),
    ?assertEqual(beamtalk_class:class_object('Integer'), g('Integer')),
    beamtalk_class:unset_global('Integer'),
    beamtalk_class:unset_global('Transcript').

unknown_class() ->
    ?assertEqual(<<"Class 'Nope' not found">>, ex_message(fun() -> g('Nope') end)),
    ?assertEqual(class_not_found, ex_kind(fun() -> g('Nope') end)),
    ?assertEqual('RuntimeError', ex_class(fun() -> g('Nope') end)).

stdlib_classes_are_protected() ->
    ?assertEqual(<<"Cannot redefine stdlib class 'Integer'">>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'Integer', superclass => 'Object'}) end)),
    %% still intact
    ?assertEqual(6, s(3, factorial)).

stdlib_may_reregister_its_classes() ->
    %% The stdlib compiled from Beamtalk re-registers its classes (stdlib => true).
    beamtalk_class:define(#{name => 'TestRunner', superclass => 'Object', stdlib => true,
                            class_methods => #{runAll => fun(_) -> <<"0 tests">> end}}),
    ?assertEqual(<<"0 tests">>, s(g('TestRunner'), runAll)),
    ?assertMatch(<<"Cannot redefine stdlib class", _/binary>>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'TestRunner', superclass => 'Object'}) end)).

sealed_superclass() ->
    ?assertEqual(<<"Cannot subclass sealed class `Integer`">>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'MyInt', superclass => 'Integer'}) end)),
    beamtalk_class:define(#{name => 'Final', superclass => 'Object', modifiers => [sealed]}),
    ?assertEqual(<<"Cannot subclass sealed class `Final`">>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'Sub', superclass => 'Final'}) end)),
    ?assertEqual(<<"Metaclass is sealed and cannot be subclassed">>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'MyMeta', superclass => 'Metaclass'}) end)),
    ?assertEqual(false, beamtalk_class:exists('Sub')).

sealed_method() ->
    beamtalk_class:define(#{name => 'Locked', superclass => 'Object',
                            methods => #{secret => {v, fun(_) -> 1 end}},
                            sealed_methods => [secret]}),
    ?assertEqual(<<"Cannot override sealed method `Locked>>secret` in Opener">>,
                 ex_message(fun() ->
                                    beamtalk_class:define(#{name => 'Opener', superclass => 'Locked',
                                                            methods => #{secret => {v, fun(_) -> 2 end}}})
                            end)),
    ?assertMatch(<<"Cannot override sealed method `Object>>yourself`", _/binary>>,
                 ex_message(fun() ->
                                    beamtalk_class:define(#{name => 'Opener', superclass => 'Object',
                                                            methods => #{yourself => {v, fun(_) -> 2 end}}})
                            end)).

missing_superclass() ->
    ?assertEqual(<<"Class 'Ghost' not found">>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'Haunted', superclass => 'Ghost'}) end)).

circular_superclass() ->
    beamtalk_class:define(#{name => 'Chicken', superclass => 'Object'}),
    beamtalk_class:define(#{name => 'Egg', superclass => 'Chicken'}),
    ?assertMatch(<<"Circular superclass chain", _/binary>>,
                 ex_message(fun() -> beamtalk_class:define(#{name => 'Chicken', superclass => 'Egg'}) end)),
    ?assertEqual(g('Object'), s(g('Chicken'), superclass)).

redefinition_updates_subclass_tables() ->
    beamtalk_class:define(#{name => 'Animal', superclass => 'Object',
                            methods => #{speak => {v, fun(_) -> <<"...">> end}}}),
    beamtalk_class:define(#{name => 'Dog', superclass => 'Animal'}),
    D = s(g('Dog'), new),
    ?assertEqual(<<"...">>, s(D, speak)),
    beamtalk_class:define(#{name => 'Animal', superclass => 'Object',
                            methods => #{speak => {v, fun(_) -> <<"hello">> end},
                                         walk => {v, fun(_) -> walking end}}}),
    ?assertEqual(<<"hello">>, s(D, speak)),
    ?assertEqual(walking, s(D, walk)).

removed_methods_become_dnu() ->
    beamtalk_class:define(#{name => 'Fickle', superclass => 'Object',
                            methods => #{a => {v, fun(_) -> 1 end}, b => {v, fun(_) -> 2 end}}}),
    F = s(g('Fickle'), new),
    ?assertEqual(2, s(F, b)),
    beamtalk_class:define(#{name => 'Fickle', superclass => 'Object',
                            methods => #{a => {v, fun(_) -> 1 end}}}),
    ?assertEqual(<<"Fickle does not understand 'b'">>, ex_message(fun() -> s(F, b) end)).

remove_from_system() ->
    C = beamtalk_class:define(#{name => 'Doomed', superclass => 'Object'}),
    ?assertEqual(nil, s(C, removeFromSystem)),
    ?assertEqual(false, beamtalk_class:exists('Doomed')),
    ?assertEqual(false, lists:member(C, s(g('Object'), allSubclasses))),
    ?assertEqual(class_not_found, ex_kind(fun() -> g('Doomed') end)),
    ?assertMatch(<<"Cannot remove stdlib class", _/binary>>,
                 ex_message(fun() -> s(g('Integer'), removeFromSystem) end)).

compiled_method() ->
    beamtalk_class:define(#{name => 'Documented', superclass => 'Object',
                            methods => #{getValue => {v, fun(_) -> 1 end}},
                            method_info => #{getValue => #{source => <<"getValue => 1">>,
                                                           doc => <<"The value.">>,
                                                           class_side => false}}}),
    M = s(g('Documented'), '>>', [getValue]),
    ?assertEqual(<<"a CompiledMethod(getValue)">>, ps(M)),
    ?assertEqual(getValue, s(M, selector)),
    ?assertEqual(<<"getValue => 1">>, s(M, source)),
    ?assertEqual(0, s(M, argumentCount)).

redefinition_from_another_module_warns() ->
    {_, []} = beamtalk_class:define_with_warnings(#{name => 'Collide', superclass => 'Object',
                                                    module => 'bt@pkg_a@collide'}),
    {_, []} = beamtalk_class:define_with_warnings(#{name => 'Collide', superclass => 'Object',
                                                    module => 'bt@pkg_a@collide'}),
    ?assertMatch({_, [<<"Class 'Collide' redefined (was bt@pkg_a@collide, now bt@pkg_b@collide)">>]},
                 beamtalk_class:define_with_warnings(#{name => 'Collide', superclass => 'Object',
                                                       module => 'bt@pkg_b@collide'})).

info_for_the_compiler() ->
    beamtalk_class:define(bt_test:counter_desc('InfoCounter')),
    beamtalk_class:define(#{name => 'InfoSub', superclass => 'InfoCounter',
                            fields => [{extra, fun() -> 1 end}]}),
    ?assertEqual({ok, #{kind => actor, fields => [value], superclass => 'Actor', abstract => false,
                        protected => false}},
                 info_but_module('InfoCounter')),
    ?assertEqual({ok, #{kind => actor, fields => [extra], superclass => 'InfoCounter', abstract => false,
                        protected => false}},
                 info_but_module('InfoSub')),
    %% a stdlib class is protected: clients keep its entry (WorkspaceClient.class_table)
    ?assertEqual({ok, #{kind => object, fields => [], superclass => nil, abstract => true,
                        protected => true}},
                 info_but_module('ProtoObject')),
    %% the module a class is registered from (a load from another one warns)
    beamtalk_class:define(#{name => 'InfoMod', superclass => 'Object', module => 'bt@info_mod'}),
    ?assertMatch({ok, #{module := 'bt@info_mod'}}, beamtalk_class:info('InfoMod')),
    ?assertEqual(error, beamtalk_class:info('NoSuchClass')).

info_but_module(Name) ->
    case beamtalk_class:info(Name) of
        {ok, Info} -> {ok, maps:remove(module, Info)};
        Other -> Other
    end.

add_method() ->
    beamtalk_class:define(#{name => 'Growable', superclass => 'Object',
                            methods => #{a => {v, fun(_) -> 1 end}}}),
    beamtalk_class:define(#{name => 'GrowableSub', superclass => 'Growable'}),
    O = s(g('GrowableSub'), new),
    ok = beamtalk_class:add_method(g('Growable'), b, {v, fun(_) -> 2 end},
                                   #{source => <<"b => 2">>, doc => nil, class_side => false}),
    ?assertEqual(2, s(O, b)),                                   % inherited at once
    ?assertEqual(<<"b => 2">>, s(s(g('Growable'), '>>', [b]), source)),
    ok = beamtalk_class:add_method(g('Growable'), a, {v, fun(_) -> 10 end}, #{class_side => false}),
    ?assertEqual(10, s(O, a)),                                  % replaced
    ok = beamtalk_class:add_method(g('Growable'), make, {v, fun(Cls) -> {made, s(Cls, name)} end},
                                   #{class_side => true}),
    ?assertEqual({made, 'GrowableSub'}, s(g('GrowableSub'), make)),
    ?assertEqual(true, s(g('Growable'), 'includesSelector:', [b])),
    %% a later redefinition of the class replaces the method table wholesale
    beamtalk_class:define(#{name => 'Growable', superclass => 'Object',
                            methods => #{a => {v, fun(_) -> 1 end}}}),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(O, b) end)).

add_method_to_live_actors() ->
    beamtalk_class:define(bt_test:counter_desc('AddCounter')),
    C = s(g('AddCounter'), spawn),
    s(C, increment),
    ok = beamtalk_class:add_method(g('AddCounter'), double,
                                   {a, fun(_Self, S) -> V = 2 * maps:get(value, S), {V, S#{value => V}} end},
                                   #{class_side => false}),
    ?assertEqual(2, s(C, double)),
    ?assertEqual(4, s(C, double)),
    s(C, stop).

add_method_errors() ->
    %% a stdlib class takes extensions (new selectors), not changes to its own methods
    ?assertMatch(<<"Cannot replace the stdlib method Integer>>printString">>,
                 ex_message(fun() -> beamtalk_class:add_method(g('Integer'), printString, {v, fun(_) -> 1 end},
                                                               #{class_side => false}) end)),
    ?assertMatch(<<"Cannot replace the stdlib method Integer>>isZero">>,
                 ex_message(fun() -> beamtalk_class:add_method(g('Integer'), isZero, {v, fun(_) -> 1 end},
                                                               #{class_side => false}) end)),
    ok = beamtalk_class:add_method(g('Integer'), btTestExt, {v, fun(N) -> N * 2 end}, #{class_side => false}),
    ?assertEqual(42, s(21, btTestExt)),
    ok = beamtalk_class:add_method(g('Integer'), btTestExt, {v, fun(N) -> N * 3 end}, #{class_side => false}),
    ?assertEqual(63, s(21, btTestExt)),
    ok = beamtalk_class:remove_method('Integer', btTestExt, false),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(21, btTestExt) end)),
    ?assertMatch(<<"Cannot remove methods from stdlib class 'Integer'">>,
                 ex_message(fun() -> beamtalk_class:remove_method('Integer', printString, false) end)),
    beamtalk_class:define(#{name => 'SealedBase', superclass => 'Object',
                            methods => #{fixed => {v, fun(_) -> 1 end}}, sealed_methods => [fixed]}),
    beamtalk_class:define(#{name => 'SealedChild', superclass => 'SealedBase'}),
    ?assertMatch(<<"Cannot override sealed method `SealedBase>>fixed`", _/binary>>,
                 ex_message(fun() -> beamtalk_class:add_method(g('SealedChild'), fixed, {v, fun(_) -> 2 end},
                                                               #{class_side => false}) end)),
    ?assertEqual(class_not_found, ex_kind(fun() -> beamtalk_class:add_method('Nope', x, {v, fun(_) -> 1 end}, #{}) end)),
    ?assertEqual(type_error, ex_kind(fun() -> beamtalk_class:add_method(g('SealedChild'), x, 42, #{}) end)).

stdlib_hierarchy() ->
    Expect = [{'Object', 'ProtoObject'}, {'Value', 'Object'}, {'Actor', 'Object'},
              {'Behaviour', 'Object'}, {'Class', 'Behaviour'}, {'Metaclass', 'Class'},
              {'ClassBuilder', 'Actor'}, {'Boolean', 'Value'}, {'True', 'Boolean'},
              {'Integer', 'Number'}, {'Character', 'Integer'}, {'Float', 'Number'},
              {'List', 'Collection'}, {'String', 'Collection'}, {'Exception', 'Value'},
              {'Error', 'Exception'}, {'RuntimeError', 'Error'}, {'TypeError', 'Error'},
              {'InstantiationError', 'Error'}, {'BEAMError', 'Error'},
              {'ExitError', 'BEAMError'}, {'ThrowError', 'BEAMError'},
              {'Block', 'Object'}, {'Symbol', 'Object'}, {'UndefinedObject', 'Object'},
              {'Erlang', 'ProtoObject'}, {'ErlangModule', 'ProtoObject'},
              {'TranscriptStream', 'Actor'}],
    [?assertEqual({C, S}, {C, beamtalk_class:superclass(C)}) || {C, S} <- Expect],
    ?assertEqual(nil, beamtalk_class:superclass('ProtoObject')),
    ?assertEqual(actor, maps:get(kind, beamtalk_class:class_info('ClassBuilder'))).

bad_descriptions_are_type_errors() ->
    ?assertEqual(type_error, ex_kind(fun() -> beamtalk_class:define(#{superclass => 'Object'}) end)),
    ?assertEqual(type_error, ex_kind(fun() -> beamtalk_class:define(not_a_map) end)),
    ?assertEqual(type_error, ex_kind(fun() ->
                                             beamtalk_class:define(#{name => 'Bad', superclass => 'Object',
                                                                     methods => #{m => 42}})
                                     end)),
    %% the registry survived
    ?assertEqual(6, s(3, factorial)).
