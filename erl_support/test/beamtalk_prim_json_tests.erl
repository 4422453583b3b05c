%% The JSON codec alone (stdlib §9; beamtalk_prim_json): decode/encode
%% without a workspace, including the corners the doc tests do not reach.
-module(beamtalk_prim_json_tests).
-include("bt_eunit.hrl").

-define(CK, '$beamtalk_class').

scalars_test() ->
    ?assertEqual({ok, nil}, beamtalk_prim_json:decode(<<"null">>)),
    ?assertEqual({ok, true}, beamtalk_prim_json:decode(<<" true ">>)),
    ?assertEqual({ok, false}, beamtalk_prim_json:decode(<<"false">>)),
    ?assertEqual({ok, -12}, beamtalk_prim_json:decode(<<"-12">>)),
    ?assertEqual({ok, 123456789012345678901234567890},
                 beamtalk_prim_json:decode(<<"123456789012345678901234567890">>)),
    ?assertEqual({ok, 1.5}, beamtalk_prim_json:decode(<<"1.5">>)),
    ?assertEqual({ok, 1000.0}, beamtalk_prim_json:decode(<<"1e3">>)),
    ?assertEqual({ok, -0.025}, beamtalk_prim_json:decode(<<"-2.5E-2">>)).

strings_test() ->
    ?assertEqual({ok, <<"a\"b\\c/\n\t">>}, beamtalk_prim_json:decode(<<"\"a\\\"b\\\\c\\/\\n\\t\"">>)),
    ?assertEqual({ok, <<"é"/utf8>>}, beamtalk_prim_json:decode(<<"\"\\u00e9\"">>)),
    %% a surrogate pair is one code point
    ?assertEqual({ok, <<"😀"/utf8>>}, beamtalk_prim_json:decode(<<"\"\\ud83d\\ude00\"">>)),
    ?assertEqual({ok, <<"😀"/utf8>>}, beamtalk_prim_json:decode(<<"\"😀\""/utf8>>)),
    ?assertMatch({error, _, _}, beamtalk_prim_json:decode(<<"\"\\ud83d\"">>)).

containers_test() ->
    ?assertEqual({ok, [1, [2, []], #{<<"a">> => nil}]},
                 beamtalk_prim_json:decode(<<"[1, [2, []], {\"a\": null}]">>)),
    %% object keys stay Strings, a repeated key keeps its last value
    ?assertEqual({ok, #{<<"k">> => 2}}, beamtalk_prim_json:decode(<<"{\"k\": 1, \"k\": 2}">>)),
    ?assertEqual({ok, #{}}, beamtalk_prim_json:decode(<<"{ }">>)).

errors_carry_a_position_test() ->
    ?assertMatch({error, 3, _}, beamtalk_prim_json:decode(<<"[1,]">>)),
    ?assertMatch({error, _, _}, beamtalk_prim_json:decode(<<"">>)),
    ?assertMatch({error, _, _}, beamtalk_prim_json:decode(<<"{\"a\" 1}">>)),
    ?assertMatch({error, _, _}, beamtalk_prim_json:decode(<<"[1] x">>)),
    ?assertMatch({error, _, _}, beamtalk_prim_json:decode(<<"01">>)).

encode_test() ->
    ?assertEqual({ok, <<"null">>}, beamtalk_prim_json:encode(nil)),
    ?assertEqual({ok, <<"\"sym\"">>}, beamtalk_prim_json:encode(sym)),
    ?assertEqual({ok, <<"[1,2.5,\"x\",true]">>}, beamtalk_prim_json:encode([1, 2.5, <<"x">>, true])),
    %% members sorted by key text: deterministic output
    ?assertEqual({ok, <<"{\"a\":1,\"b\":[]}">>}, beamtalk_prim_json:encode(#{b => [], <<"a">> => 1})),
    ?assertEqual({ok, <<"\"a\\\"b\\n\"">>}, beamtalk_prim_json:encode(<<"a\"b\n">>)),
    ?assertMatch({error, _}, beamtalk_prim_json:encode(fun() -> ok end)).

round_trip_test() ->
    Doc = #{<<"name">> => <<"Zoë"/utf8>>, <<"tags">> => [<<"a">>, <<"b">>], <<"n">> => 42,
            <<"nested">> => #{<<"ok">> => true, <<"none">> => nil}},
    {ok, Text} = beamtalk_prim_json:encode(Doc),
    ?assertEqual({ok, Doc}, beamtalk_prim_json:decode(Text)),
    {ok, Pretty} = beamtalk_prim_json:encode_pretty(Doc),
    ?assertEqual({ok, Doc}, beamtalk_prim_json:decode(Pretty)),
    ?assert(binary:match(Pretty, <<"\n  \"n\": 42">>) =/= nomatch).
