%% Assertion macros for the runtime's eunit suites.
%%
%% Why not eunit.hrl: Debian's erlang-eunit package (what scripts/bootstrap.sh
%% installs) ships eunit's modules but not its include directory.  These
%% macros raise the same error terms as eunit's, so eunit reports failures
%% the usual way; test functions are exported by eunit's own parse transform.
-compile({parse_transform, eunit_autoexport}).

-define(assert(Expr),
        (fun() ->
                 case (Expr) of
                     true -> ok;
                     X__V -> erlang:error({assert, [{module, ?MODULE}, {line, ?LINE},
                                                   {expression, (??Expr)},
                                                   {expected, true}, {value, X__V}]})
                 end
         end)()).

-define(assertNot(Expr), ?assert(not (Expr))).

-define(assertEqual(Expect, Expr),
        (fun() ->
                 X__X = (Expect),
                 case (Expr) of
                     X__X -> ok;
                     X__V -> erlang:error({assertEqual, [{module, ?MODULE}, {line, ?LINE},
                                                        {expression, (??Expr)},
                                                        {expected, X__X}, {value, X__V}]})
                 end
         end)()).

-define(assertMatch(Guard, Expr),
        (fun() ->
                 case (Expr) of
                     Guard -> ok;
                     X__V -> erlang:error({assertMatch, [{module, ?MODULE}, {line, ?LINE},
                                                        {expression, (??Expr)},
                                                        {pattern, (??Guard)}, {value, X__V}]})
                 end
         end)()).

-define(assertError(Term, Expr),
        (fun() ->
                 try (Expr) of
                     X__V -> erlang:error({assertException, [{module, ?MODULE}, {line, ?LINE},
                                                            {expression, (??Expr)},
                                                            {pattern, "{ error , " ++ (??Term) ++ " , [...] }"},
                                                            {unexpected_success, X__V}]})
                 catch
                     error:Term -> ok
                 end
         end)()).

-define(assertNotEqual(Unexpected, Expr),
        (fun() ->
                 X__X = (Unexpected),
                 case (Expr) of
                     X__X -> erlang:error({assertNotEqual, [{module, ?MODULE}, {line, ?LINE},
                                                            {expression, (??Expr)},
                                                            {value, X__X}]});
                     _ -> ok
                 end
         end)()).
