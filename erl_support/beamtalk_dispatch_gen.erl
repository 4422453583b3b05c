%% @doc Keeps `beamtalk_dispatch` in step with the classes that have a
%% compiled `'$d'/3` (see beamtalk_dispatch for why the module exists).
%%
%% Only the class registry process calls `set/2`, so regenerations never
%% race.  A class keeps its clause while its method table is exactly what
%% its module compiled: a redefinition through the dynamic path (REPL,
%% ClassBuilder with blocks), a method added with `Class >> sel`, a change
%% to an actor class, or removal drops the clause, and the class's sends go
%% back to the table path, which is always correct.
-module(beamtalk_dispatch_gen).
-export([set/2, set_many/1, entries/0, forms/1]).

-define(KEY, beamtalk_dispatch_entries).

%% @doc Route class Name's value sends to Module:'$d'/3, or (none) not.
-spec set(atom(), module() | none) -> ok.
set(Name, Module) ->
    set_many([{Name, Module}]).

%% @doc Several `set/2` with one regeneration.
-spec set_many([{atom(), module() | none}]) -> ok.
set_many(Pairs) ->
    Old = entries(),
    New = lists:foldl(fun({Name, none}, Acc) -> maps:remove(Name, Acc);
                         ({Name, Module}, Acc) -> Acc#{Name => Module}
                      end, Old, Pairs),
    case New =:= Old of
        true -> ok;
        false ->
            ok = load(New),
            persistent_term:put(?KEY, New),
            ok
    end.

entries() ->
    persistent_term:get(?KEY, #{}).

load(Entries) ->
    {ok, Mod, Bin} = compile:forms(forms(Entries),
                                   [binary, return_errors, no_spawn_compiler_process]),
    purge(Mod, 50),
    {module, Mod} = code:load_binary(Mod, "beamtalk_dispatch (generated)", Bin),
    ok.

%% Nothing keeps a frame in the old version (every clause is a tail call),
%% so a soft purge only fails while a process is between two instructions
%% of it; try again shortly, then purge.
purge(Mod, 0) ->
    _ = code:purge(Mod),
    ok;
purge(Mod, N) ->
    case code:soft_purge(Mod) of
        true -> ok;
        false -> timer:sleep(1), purge(Mod, N - 1)
    end.

%% @doc The generated module's abstract forms.
forms(Entries) ->
    L = 1,
    V = fun(N) -> {var, L, N} end,
    Args = [V('Sel'), V('R'), V('Args')],
    Clauses0 = [{clause, L, [{atom, L, C} | Args], [],
                [{call, L, {remote, L, {atom, L, M}, {atom, L, '$d'}}, Args}]}
               || {C, M} <- lists:sort(maps:to_list(Entries))],
    %% Erlang module proxies (`p := Erlang lists. p reverse: xs`) go to a
    %% dispatcher of their own, before the class's compiled '$d'
    %% (beamtalk_erlang:proxy_dispatch/3 sends the class's own selectors on).
    Proxy = [{clause, L, [{atom, L, 'ErlangModule'} | Args], [],
              [{call, L, {remote, L, {atom, L, beamtalk_erlang}, {atom, L, proxy_dispatch}}, Args}]}],
    Clauses = [C || {clause, _, [{atom, _, Name} | _], _, _} = C <- Clauses0, Name =/= 'ErlangModule'],
    Fallback = {clause, L, [V('C') | Args], [],
                [{call, L, {remote, L, {atom, L, beamtalk_send}, {atom, L, send_value}},
                  [V('C'), V('R'), V('Sel'), V('Args')]}]},
    Names = lists:foldr(fun(C, Acc) -> {cons, L, {atom, L, C}, Acc} end, {nil, L},
                        lists:sort(maps:keys(Entries))),
    Send = [{clause, L, [{match, L, {map, L, [{map_field_exact, L, {atom, L, '$beamtalk_class'},
                                               {atom, L, 'ErlangModule'}}]},
                          V('R')}, V('Sel'), V('Args')], [],
             [{call, L, {remote, L, {atom, L, beamtalk_erlang}, {atom, L, proxy_dispatch}},
               [V('Sel'), V('R'), V('Args')]}]},
            {clause, L, [{match, L, {map, L, [{map_field_exact, L, {atom, L, '$beamtalk_class'}, V('C')}]},
                          V('R')}, V('Sel'), V('Args')], [],
             [{call, L, {atom, L, d}, [V('C'), V('Sel'), V('R'), V('Args')]}]},
            {clause, L, [V('R'), V('Sel'), V('Args')], [],
             [{call, L, {remote, L, {atom, L, beamtalk_send}, {atom, L, send}}, [V('R'), V('Sel'), V('Args')]}]}],
    [{attribute, L, module, beamtalk_dispatch},
     {attribute, L, export, [{send, 3}, {d, 4}, {classes, 0}]},
     {function, L, send, 3, Send},
     {function, L, d, 4, Proxy ++ Clauses ++ [Fallback]},
     {function, L, classes, 0, [{clause, L, [], [], [Names]}]},
     {eof, L}].
