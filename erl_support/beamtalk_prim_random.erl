%% @doc Random (stdlib §9): a pseudo-random generator (`rand`'s exsss) as a
%% value object `#{'$beamtalk_class' => 'Random', generator => AtomicsRef}`.
%% The generator state lives in a two-cell `atomics` array the value refers
%% to, so `r next` advances `r` (as in Pharo) from any process, while the
%% value itself stays an immutable map; the state is freed with the last
%% reference.  The class side uses the calling process's `rand` state.
-module(beamtalk_prim_random).
-export(['class next'/1, 'class nextInteger:'/2, 'class new'/1, 'class seed:'/2,
         'next'/1, 'nextInteger:'/2]).

'class next'(_Cls) -> rand:uniform().

'class nextInteger:'(_Cls, N) -> rand:uniform(bound('nextInteger:', N)).

'class new'(_Cls) -> make(rand:seed_s(exsss)).

'class seed:'(_Cls, N) when is_integer(N) -> make(rand:seed_s(exsss, N));
'class seed:'(_Cls, N) -> type('seed:', N, "an Integer").

'next'(R) -> step(R, fun rand:uniform_s/1).

'nextInteger:'(R, N) ->
    B = bound('nextInteger:', N),
    step(R, fun(S) -> rand:uniform_s(B, S) end).

make(State) ->
    {exsss, [A | B]} = rand:export_seed_s(State),
    Ref = atomics:new(2, [{signed, false}]),
    atomics:put(Ref, 1, A),
    atomics:put(Ref, 2, B),
    #{'$beamtalk_class' => 'Random', generator => Ref}.

step(#{generator := Ref}, F) ->
    S = rand:seed_s({exsss, [atomics:get(Ref, 1) | atomics:get(Ref, 2)]}),
    {X, S1} = F(S),
    {exsss, [A | B]} = rand:export_seed_s(S1),
    atomics:put(Ref, 1, A),
    atomics:put(Ref, 2, B),
    X;
step(_R, _F) ->
    beamtalk_exception:raise(runtime_error, 'Random', next,
                             <<"This Random has no generator: make one with Random new or Random seed:">>, nil).

bound(_Sel, N) when is_integer(N), N >= 1 -> N;
bound(Sel, N) -> type(Sel, N, "a positive Integer").

type(Sel, X, What) ->
    beamtalk_exception:raise(type_error, 'Random', Sel,
                             iolist_to_binary(["Random ", atom_to_binary(Sel, utf8), " expects ",
                                               What, ", got ", beamtalk_print:print_string(X)]), nil).
