%% The send functions exist twice: in the boot beamtalk_dispatch.erl and
%% as source text in beamtalk_dispatch_gen (which writes every later
%% version of the module).  A change to one alone would make sends behave
%% differently before and after the first class compiled from a file
%% registers; this suite holds them equal.
-module(beamtalk_dispatch_gen_tests).
-include("bt_eunit.hrl").

no_lines(Form) -> erl_parse:map_anno(fun(_) -> 0 end, Form).

boot_sends() ->
    Src = proplists:get_value(source, beamtalk_dispatch:module_info(compile)),
    {ok, Forms} = epp:parse_file(Src, []),
    [no_lines(F) || {function, _, send, _, _} = F <- Forms].

generated_sends() ->
    [no_lines(F) || {function, _, send, _, _} = F <- beamtalk_dispatch_gen:forms(#{})].

boot_and_generated_send_functions_are_the_same_test() ->
    Boot = boot_sends(),
    ?assertEqual([3, 4], [A || {function, _, send, A, _} <- Boot]),
    ?assertEqual(Boot, generated_sends()).

generated_module_compiles_with_a_class_test() ->
    {ok, beamtalk_dispatch, _} =
        compile:forms(beamtalk_dispatch_gen:forms(#{'Point' => 'bt@point'}), [binary, return_errors]).
