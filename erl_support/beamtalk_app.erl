%% @doc The OTP application callbacks of a built package's `_build/dev/lib`
%% (`beamtalk build`, seed ADR 0026 §3), so that a plain node starts a
%% package with `application:ensure_all_started(my_app)`:
%%
%%   beamtalk_runtime  `{mod, {beamtalk_app, runtime}}`: the class system
%%                     (beamtalk_bootstrap) and an echo of the Transcript to
%%                     the node's standard output (beamtalk_console), since
%%                     no workspace is there to show it;
%%   beamtalk_stdlib   `{mod, {beamtalk_app, stdlib}}`: registers the
%%                     compiled stdlib classes of its ebin;
%%   <package>         `{mod, {beamtalk_app, {package, App}}}`: loads the
%%                     package's class modules parents first (their on_load
%%                     hooks register the classes), then starts its
%%                     supervisor with the manifest's top `Supervisor`
%%                     subclass (env `supervisor`) and then runs the start
%%                     class's `start` (env `start_class`).
%%
%% The workspace does not go through here: `beamtalk_boot` boots the same
%% runtime directly.
-module(beamtalk_app).
-behaviour(application).
-behaviour(supervisor).

-export([start/2, stop/1, init/1, run_start/2]).

start(_Type, runtime) ->
    ok = beamtalk_bootstrap:boot(),
    Top = whereis(beamtalk_runtime_sup),
    Console = #{id => beamtalk_console, start => {beamtalk_console, start_link, []},
                restart => permanent, type => worker},
    case supervisor:start_child(Top, Console) of
        {ok, _} -> ok;
        {error, {already_started, _}} -> ok;
        {error, already_present} -> _ = supervisor:restart_child(Top, beamtalk_console)
    end,
    {ok, Top};
start(_Type, stdlib) ->
    ok = beamtalk_stdlib:load(stdlib_ebin()),
    supervisor:start_link({local, beamtalk_stdlib_sup}, ?MODULE, empty);
start(_Type, {package, App}) ->
    Classes = case application:get_env(App, classes) of
                  {ok, L} -> L;
                  undefined -> []
              end,
    case load_classes(Classes) of
        ok -> supervisor:start_link(?MODULE, {package, App});
        {error, _} = Error -> Error
    end.

stop(_State) ->
    ok.

stdlib_ebin() ->
    case code:lib_dir(beamtalk_stdlib) of
        {error, _} -> filename:dirname(code:which('bt@stdlib@object'));
        Dir -> filename:join(Dir, "ebin")
    end.

%% Parents first (the order of the .app's `classes`): loading a class
%% module runs its on_load hook, which registers the class.  A module an
%% earlier start left loaded is already registered.
load_classes([]) -> ok;
load_classes([{Mod, Class, _Super} | Rest]) ->
    case code:ensure_loaded(Mod) of
        {module, Mod} -> load_classes(Rest);
        {error, on_load_failure} ->
            Text = case persistent_term:get({beamtalk_load_error, Mod}, undefined) of
                       undefined -> <<"its class could not be registered">>;
                       Ex -> beamtalk_errors:format(Ex)
                   end,
            {error, {class_not_registered, Class, Text}};
        {error, What} ->
            {error, {cannot_load, Mod, What}}
    end.

init(empty) ->
    {ok, {#{strategy => one_for_one, intensity => 1, period => 5}, []}};
init({package, App}) ->
    Sup = case application:get_env(App, supervisor) of
              {ok, SupClass} ->
                  [#{id => SupClass, start => {beamtalk_supervisor, start_link, [SupClass]},
                     restart => permanent, shutdown => infinity, type => supervisor,
                     modules => [beamtalk_supervisor]}];
              undefined -> []
          end,
    Start = case application:get_env(App, start_class) of
                {ok, StartClass} ->
                    [#{id => '$start', start => {?MODULE, run_start, [App, StartClass]},
                       restart => temporary, type => worker, modules => [?MODULE]}];
                undefined -> []
            end,
    {ok, {#{strategy => one_for_one, intensity => 3, period => 5}, Sup ++ Start}}.

%% @doc The start "child": sends `start` to the start class in the
%% application's supervisor, after the top supervisor's children are up, and
%% leaves no process behind (`ignore`); an error fails the application's
%% start with the Beamtalk message.
run_start(App, Class) ->
    try beamtalk_send:send(beamtalk_class:class_object(Class), start, []) of
        _ -> ignore
    catch C:R:S ->
            Ex = beamtalk_errors:wrap(C, R, S),
            Text = iolist_to_binary([atom_to_binary(maps:get('$beamtalk_class', Ex), utf8), ": ",
                                     beamtalk_exception:message_text(Ex)]),
            io:put_chars(standard_error, [atom_to_binary(App, utf8), ": ", atom_to_binary(Class, utf8),
                                          " start failed: ", Text, "\n"]),
            {error, {start_failed, Class, Text}}
    end.
