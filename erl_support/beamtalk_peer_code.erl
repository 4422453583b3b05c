%% @doc Turning what the compiler peer sends into running code: compile the
%% abstract forms, load class modules (all of them or none), run an input.
%%
%% Why not a request to the workspace server: these run in whichever
%% process asked (an Erlang shell, the Workspace actor, the watcher), with no
%% session and no bindings, while the workspace server serialises per
%% session.  The steps are the server's own (beamtalk_eval_jobs): a module
%% that fails to compile changes nothing; loading runs each class module's
%% on_load hook, which registers or hot-reloads its class (live actors keep
%% their state).
-module(beamtalk_peer_code).

-export([load_modules/1, run_input/2]).

%% @doc Compile every `{Module, Forms}` first, then load them in order.
%% Answers ok or `{error, Text}`.
load_modules(Modules) ->
    case beamtalk_eval_jobs:compile_and_load(Modules) of
        {exception, C, R, S} -> {error, beamtalk_errors:format(beamtalk_errors:wrap(C, R, S))};
        Answer -> Answer
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
    case beamtalk_eval_jobs:compile_forms(Mod, Forms) of
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
