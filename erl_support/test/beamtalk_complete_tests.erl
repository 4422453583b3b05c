%% What the REPL's completion and `:help` ask of the node
%% (beamtalk_complete): selectors by receiver, Erlang exports as selectors,
%% module names, class names, and class documentation.
-module(beamtalk_complete_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, g/1]).

complete_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun erlang_selectors/0,
      fun binding_selectors/0,
      fun class_selectors/0,
      fun module_names/0,
      fun class_names/0,
      fun docs_of_a_class/0,
      fun docs_of_an_unknown_class/0,
      fun unknown_request/0]}.

c(Bindings, Req) ->
    {ok, L} = beamtalk_complete:complete(Bindings, Req),
    L.

erlang_selectors() ->
    ?assertEqual('seq:with:', beamtalk_complete:erlang_selector(seq, 2)),
    ?assertEqual('reverse:', beamtalk_complete:erlang_selector(reverse, 1)),
    ?assertEqual(now, beamtalk_complete:erlang_selector(now, 0)),
    ?assertEqual('foldl:with:with:', beamtalk_complete:erlang_selector(foldl, 3)),
    L = c(#{}, {selectors, {erlang, lists}}),
    [?assert(lists:member(S, L)) || S <- ['reverse:', 'seq:with:', 'seq:with:with:', 'foldl:with:with:']],
    ?assertNot(lists:member(module_info, L)),
    %% operators of `erlang` do not read as selectors
    ?assertNot(lists:member('+:with:', c(#{}, {selectors, {erlang, erlang}}))),
    ?assertEqual([], c(#{}, {selectors, {erlang, no_such_module_xyz}})).

binding_selectors() ->
    B = #{n => 3, l => [1, 2], p => s(g('Erlang'), lists), k => g('Integer')},
    ?assert(lists:member(factorial, c(B, {selectors, {binding, n}}))),
    ?assert(lists:member(printString, c(B, {selectors, {binding, n}}))),   % inherited
    ?assert(lists:member('inject:into:', c(B, {selectors, {binding, l}}))),
    ?assert(lists:member('reverse:', c(B, {selectors, {binding, p}}))),     % a module proxy
    ?assert(lists:member(new, c(B, {selectors, {binding, k}}))),            % a class: class side
    ?assertEqual([], c(B, {selectors, {binding, unbound}})).

class_selectors() ->
    Inst = c(#{}, {selectors, {instance, 'Integer'}}),
    ?assert(lists:member(factorial, Inst)),
    ?assert(lists:member(printString, Inst)),
    Cls = c(#{}, {selectors, {class, 'Integer'}}),
    ?assert(lists:member(new, Cls)),
    ?assertNot(lists:member(factorial, Cls)),
    ?assertEqual([], c(#{}, {selectors, {instance, 'NoSuchClassXyz'}})).

module_names() ->
    L = c(#{}, {modules, <<"lis">>}),
    ?assert(lists:member(<<"lists">>, L)),
    ?assert(lists:all(fun(M) -> binary:part(M, 0, 3) =:= <<"lis">> end, L)),
    ?assertEqual([], [M || <<"bt@", _/binary>> = M <- c(#{}, {modules, <<"bt">>})]).

class_names() ->
    L = c(#{}, classes),
    [?assert(lists:member(N, L)) || N <- ['Integer', 'Object', 'Erlang', 'List']],
    ?assertEqual(L, lists:usort(L)).

docs_of_a_class() ->
    beamtalk_class:define(#{name => 'DocPoint', superclass => 'Value',
                            fields => [{x, fun() -> 0 end}],
                            doc => <<"A point.">>,
                            methods => #{double => {v, fun(S) -> 2 * maps:get(x, S) end}},
                            class_methods => #{origin => fun(C) -> C end},
                            method_info => #{{double, false} => #{doc => <<"Twice x.">>}}}),
    {ok, D} = beamtalk_complete:docs('DocPoint'),
    ?assertEqual(<<"A point.">>, maps:get(doc, D)),
    ?assertEqual('Value', maps:get(superclass, D)),
    ?assertEqual(['Value', 'Object', 'ProtoObject'], maps:get(superclasses, D)),
    Inst = maps:get(instance, D),
    ?assert(lists:member({double, 'DocPoint', <<"Twice x.">>}, Inst)),
    ?assert(lists:member({printString, 'Object', nil}, Inst)),
    ?assert(lists:member({x, 'DocPoint', nil}, Inst)),                       % synthesised
    Cls = maps:get(class, D),
    ?assert(lists:member({origin, 'DocPoint', nil}, Cls)),
    {new, Definer, nil} = lists:keyfind(new, 1, Cls),
    ?assert(lists:member(Definer, ['DocPoint', 'Value', 'Class', 'Behaviour', 'Object'])).

docs_of_an_unknown_class() ->
    ?assertEqual({error, not_found}, beamtalk_complete:docs('NoSuchClassXyz')),
    ?assertEqual({error, not_found}, beamtalk_complete:docs(<<"Integer">>)).

unknown_request() ->
    ?assertEqual({error, unknown_request}, beamtalk_complete:complete(#{}, frobnicate)).
