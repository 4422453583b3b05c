%% @doc Bringing a workspace back from its store (beamtalk_store) when its
%% node starts: the modules closures refer to, the user classes, the
%% Workspace globals, then (from the workspace server's init) the sessions'
%% bindings, and once the compiler peer runs, the watches.
%%
%% Order matters and is why this is its own module: a fun restored from the
%% store runs only once the module it was made in is loaded again (same
%% name, same md5, so the stored fun matches), and a class can only be
%% defined after its superclass.  So: input modules first, then classes
%% parents first (a class compiled from a file gets its module loaded just
%% before it, whose on_load registers it; the stored entry then lays the
%% changes made since on top), then globals and bindings.
%%
%% What cannot outlive its node (pids, ports, refs, actors) comes back as a
%% DeadObject, a value that prints what it was: `a dead Counter (was
%% <0.123.0>)`.  A class object comes back as the live class of that name.
-module(beamtalk_restore).

-export([restore_code/0, sessions/0, watches/0, revive/1,
         summary_text/1]).

-define(DEAD, 'DeadObject').

%% @doc Load stored modules, define stored classes, set globals.
%% Answers #{classes, globals, problems}.
restore_code() ->
    ensure_dead_class(),
    case beamtalk_store:state() of
        on ->
            All = beamtalk_store:read_all(#{}),
            Modules = maps:from_list(maps:get(bt_module, All, [])),
            {Input, ClassMods} = lists:partition(fun({M, _}) -> input_module(M) end,
                                                 maps:to_list(Modules)),
            P1 = lists:append([load(M, Bin) || {M, Bin} <- lists:sort(Input)]),
            {NClasses, P2} = classes(maps:get(bt_class, All, []), maps:from_list(ClassMods)),
            %% Revivable actors (beamtalk_revive) need their classes, and
            %% come before anything that may refer to them.
            {NActors, P3} = beamtalk_revive:revive_all(maps:get(bt_actor, All, [])),
            NActors > 0 andalso revive_class_vars(),
            Globals = maps:get(bt_global, All, []),
            [beamtalk_class:set_global(K, revive(V)) || {K, V} <- Globals],
            #{classes => NClasses, globals => length(Globals), actors => NActors,
              problems => P1 ++ P2 ++ P3};
        {off, Why} ->
            #{classes => 0, globals => 0, actors => 0, problems => [Why]};
        creating ->                 % a new store (beamtalk_store:open/1): nothing to restore
            #{classes => 0, globals => 0, actors => 0, problems => []}
    end.

input_module(M) ->
    case atom_to_binary(M, utf8) of
        <<"bt@in@", _/binary>> -> true;      % lent by beamtalk_code_pool
        <<"bt@repl@", _/binary>> -> true;
        <<"bt@peer@", _/binary>> -> true;
        _ -> false
    end.

load(M, Bin) ->
    case code:is_loaded(M) of
        {file, _} -> [];
        false ->
            case code:load_binary(M, atom_to_list(M) ++ ".beam", Bin) of
                {module, M} -> [];
                {error, Why} ->
                    [iolist_to_binary(io_lib:format("module ~ts could not be loaded again (~tp)", [M, Why]))]
            end
    end.

%% @doc The bindings of every stored session, with dead values replaced;
%% the store is told what it holds.  Called by the workspace server's init.
sessions() ->
    case beamtalk_store:state() of
        on ->
            Rows = maps:get(bt_binding, beamtalk_store:read_all(#{}), []),
            Sessions = lists:foldl(fun({{S, K}, V}, Acc) ->
                                           B = maps:get(S, Acc, #{}),
                                           Acc#{S => B#{K => revive(V)}}
                                   end, #{}, Rows),
            maps:foreach(fun(S, B) -> beamtalk_store:seed(S, B) end, Sessions),
            Sessions;
        _ -> #{}
    end.

%% @doc Re-watch the stored roots (needs the compiler peer; run in the
%% background at boot).  Answers how many are watched again.
watches() ->
    case beamtalk_store:state() of
        on ->
            Roots = [R || {R, _} <- maps:get(bt_watch, beamtalk_store:read_all(#{}), [])],
            length([ok || R <- Roots, (catch beamtalk:watch(R)) =:= ok]);
        _ -> 0
    end.

%% @doc The highest N of a stored input module `bt@repl@eN`: the workspace
%% numbers new ones after it, so a restored module is never replaced.
%% @doc `Restored 12 bindings, 3 classes, 1 global, 1 watch` (and `, 2
%% actors revived` when there were revivable actors).
summary_text(#{bindings := B, classes := C, globals := G, watches := W} = S) ->
    Actors = case maps:get(actors, S, 0) of
                 0 -> [];
                 1 -> ["1 actor revived"];
                 N -> [[integer_to_list(N), " actors revived"]]
             end,
    Parts = [plural(B, "binding"), plural(C, "class"), plural(G, "global"), plural(W, "watch")
             | Actors],
    iolist_to_binary(["Restored ", lists:join(", ", Parts)]).

plural(1, Word) -> ["1 ", Word];
plural(N, Word) ->
    Suffix = case lists:last(Word) of $s -> "es"; $h -> "es"; _ -> "s" end,
    [integer_to_list(N), " ", Word, Suffix].

%%% Classes

classes(Rows, ClassMods) ->
    Ordered = parents_first(Rows),
    lists:foldl(fun({Name, {_Seq, Entry, Vars}}, {N, Ps}) ->
                        case define(Name, Entry, Vars, ClassMods) of
                            ok -> {N + 1, Ps};
                            {error, Text} -> {N, Ps ++ [Text]}
                        end
                end, {0, []}, Ordered).

parents_first(Rows) ->
    ByName = maps:from_list(Rows),
    {Order, _} = lists:foldl(fun({Name, _}, Acc) -> visit(Name, ByName, Acc) end,
                             {[], #{}}, lists:sort(Rows)),
    [{N, maps:get(N, ByName)} || N <- lists:reverse(Order)].

visit(Name, ByName, {Order, Seen} = Acc) ->
    case maps:is_key(Name, Seen) orelse not maps:is_key(Name, ByName) of
        true -> Acc;
        false ->
            {_, #{superclass := Super}, _} = maps:get(Name, ByName),
            {Order1, Seen1} = visit(Super, ByName, {Order, Seen#{Name => true}}),
            {[Name | Order1], Seen1}
    end.

define(Name, Entry, Vars, ClassMods) ->
    try
        Mod = maps:get(module, Entry, undefined),
        case maps:find(Mod, ClassMods) of
            {ok, Bin} ->
                case load(Mod, Bin) of
                    [] -> ok;
                    [Problem] -> throw(Problem)
                end;
            error -> ok
        end,
        VarNames = maps:get(class_vars, Entry, []),
        Desc = Entry#{class_vars => [{V, const(revive(maps:get(V, Vars, nil)))} || V <- VarNames],
                      stdlib => false},
        _ = beamtalk_class:define(Desc),
        ok
    catch
        throw:Text when is_binary(Text) ->
            {error, iolist_to_binary(["class ", atom_to_binary(Name), ": ", Text])};
        C:R ->
            {error, iolist_to_binary(io_lib:format("class ~ts could not be defined again (~ts)",
                                                   [Name, beamtalk_errors:reason_text({C, R})]))}
    end.

const(V) -> fun() -> V end.

%% Class variables were set when their class was defined, before the actors
%% they may hold were revived: set those again.
revive_class_vars() ->
    Rows = maps:get(bt_class, beamtalk_store:read_all(#{}), []),
    [catch beamtalk_class:set_class_var(Name, K, revive(V))
     || {Name, {_, _, Vars}} <- Rows, is_map(Vars), {K, V} <- maps:to_list(Vars),
        revive(V) =/= (catch beamtalk_class:class_var(Name, K))],
    ok.

%%% Dead values

%% @doc Replace what died with the node that made it.
revive({beamtalk_object, Tag, beamtalk_class, _Pid} = V) ->
    case persistent_term:get({beamtalk_class_tag, Tag}, undefined) of
        undefined -> dead(<<"class">>, V);
        Name -> try beamtalk_class:class_object(Name) catch _:_ -> dead(<<"class">>, V) end
    end;
revive({beamtalk_object, Class, Mod, Pid}) when is_pid(Pid) ->
    case beamtalk_revive:lookup(Pid) of
        {ok, New} -> {beamtalk_object, Class, Mod, New};     % a revived actor
        error ->
            %% The workspace singletons (Transcript, Workspace, ...) are there again.
            case [S || G <- beamtalk_singletons:names(),
                       {beamtalk_object, C, _, _} = S <- [catch beamtalk_class:global(G)], C =:= Class] of
                [Live | _] -> Live;
                [] -> dead(atom_to_binary(Class, utf8), Pid)
            end
    end;
revive(V) when is_pid(V) ->
    case beamtalk_revive:lookup(V) of
        {ok, New} -> New;                   % `anActor pid` of a revived actor
        error -> dead(<<"process">>, V)
    end;
revive(V) when is_port(V) -> dead(<<"port">>, V);
revive(V) when is_reference(V) -> dead(<<"reference">>, V);
revive(V) when is_list(V) -> revive_list(V, []);
revive(V) when is_tuple(V) -> list_to_tuple([revive(E) || E <- tuple_to_list(V)]);
revive(V) when is_map(V) -> maps:from_list([{revive(K), revive(E)} || {K, E} <- maps:to_list(V)]);
revive(V) -> V.

revive_list([H | T], Acc) -> revive_list(T, [revive(H) | Acc]);
revive_list([], Acc) -> lists:reverse(Acc);
revive_list(Tail, Acc) -> lists:reverse(Acc, revive(Tail)).

dead(What, Term) ->
    Was = case Term of
              P when is_pid(P) ->
                  case beamtalk_revive:reason(P) of
                      {ok, Why} -> [pid_to_list(P), "; not revived: ", Why];
                      error -> pid_to_list(P)
                  end;
              P when is_port(P) -> erlang:port_to_list(P);
              R when is_reference(R) -> erlang:ref_to_list(R);
              _ -> "an earlier run"
          end,
    #{'$beamtalk_class' => ?DEAD,
      was => iolist_to_binary(["a dead ", What, " (was ", Was, ")"])}.

%% A DeadObject is a value that only prints what it was (beamtalk_print);
%% any other message is a doesNotUnderstand that names it.
ensure_dead_class() ->
    case beamtalk_class:exists(?DEAD) of
        true -> ok;
        false ->
            _ = beamtalk_class:define(#{name => ?DEAD, superclass => 'Value', stdlib => true,
                                        kind => value, fields => [{was, fun() -> <<>> end}],
                                        doc => <<"What a value that could not outlive its node "
                                                 "(a process, port, reference or actor) is after "
                                                 "a restart.">>}),
            ok
    end.
