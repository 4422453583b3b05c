%% @doc The standard library compiled from `stdlib/*.bt`.
%%
%% The Python compiler turns each stdlib file into the abstract forms of a
%% module `bt@stdlib@<snake>` and writes them, with `term_to_binary`, to
%% `<module>.etf`; `build/2` (run once per stdlib version, in a throw-away
%% `erl`) compiles those into `.beam` files of a cache directory, and every
%% workspace boot `load/1`s the cache: it loads the modules and registers
%% their classes in one batch on top of the bootstrap classes
%% (beamtalk_class:define_stdlib/1).  Why a batch and not an `-on_load`
%% hook per module: defining Object alone recomputes the method table of
%% every class; fifty-odd of those at boot would cost seconds.
-module(beamtalk_stdlib).
-export([build/2, build_main/0, load/1, load_modules/1, modules/1]).

%% @doc `erl -noshell -run beamtalk_stdlib build_main In Out`: exit status 0
%% when every module compiled, 1 (with the errors on stderr) otherwise.
build_main() ->
    {ok, [[In, Out]]} = init:get_argument(beamtalk_stdlib_build),
    case build(In, Out) of
        ok -> halt(0);
        {error, Errors} ->
            [io:format(standard_error, "~ts~n", [E]) || E <- Errors],
            halt(1)
    end.

%% @doc Compile every `<module>.etf` of In into `<module>.beam` in Out.
-spec build(file:filename(), file:filename()) -> ok | {error, [iodata()]}.
build(In, Out) ->
    ok = filelib:ensure_dir(filename:join(Out, "x")),
    Results = [compile_one(F, Out) || F <- filelib:wildcard(filename:join(In, "*.etf"))],
    case [E || {error, E} <- Results] of
        [] -> ok;
        Errors -> {error, Errors}
    end.

compile_one(File, Out) ->
    {ok, Bin} = file:read_file(File),
    {Mod, Forms} = binary_to_term(Bin),
    case compile:forms(Forms, [binary, return_errors, no_spawn_compiler_process]) of
        {ok, Mod, Beam} ->
            ok = file:write_file(filename:join(Out, atom_to_list(Mod) ++ ".beam"), Beam),
            ok;
        {ok, Mod, Beam, _Warnings} ->
            ok = file:write_file(filename:join(Out, atom_to_list(Mod) ++ ".beam"), Beam),
            ok;
        {error, Errors, _Warnings} ->
            {error, io_lib:format("~ts: ~tp", [File, Errors])}
    end.

%% @doc The stdlib modules of a cache directory.
modules(Dir) ->
    [list_to_atom(filename:basename(F, ".beam"))
     || F <- filelib:wildcard(filename:join(Dir, "bt@stdlib@*.beam"))].

%% @doc Load the compiled stdlib of Dir and register its classes (parents first).
-spec load(file:filename()) -> ok.
load(Dir) ->
    true = code:add_patha(Dir),
    Mods = modules(Dir),
    [{module, M} = code:ensure_loaded(M) || M <- Mods],
    beamtalk_dispatch_gen:cache_in(Dir),
    try load_modules(Mods)
    after beamtalk_dispatch_gen:cache_in(none)
    end.

%% @doc Register the classes of stdlib modules that are already loaded (a
%% node Beamtalk attached to gets them as binaries: beamtalk_attach).
-spec load_modules([module()]) -> ok.
load_modules(Mods) ->
    Descs = [M:'$class'() || M <- Mods],
    beamtalk_class:define_stdlib(parents_first(Descs)).

parents_first(Descs) ->
    ByName = maps:from_list([{maps:get(name, D), D} || D <- Descs]),
    Depth = fun Depth(_, K) when K > 50 -> K;
                Depth(N, K) ->
                    case maps:find(N, ByName) of
                        {ok, #{superclass := S}} when S =/= nil -> Depth(S, K + 1);
                        _ -> K
                    end
            end,
    [D || {_, _, D} <- lists:sort([{Depth(maps:get(name, D), 0), maps:get(name, D), D} || D <- Descs])].
