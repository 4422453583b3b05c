%% @doc WorkspaceInterface, bound as `Workspace` (stdlib §10): this node's
%% live objects — actors, user classes, tests, shared names.  Actor-style
%% primitives (`{Result, State}`).
-module(beamtalk_prim_workspace_interface).
-export(['actors'/2, 'actorAt:'/3, 'actorsOf:'/3, 'classes'/2, 'testClasses'/2,
         'globals'/2, 'load:'/3, 'test'/2, 'test:'/3, 'bind:as:'/4, 'unbind:'/3,
         'class current'/1, 'class current:'/2, 'watch:'/3, 'unwatch:'/3,
         'watches'/2, 'nodes'/2, 'connect:'/3,
         'changes'/2, 'changesReport'/2, 'flush'/2, 'revert:'/3]).

%% @doc `Workspace nodes`, `Workspace connect: #'app@host'` (beamtalk_cluster).
'nodes'(_Self, S) -> {beamtalk_cluster:nodes(), S}.

'connect:'(_Self, S, Node) when is_atom(Node), Node =/= nil; is_binary(Node) ->
    N = if is_binary(Node) -> binary_to_atom(Node, utf8); true -> Node end,
    case beamtalk_cluster:connect(N) of
        ok -> {N, S};
        {error, Text, Hint} ->
            beamtalk_exception:raise(runtime_error, 'WorkspaceInterface', 'connect:', Text, Hint)
    end;
'connect:'(_Self, _S, Other) ->
    beamtalk_exception:raise(type_error, 'WorkspaceInterface', 'connect:',
                             iolist_to_binary(["connect: expects a node name (a Symbol like #'app@host'), not ",
                                               beamtalk_print:print_string(Other)]), nil).

'class current'(_Cls) -> beamtalk_singletons:current('WorkspaceInterface').
'class current:'(_Cls, Actor) -> beamtalk_singletons:set_current('WorkspaceInterface', Actor).

%% @doc Every live actor but the workspace singletons.
'actors'(_Self, S) -> {actors(), S}.

actors() ->
    Singletons = [beamtalk_class:global(G) || G <- beamtalk_singletons:names(),
                                              is_tuple(catch beamtalk_class:global(G))],
    [A || {_, Pid, _, _} <- supervisor:which_children(beamtalk_actor_sup), is_pid(Pid),
          {dictionary, D} <- [erlang:process_info(Pid, dictionary)],
          {'$bt_self', A} <- D, not lists:member(A, Singletons)].

'actorAt:'(_Self, S, Text) when is_binary(Text) ->
    Found = [A || {beamtalk_object, _, _, Pid} = A <- actors(),
                  pid_text(Pid) =:= string:trim(Text, both, "<>#Pid")],
    {case Found of [A | _] -> A; [] -> nil end, S};
'actorAt:'(_Self, S, _) -> {nil, S}.

pid_text(Pid) -> string:trim(list_to_binary(pid_to_list(Pid)), both, "<>").

'actorsOf:'(_Self, S, Cls) ->
    case catch beamtalk_class:name_of(Cls) of
        Name when is_atom(Name) ->
            {[A || {beamtalk_object, C, _, _} = A <- actors(), beamtalk_class:is_kind_of_class(C, Name)], S};
        _ ->
            beamtalk_rt:type_error('WorkspaceInterface', 'actorsOf:', Cls, "a class",
                                   <<"Type error in 'actorsOf:' on WorkspaceInterface">>)
    end.

%% @doc Classes loaded from a source file that is not part of the stdlib.
'classes'(_Self, S) ->
    {[beamtalk_class:class_object(N) || N <- lists:sort(beamtalk_class:all_names()), user_class(N)], S}.

user_class(N) ->
    case beamtalk_class:entry(N) of
        #{stdlib := true} -> false;
        #{source_file := F} when is_binary(F) -> true;
        _ -> false
    end.

'testClasses'(_Self, S) ->
    {[beamtalk_class:class_object(N) || N <- lists:sort(beamtalk_class:all_names()),
                                         N =/= 'TestCase', beamtalk_class:inherits_from(N, 'TestCase')], S}.

'globals'(_Self, S) ->
    Classes = maps:from_list([{N, beamtalk_class:class_object(N)} || N <- beamtalk_class:all_names(),
                                                                    user_class(N)]),
    {maps:merge(Classes, beamtalk_class:globals()), S}.

%% Loading, watching: through the node's compiler peer (beamtalk_live).
'load:'(_Self, S, Path) -> {beamtalk_live:load(Path), S}.
'watch:'(_Self, S, Path) -> {beamtalk_live:watch(Path), S}.
'unwatch:'(_Self, S, Path) -> {beamtalk_live:unwatch(Path), S}.
'watches'(_Self, S) -> {beamtalk_live:watches(), S}.

%% Pending source changes of a package (beamtalk_changes).
'changes'(_Self, S) ->
    {[maps:without([time, base_hash, package], C) || C <- beamtalk_changes:list()], S}.
'changesReport'(_Self, S) -> {beamtalk_changes:report(), S}.
'flush'(_Self, S) ->
    case beamtalk_changes:flush() of
        {ok, Text} -> {Text, S};
        {error, Text} ->
            beamtalk_exception:raise(runtime_error, 'WorkspaceInterface', flush, Text,
                                     <<"Workspace changes lists what is still pending">>)
    end.
'revert:'(_Self, S, Change) ->
    case beamtalk_changes:revert(Change) of
        ok -> {nil, S};
        {error, Text} -> beamtalk_exception:raise(runtime_error, 'WorkspaceInterface', 'revert:', Text, nil)
    end.

'test'(_Self, S) -> {beamtalk_prim_test_runner:'class runAll'('TestRunner'), S}.
'test:'(_Self, S, Cls) -> {beamtalk_prim_test_runner:'class run:'('TestRunner', Cls), S}.

'bind:as:'(_Self, S, Value, Name) when is_atom(Name) ->
    lists:member(Name, beamtalk_singletons:names()) andalso
        beamtalk_exception:raise(runtime_error, 'WorkspaceInterface', 'bind:as:',
                                 iolist_to_binary([atom_to_binary(Name),
                                                   " is a system name and cannot be shadowed"]), nil),
    global_name_check(Name),
    beamtalk_class:set_global(Name, Value),
    {nil, S}.

%% A workspace name is read as a global (spec repl.md §5: "upper-case so it
%% parses as a global"): any other name would be stored and never readable.
global_name_check(Name) ->
    Text = atom_to_binary(Name),
    case re:run(Text, "^[A-Z][A-Za-z0-9_]*$", [{capture, none}]) of
        match -> ok;
        nomatch ->
            Parts = [P || P <- re:split(Text, "[^A-Za-z0-9_]+", [{return, binary}]), P =/= <<>>],
            Fixed = case iolist_to_binary([capitalize(P) || P <- Parts]) of
                        <<C, _/binary>> = F when C >= $A, C =< $Z -> F;
                        _ -> <<"Shared">>
                    end,
            Variable = case re:run(Text, "^[a-z_][A-Za-z0-9_]*$", [{capture, none}]) of
                           match -> ["; a session variable is ", Text, " := aValue"];
                           nomatch -> []
                       end,
            Hint = ["Workspace bind: aValue as: #", Fixed, " (then ", Fixed, " in any session)" | Variable],
            beamtalk_exception:raise(runtime_error, 'WorkspaceInterface', 'bind:as:',
                                     iolist_to_binary([Text, " cannot be a workspace name: it is read as a "
                                                       "global, so it starts with an upper-case letter (A-Z), "
                                                       "followed by letters, digits or _"]),
                                     iolist_to_binary(Hint))
    end.

capitalize(<<C, Rest/binary>>) when C >= $a, C =< $z -> <<(C - 32), Rest/binary>>;
capitalize(B) -> B.

'unbind:'(_Self, S, Name) when is_atom(Name) ->
    case maps:is_key(Name, beamtalk_class:globals()) andalso
         not lists:member(Name, beamtalk_singletons:names()) of
        true -> beamtalk_class:unset_global(Name), {nil, S};
        false ->
            beamtalk_exception:raise(runtime_error, 'WorkspaceInterface', 'unbind:',
                                     iolist_to_binary([atom_to_binary(Name),
                                                       " is not a registered workspace name"]), nil)
    end.
