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
-export([set/2, set_many/1, entries/0, forms/1, cache_in/1]).

-define(KEY, beamtalk_dispatch_entries).
-define(CACHE, beamtalk_dispatch_cache_dir).

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
    Bin = compiled(Entries),
    purge(beamtalk_dispatch, 50),
    {module, beamtalk_dispatch} = code:load_binary(beamtalk_dispatch, "beamtalk_dispatch (generated)", Bin),
    ok.

%% @doc While Dir is set (none: not), compiled versions of the module are
%% kept there and reused.  beamtalk_stdlib:load/1 sets its cache directory
%% for the boot's batch: the module for the stdlib's classes is the same at
%% every boot, and compiling it was about a third of a warm workspace start
%% (the node's first compile also loads the compiler).
-spec cache_in(file:filename() | none) -> ok.
cache_in(none) ->
    _ = persistent_term:erase(?CACHE),
    ok;
cache_in(Dir) ->
    persistent_term:put(?CACHE, Dir).

compiled(Entries) ->
    case persistent_term:get(?CACHE, none) of
        none -> compile_forms(Entries);
        Dir ->
            %% this module's own version is in the key: it writes the code;
            %% not `.beam`: whatever lists the directory's modules (a node
            %% Beamtalk attaches to gets them all) must not take it for one
            Key = erlang:md5(term_to_binary({lists:sort(maps:to_list(Entries)),
                                             ?MODULE:module_info(md5)})),
            File = filename:join(Dir, "beamtalk_dispatch-" ++ binary_to_list(binary:encode_hex(Key)) ++ ".cached"),
            case file:read_file(File) of
                {ok, Bin} -> Bin;
                {error, _} ->
                    Bin = compile_forms(Entries),
                    %% another node may write it too: whole files only
                    Tmp = File ++ "." ++ os:getpid(),
                    %% private whatever the umask, as the rest of the cache
                    _ = file:write_file(Tmp, Bin) =:= ok andalso
                        beamtalk_file_modes:private_file(Tmp) =:= ok andalso
                        file:rename(Tmp, File),
                    _ = file:delete(Tmp),
                    Bin
            end
    end.

compile_forms(Entries) ->
    {ok, beamtalk_dispatch, Bin} = compile:forms(forms(Entries),
                                                 [binary, return_errors, no_spawn_compiler_process]),
    Bin.

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

%% The entry of every send, the same in every version (see the boot
%% beamtalk_dispatch.erl): an Erlang module proxy whose selector this
%% process has met calls its function here, one call less on the path of
%% `p := Erlang lists. p reverse: xs` (beamtalk_erlang:proxy_dispatch/3
%% explains the per-process table); other value objects go to d/4.
-define(SEND_SOURCE, "
send(#{'$beamtalk_class' := 'ErlangModule', module := M} = R, Sel, Args) when is_atom(M) ->
    case get('$bt_proxy') of
        #{Sel := F} when F =/= '$method' ->
            try erlang:apply(M, F, Args)
            catch C:E:S -> beamtalk_erlang:invoke_failed(C, E, S, M, F, Args)
            end;
        _ -> beamtalk_erlang:proxy_dispatch(Sel, R, Args)
    end;
send(#{'$beamtalk_class' := C} = R, Sel, Args) ->
    d(C, Sel, R, Args);
send(M, 'at:', [K]) when is_map(M) -> beamtalk_prim_dictionary:'at:'(M, K);
send(M, 'at:ifAbsent:', [K, B]) when is_map(M) -> beamtalk_prim_dictionary:'at:ifAbsent:'(M, K, B);
send(M, 'at:put:', [K, V]) when is_map(M) -> beamtalk_prim_dictionary:'at:put:'(M, K, V);
send(M, 'includesKey:', [K]) when is_map(M) -> beamtalk_prim_dictionary:'includesKey:'(M, K);
send(F, 'value:', [A]) when is_function(F, 1) -> F(A);
send(F, value, []) when is_function(F, 0) -> F();
send(F, 'value:value:', [A, B]) when is_function(F, 2) -> F(A, B);
send(F, 'value:value:value:', [A, B, C]) when is_function(F, 3) -> F(A, B, C);
send(R, Sel, Args) ->
    beamtalk_send:send(R, Sel, Args).
").
-define(SEND_CALLING_SOURCE, "
send(#{'$beamtalk_class' := 'ErlangModule', module := M}, _Sel, Args, F) when is_atom(M) ->
    try erlang:apply(M, F, Args)
    catch C:E:S -> beamtalk_erlang:invoke_failed(C, E, S, M, F, Args)
    end;
send(#{'$beamtalk_class' := C} = R, Sel, Args, _F) ->
    d(C, Sel, R, Args);
send(M, 'at:', [K], _F) when is_map(M) -> beamtalk_prim_dictionary:'at:'(M, K);
send(M, 'at:ifAbsent:', [K, B], _F) when is_map(M) -> beamtalk_prim_dictionary:'at:ifAbsent:'(M, K, B);
send(M, 'at:put:', [K, V], _F) when is_map(M) -> beamtalk_prim_dictionary:'at:put:'(M, K, V);
send(M, 'includesKey:', [K], _F) when is_map(M) -> beamtalk_prim_dictionary:'includesKey:'(M, K);
send(F, 'value:', [A], _F) when is_function(F, 1) -> F(A);
send(F, value, [], _F) when is_function(F, 0) -> F();
send(F, 'value:value:', [A, B], _F) when is_function(F, 2) -> F(A, B);
send(F, 'value:value:value:', [A, B, C], _F) when is_function(F, 3) -> F(A, B, C);
send(R, Sel, Args, _F) ->
    beamtalk_send:send(R, Sel, Args).
").

send_functions() ->
    [begin
         {ok, Tokens, _} = erl_scan:string(Source),
         {ok, Form} = erl_parse:parse_form(Tokens),
         Form
     end || Source <- [?SEND_SOURCE, ?SEND_CALLING_SOURCE]].

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
    Sends = send_functions(),
    [{attribute, L, module, beamtalk_dispatch},
     {attribute, L, export, [{send, 3}, {send, 4}, {d, 4}, {classes, 0}]}]
    ++ Sends ++
    [{function, L, d, 4, Proxy ++ Clauses ++ [Fallback]},
     {function, L, classes, 0, [{clause, L, [], [], [Names]}]},
     {eof, L}].
