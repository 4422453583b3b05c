%% @doc Turning what the compiler peer sends into running code: compile the
%% abstract forms, load class modules (all of them or none), run an input.
%%
%% Why a copy of the workspace server's steps and not a call into it: these
%% run in whichever process asked (an Erlang shell, the Workspace actor, the
%% watcher), with no session and no bindings, while the workspace server
%% serialises per session.  The rules are the same: a module that fails to
%% compile changes nothing; loading runs each class module's on_load hook,
%% which registers or hot-reloads its class (live actors keep their state).
-module(beamtalk_peer_code).

-export([load_modules/1, run_input/2]).

-define(OPTS, [binary, return_errors, nowarn_unused_vars, nowarn_shadow_vars,
               no_spawn_compiler_process]).

%% @doc Compile every `{Module, Forms}` first, then load them in order.
%% Answers ok or `{error, Text}`.
load_modules(Modules) ->
    Compiled = [{Mod, compile_forms(Mod, Forms)} || {Mod, Forms} <- Modules],
    case [Text || {_, {error, Text}} <- Compiled] of
        [Text | _] -> {error, Text};
        [] ->
            try
                [load_one(Mod, Bin) || {Mod, {ok, Bin}} <- Compiled],
                beamtalk_cluster:loaded([{Mod, Bin} || {Mod, {ok, Bin}} <- Compiled]),
                ok
            catch
                throw:{load_failed, Text} -> {error, Text};
                C:R:S -> {error, beamtalk_errors:format(beamtalk_errors:wrap(C, R, S))}
            end
    end.

%% @doc Run the forms of one input (a module exporting eval/1) in a fresh
%% scope, in a module lent by beamtalk_code_pool: its code stays while any
%% fun it made is alive (in classes, actors, ...) and the name is reused
%% after, so calls to `beamtalk:eval/1` do not grow the atom table.
%% Answers `{ok, Value}` or `{error, Text}`.
run_input(Forms, _MakesFuns) ->
    Mod = beamtalk_code_pool:checkout(),
    try run_in(Mod, Forms)
    after beamtalk_code_pool:release(Mod)
    end.

run_in(Mod, Forms) ->
    case compile_forms(Mod, Forms) of
        {error, Text} -> {error, Text};
        {ok, Bin} ->
            case code:load_binary(Mod, "beamtalk_peer", Bin) of
                {module, Mod} ->
                    beamtalk_code_pool:loaded(Mod, Bin),
                    %% kept for a restart: its funs may live on in classes or actors
                    beamtalk_store:module_loaded(Mod, Bin),
                    try Mod:eval(#{}) of
                        {Value, _Bindings} -> {ok, Value}
                    catch
                        C:R:S -> {error, beamtalk_errors:format(beamtalk_errors:wrap(C, R, S))}
                    end;
                {error, What} ->
                    {error, iolist_to_binary(io_lib:format("Cannot load ~ts: ~tp", [Mod, What]))}
            end
    end.

compile_forms(Mod, [{attribute, A, module, _} | Rest]) ->
    case compile:forms([{attribute, A, module, Mod} | Rest], ?OPTS) of
        {ok, Mod, Bin} -> {ok, Bin};
        {ok, Mod, Bin, _Warnings} -> {ok, Bin};
        {error, Errors, _Warnings} ->
            {error, iolist_to_binary(io_lib:format(
                      "Internal compiler error: the generated code was rejected: ~tp", [Errors]))}
    end;
compile_forms(_Mod, _Forms) ->
    {error, <<"Internal compiler error: the forms do not start with a module attribute">>}.

load_one(Mod, Bin) ->
    _ = code:purge(Mod),
    case code:load_binary(Mod, atom_to_list(Mod) ++ ".beam", Bin) of
        {module, Mod} -> beamtalk_store:module_loaded(Mod, Bin);
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
