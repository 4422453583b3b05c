%% @doc What one request does in a session's evaluator: compile and run an
%% input's forms against the session's bindings, load class modules or a
%% built package, run BUnit tests.  Each function answers a result term
%% for the workspace server (beamtalk_workspace:complete/3) and never
%% raises: a failure becomes `{runtime_error, Text, Exception}`,
%% `{undefined_variable, Text}` or `{internal, Text}`.
%%
%% Kept apart from the server so the server module holds only the
%% request dispatch and session bookkeeping, and apart from the evaluator
%% process (beamtalk_evaluator) which only decides where these run.
-module(beamtalk_eval_jobs).

-export([job/3, evaluate/3, load_modules/1, compile_and_load/1, compile_forms/2,
         load_package/2, run_tests/2,
         runtime_error/3, compile_options/0]).

%% @doc The work of an eval request, as a job for the evaluator to run
%% (beamtalk_evaluator:run/3); an input's forms get the change to the
%% evaluator's copy of the bindings (beamtalk_bindings_delta).
job(#{load := Modules}, _Mod, _Bindings) -> fun() -> load_modules(Modules) end;
job(#{package := {Dir, App}}, _Mod, _Bindings) -> fun() -> load_package(Dir, App) end;
job(#{tests := Which} = Req, _Mod, _Bindings) ->
    Strict = maps:get(strict, Req, true),
    fun() -> run_tests(Which, Strict) end;
job(#{forms := Forms} = Req, Mod, Update) ->
    {bindings, Update, fun(Bindings) -> keep_last(Req, Bindings, evaluate(Mod, Forms, Bindings)) end}.

%% `_` is the value of the user's last input (see run/2): an evaluation a
%% REPL command makes for itself (`:actors`, `:modules`) asks, with
%% `last => false`, to leave it as it was.
keep_last(#{last := false}, #{'_' := Last}, {ok, Text, New}) -> {ok, Text, New#{'_' => Last}};
keep_last(#{last := false}, _, {ok, Text, New}) -> {ok, Text, maps:remove('_', New)};
keep_last(_, _, Result) -> Result.

%% An input that makes funs (`unique`) runs in a module lent by
%% beamtalk_code_pool for this input only; any other in the session's
%% scratch module.
evaluate(unique, Forms, Bindings) ->
    Mod = beamtalk_code_pool:checkout(),
    try evaluate(Mod, Forms, Bindings)
    after beamtalk_code_pool:release(Mod)
    end;
evaluate(Mod, Forms, Bindings) ->
    Key = beamtalk_input_cache:key(Forms),
    case beamtalk_input_cache:is_loaded(Mod, Key) of
        true -> run(Mod, Bindings);
        false -> compile_and_run(Mod, beamtalk_input_cache:mark(Forms, Key), Bindings)
    end.

compile_and_run(Mod, Forms, Bindings) ->
    case compile_forms(Mod, Forms) of
        {ok, Bin} ->
            _ = code:purge(Mod),
            case code:load_binary(Mod, "beamtalk_repl", Bin) of
                {module, Mod} ->
                    beamtalk_code_pool:loaded(Mod, Bin),
                    beamtalk_store:module_loaded(Mod, Bin),
                    run(Mod, Bindings);
                {error, What} ->
                    {internal, iolist_to_binary(io_lib:format("Cannot load ~ts: ~tp", [Mod, What]))}
            end;
        {error, Text} ->
            {internal, Text}
    end.

%% @doc The options every input and class module is compiled with (also
%% used by scripts/bench/bench_native.erl, the benchmark's native floor).
compile_options() ->
    [binary, return_errors, nowarn_unused_vars, nowarn_shadow_vars, no_spawn_compiler_process].

compile_forms(Mod, [{attribute, A, module, _} | Rest]) ->
    case compile:forms([{attribute, A, module, Mod} | Rest], compile_options()) of
        {ok, Mod, Bin} -> {ok, Bin};
        {ok, Mod, Bin, _Warnings} -> {ok, Bin};
        {error, Errors, _Warnings} ->
            {error, iolist_to_binary(io_lib:format(
                      "Internal compiler error: the generated code was rejected: ~tp", [Errors]))}
    end;
compile_forms(_Mod, _Forms) ->
    {error, <<"Internal compiler error: the forms do not start with a module attribute">>}.

%% Compile every module first; load only if all compiled, so a load that
%% fails changes nothing that is loaded.  Loading runs each module's on_load
%% hook, which registers (or hot-reloads) its class.
load_modules(Modules) ->
    case compile_and_load(Modules) of
        ok -> {ok, <<"ok">>, undefined};
        {error, Text} -> {internal, Text};
        {exception, C, R, S} -> runtime_error(C, R, S)
    end.

%% @doc The one way class modules reach the node, for the workspace server
%% and the compiler peer alike (beamtalk_peer_code): compile every
%% `{Module, Forms}` first, then load them in order, then hand them to the
%% cluster.  `ok`, `{error, Text}` (nothing was loaded if one did not
%% compile) or `{exception, Class, Reason, Stack}`.
compile_and_load(Modules) ->
    Compiled = [{Mod, compile_forms(Mod, Forms)} || {Mod, Forms} <- Modules],
    case [Text || {_, {error, Text}} <- Compiled] of
        [Text | _] -> {error, Text};
        [] ->
            try
                with_load_lock(fun() -> [load_one(Mod, Bin) || {Mod, {ok, Bin}} <- Compiled] end),
                beamtalk_cluster:loaded([{Mod, Bin} || {Mod, {ok, Bin}} <- Compiled]),
                ok
            catch
                throw:{load_failed, Text} -> {error, Text};
                C:R:S -> {exception, C, R, S}
            end
    end.

load_one(Mod, Bin) ->
    load_with(Mod, fun() -> code:load_binary(Mod, atom_to_list(Mod) ++ ".beam", Bin) end),
    beamtalk_store:module_loaded(Mod, Bin).

%% A built package (seed ADR 0026 Phase 4): put its ebin on the code path and
%% load, parents first (the order of the `.app` file's `classes`), every class
%% module that is not loaded or whose loaded code differs from its `.beam`
%% file: a reconnect with nothing changed reloads nothing, and a rebuilt
%% class hot-reloads while its actors keep running.  Answers how many
%% modules were (re)loaded.
load_package(DirBin, App) ->
    Dir = unicode:characters_to_list(DirBin),
    AppFile = filename:join(Dir, atom_to_list(App) ++ ".app"),
    case file:consult(AppFile) of
        {ok, [{application, App, Props}]} ->
            Env = proplists:get_value(env, Props, []),
            Mods = [M || {M, _Class, _Super} <- proplists:get_value(classes, Env, [])],
            _ = code:add_patha(Dir),
            try
                Changed = with_load_lock(
                            fun() ->
                                    Ch = [M || M <- Mods, changed(M, Dir)],
                                    [load_with(M, fun() -> code:load_abs(filename:join(Dir, atom_to_list(M))) end)
                                     || M <- Ch],
                                    Ch
                            end),
                {ok, integer_to_binary(length(Changed)), undefined}
            catch
                throw:{load_failed, Text} -> {internal, Text};
                C:R:S -> runtime_error(C, R, S)
            end;
        Other ->
            {internal, iolist_to_binary(io_lib:format("Cannot read ~ts: ~tp", [AppFile, Other]))}
    end.

changed(Mod, Dir) ->
    case code:is_loaded(Mod) of
        false -> true;
        {file, _} ->
            case beam_lib:md5(filename:join(Dir, atom_to_list(Mod) ++ ".beam")) of
                {ok, {Mod, MD5}} -> Mod:module_info(md5) =/= MD5;
                _ -> true
            end
    end.

%% Class modules are loaded by one process at a time on this node.  Two
%% sessions (or a session and a watch) purging and loading the same module
%% at once left one of them waiting on the code server until its request
%% timed out, and made the other fail with `not_purged`.  The lock is
%% OTP's own (global:trans on this node alone), re-entrant for the holder.
with_load_lock(Fun) ->
    global:trans({beamtalk_class_load, self()}, Fun, [node()]).

load_with(Mod, Load) ->
    _ = code:purge(Mod),
    case Load() of
        {module, Mod} -> ok;
        {error, on_load_failure} ->
            Key = {beamtalk_load_error, Mod},
            case persistent_term:get(Key, undefined) of
                undefined ->
                    throw({load_failed, iolist_to_binary(
                                          io_lib:format("Loading ~ts failed: its class could not be registered",
                                                        [Mod]))});
                Ex ->
                    persistent_term:erase(Key),
                    throw({load_failed, beamtalk_errors:format(Ex)})
            end;
        {error, What} ->
            throw({load_failed, iolist_to_binary(io_lib:format("Cannot load ~ts: ~tp", [Mod, What]))})
    end.

run(Mod, Bindings) ->
    try Mod:eval(Bindings) of
        {Value, NewBindings} ->
            try beamtalk_result_text:text(Value) of
                %% `_` is the last value, as in IEx (`v()`), ptpython and
                %% the Erlang shell's `v(-1)`; hidden from `:bindings`
                Text -> {ok, Text, maps:put('_', Value, NewBindings)}
            catch C2:R2:S2 -> runtime_error(C2, R2, S2)
            end
    catch
        error:{beamtalk_undefined_variable, Name} ->
            {undefined_variable,
             iolist_to_binary(["Undefined variable: ", atom_to_binary(Name, utf8)])};
        C:R:S -> runtime_error(C, R, S)
    end.

%% The `tests` request: run the tests of `all` TestCase subclasses or of the
%% named classes (see beamtalk_test_runner:run_named/2); the reply carries
%% one result map per test.
run_tests(Which, Strict) ->
    try beamtalk_test_runner:run_named(Which, Strict) of
        Results -> {tests, Results}
    catch C:R:S -> runtime_error(C, R, S)
    end.

runtime_error(C, R, S) ->
    Ex = beamtalk_errors:wrap(C, R, S),
    {runtime_error, beamtalk_errors:format(Ex), Ex}.

