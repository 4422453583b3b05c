%% @doc Start-up of the class system (DESIGN D7, D8; spec semantics §3.1).
%%
%% `boot/0` starts the runtime supervisor and registers the stdlib class
%% hierarchy with its kinds, modifiers and primitive method tables.  It is
%% called from `beamtalk_boot` before the workspace server starts, and is
%% idempotent (tests and `beamtalk_class:define/1` call it too).
%%
%% Process tree (started unlinked from whoever boots, so an evaluation
%% process that happens to boot the runtime does not take it down with it):
%%
%%   beamtalk_runtime_sup (one_for_one; owns the ETS tables, so a registry
%%   |                      crash loses no class)
%%   +- beamtalk_classes       the registry (beamtalk_class, role registry)
%%   +- beamtalk_class_sup     simple_one_for_one: one process per class
%%   +- beamtalk_actor_io      group leader of the actors (beamtalk_actor_io)
%%   +- beamtalk_actor_sup     simple_one_for_one: one process per actor
%%   +- beamtalk_transcript    the Transcript actor (binds the global)
%%
%% Primitive tables are harvested from the exports of the `beamtalk_prim_*`
%% modules: an exported function named like a selector (`'at:put:'/3`) is an
%% instance method, one named `'class <selector>'` a class-side method.  The
%% stdlib written in Beamtalk can later re-register these classes (with
%% `stdlib => true`) and call the same functions from `@primitive` bodies.
-module(beamtalk_bootstrap).
-behaviour(supervisor).

-export([boot/0, ensure_started/0, ensure_booted/0, stdlib_classes/0,
         primitive_methods/2]).
-export([init/1, drop_actor_exit_reports/2]).

-define(TOP, beamtalk_runtime_sup).

%% @doc Start the runtime and register the stdlib classes (idempotent).
boot() ->
    ensure_started(),
    case persistent_term:get({?MODULE, booted}, false) of
        true -> ok;
        false ->
            global:trans({?MODULE, self()}, fun register_stdlib/0, [node()]),
            ok
    end.

%% @doc Boot unless already booted (cheap check on the define path).
ensure_booted() ->
    case persistent_term:get({?MODULE, booted}, false) of
        true -> ok;
        false -> boot()
    end.

%% @doc Start the supervisors and tables only.
ensure_started() ->
    case whereis(?TOP) of
        undefined ->
            %% `actor kill` is an ordinary Beamtalk operation: keep the
            %% supervisor's report about it out of the node log.
            _ = logger:add_primary_filter(beamtalk_actor_exits,
                                          {fun ?MODULE:drop_actor_exit_reports/2, []}),
            %% Failed handshakes from strangers: a bounded number of lines.
            ok = beamtalk_dist_guard:install(),
            case supervisor:start_link({local, ?TOP}, ?MODULE, top) of
                {ok, Pid} -> unlink(Pid), ok;
                {error, {already_started, _}} -> ok
            end;
        _ -> ok
    end.

%% @doc Logger filter: drop child-terminated reports of the actor supervisor.
drop_actor_exit_reports(#{msg := {report, #{label := {supervisor, child_terminated},
                                            report := Report}}} = Event, _) when is_list(Report) ->
    case lists:keyfind(supervisor, 1, Report) of
        {supervisor, {local, beamtalk_actor_sup}} -> stop;
        _ -> Event
    end;
drop_actor_exit_reports(Event, _) ->
    Event.

%%% Supervisors

init(top) ->
    Opts = [named_table, public, set, {read_concurrency, true}],
    _ = ets:new(beamtalk_class_registry, Opts),
    _ = ets:new(beamtalk_globals, Opts),
    Children =
        [#{id => beamtalk_classes,
           start => {beamtalk_class, start_registry, []},
           restart => permanent, type => worker},
         #{id => beamtalk_class_sup,
           start => {supervisor, start_link, [{local, beamtalk_class_sup}, ?MODULE, class_sup]},
           restart => permanent, type => supervisor},
         #{id => beamtalk_actor_io,
           start => {beamtalk_actor_io, start_link, []},
           restart => permanent, type => worker},
         #{id => beamtalk_actor_sup,
           start => {supervisor, start_link, [{local, beamtalk_actor_sup}, ?MODULE, actor_sup]},
           restart => permanent, type => supervisor},
         #{id => beamtalk_transcript,
           start => {beamtalk_transcript, start_link, []},
           restart => permanent, type => worker},
         #{id => beamtalk_code_pool,
           start => {beamtalk_code_pool, start_link, []},
           restart => permanent, type => worker}],
    {ok, {#{strategy => one_for_one, intensity => 100, period => 1}, Children}};
init(class_sup) ->
    {ok, {#{strategy => simple_one_for_one, intensity => 1000, period => 1},
          [#{id => class, start => {beamtalk_class, start_link_class, []},
             restart => temporary, shutdown => 1000, type => worker}]}};
init(actor_sup) ->
    {ok, {#{strategy => simple_one_for_one, intensity => 1000, period => 1},
          [#{id => actor, start => {beamtalk_actor, start_link, []},
             restart => temporary, shutdown => brutal_kill, type => worker}]}}.

%%% The stdlib hierarchy

register_stdlib() ->
    case persistent_term:get({?MODULE, booted}, false) of
        true -> ok;
        false ->
            [define_stdlib(C) || C <- stdlib_classes()],
            persistent_term:put({?MODULE, booted}, true),
            beamtalk_singletons:start()
    end.

define_stdlib({Name, Super, Kind, Opts}) ->
    Prims = proplists:get_value(prims, Opts, []),
    Style = case Kind of actor -> a; _ -> v end,
    {Inst, Cls} = lists:foldl(fun(M, {I, C}) ->
                                      {I1, C1} = primitive_methods(M, Style),
                                      {maps:merge(I, I1), maps:merge(C, C1)}
                              end, {#{}, #{}}, Prims),
    Desc = #{name => Name,
             superclass => Super,
             kind => Kind,
             stdlib => true,
             primitive => proplists:get_bool(primitive, Opts),
             modifiers => proplists:get_value(modifiers, Opts, []),
             fields => proplists:get_value(fields, Opts, []),
             methods => Inst,
             class_methods => Cls,
             sealed_methods => proplists:get_value(sealed_methods, Opts, []),
             doc => proplists:get_value(doc, Opts, nil)},
    beamtalk_class:define_unbooted(Desc).

%% @doc The method tables of a primitive module: `{Instance, ClassSide}`.
%% Instance methods use Style (`a` for actor classes); class-side methods
%% are always value style.  Arity mismatches are bugs and fail the boot.
primitive_methods(Mod, Style) ->
    Exports = [FA || {F, _} = FA <- Mod:module_info(exports), F =/= module_info],
    lists:foldl(
      fun({F, A}, {I, C}) ->
              case atom_to_list(F) of
                  "class " ++ Sel ->
                      S = list_to_atom(Sel),
                      check_arity(Mod, F, A, selector_arity(S) + 1),
                      {I, C#{S => {v, erlang:make_fun(Mod, F, A)}}};
                  _ ->
                      Extra = case Style of a -> 2; v -> 1 end,
                      check_arity(Mod, F, A, selector_arity(F) + Extra),
                      {I#{F => {Style, erlang:make_fun(Mod, F, A)}}, C}
              end
      end, {#{}, #{}}, Exports).

check_arity(_Mod, _F, A, A) -> ok;
check_arity(Mod, F, A, Want) ->
    erlang:error({primitive_arity, Mod, F, A, Want}).

selector_arity(Sel) ->
    S = atom_to_list(Sel),
    case S of
        [C | _] when (C >= $a andalso C =< $z); (C >= $A andalso C =< $Z); C =:= $_ ->
            length([X || X <- S, X =:= $:]);
        _ -> 1                                   % binary selector
    end.

%% @doc {Name, Superclass, Kind, Options} in definition order (parents first).
stdlib_classes() ->
    P = fun(M) -> {prims, M} end,
    [{'ProtoObject', nil, object, [{modifiers, [abstract]}, P([beamtalk_prim_proto_object])]},
     {'Object', 'ProtoObject', object,
      [P([beamtalk_prim_object]), {sealed_methods, [yourself, 'respondsTo:']}]},
     {'Behaviour', 'Object', object, [{modifiers, [abstract]}, P([beamtalk_prim_behaviour])]},
     {'Class', 'Behaviour', object, [{modifiers, [sealed]}, P([beamtalk_prim_class])]},
     {'Metaclass', 'Class', object, [{modifiers, [sealed]}, P([beamtalk_prim_metaclass])]},
     {'Value', 'Object', value, []},
     {'Actor', 'Object', actor, [P([beamtalk_prim_actor])]},
     {'ClassBuilder', 'Actor', actor,
      [P([beamtalk_prim_class_builder]),
       {fields, [{className, fun() -> nil end},
                 {superclassRef, fun() -> nil end},
                 {fieldSpecs, fun() -> [] end},
                 {methodSpecs, fun() -> #{} end},
                 {classMethodSpecs, fun() -> #{} end},
                 {classVarSpecs, fun() -> [] end},
                 {modifiers, fun() -> [] end},
                 {docText, fun() -> nil end},
                 {infoSpec, fun() -> #{} end},
                 {rootClass, fun() -> false end}]}]},
     {'Boolean', 'Value', value, [{modifiers, [abstract]}, P([beamtalk_prim_boolean])]},
     {'True', 'Boolean', value, [{modifiers, [sealed]}, primitive]},
     {'False', 'Boolean', value, [{modifiers, [sealed]}, primitive]},
     {'UndefinedObject', 'Object', object,
      [{modifiers, [sealed]}, primitive, P([beamtalk_prim_undefined_object])]},
     {'Number', 'Value', value, [{modifiers, [abstract, typed]}, P([beamtalk_prim_number])]},
     {'Integer', 'Number', value, [{modifiers, [sealed]}, primitive, P([beamtalk_prim_integer])]},
     {'Character', 'Integer', value, [{modifiers, [sealed]}, primitive]},
     {'Float', 'Number', value, [{modifiers, [sealed]}, primitive, P([beamtalk_prim_float])]},
     {'Collection', 'Value', value, [{modifiers, [abstract, typed]}]},
     {'List', 'Collection', value, [{modifiers, [sealed, typed]}, P([beamtalk_prim_list])]},
     {'String', 'Collection', value,
      [{modifiers, [sealed, typed]}, primitive, P([beamtalk_prim_string])]},
     {'Dictionary', 'Collection', value, [{modifiers, [sealed]}, P([beamtalk_prim_dictionary])]},
     {'Set', 'Collection', value,
      [{modifiers, [sealed]}, P([beamtalk_prim_set]), {fields, [{elements, fun() -> [] end}]}]},
     {'Tuple', 'Collection', value, [{modifiers, [sealed, typed]}, P([beamtalk_prim_tuple])]},
     {'Array', 'Collection', value, [{modifiers, [sealed]}, P([beamtalk_prim_array])]},
     {'Association', 'Value', value,
      [{modifiers, [sealed]}, P([beamtalk_prim_association]),
       {fields, [{key, fun() -> nil end}, {value, fun() -> nil end}]}]},
     {'Exception', 'Value', value, [P([beamtalk_prim_exception])]},
     {'Error', 'Exception', value, []},
     {'RuntimeError', 'Error', value, []},
     {'TypeError', 'Error', value, []},
     {'InstantiationError', 'Error', value, []},
     {'BEAMError', 'Error', value, []},
     {'ExitError', 'BEAMError', value, []},
     {'ThrowError', 'BEAMError', value, []},
     {'StackFrame', 'Value', value,
      [{modifiers, [sealed]}, P([beamtalk_prim_stack_frame]),
       {fields, [{method, fun() -> nil end}, {receiverClass, fun() -> nil end},
                 {arguments, fun() -> 0 end}, {moduleName, fun() -> nil end},
                 {file, fun() -> nil end}, {line, fun() -> nil end}]}]},
     {'CompiledMethod', 'Value', value,
      [{modifiers, [sealed]}, primitive, P([beamtalk_prim_compiled_method])]},
     {'DateTime', 'Value', value,
      [{modifiers, [sealed]}, P([beamtalk_prim_date_time]), {fields, [{timestamp, fun() -> 0 end}]}]},
     {'FileHandle', 'Value', value, [{modifiers, [sealed]}]},
     {'Random', 'Value', value,
      [{modifiers, [sealed]}, P([beamtalk_prim_random]), {fields, [{generator, fun() -> nil end}]}]},
     {'Regex', 'Value', value,
      [{modifiers, [sealed]}, P([beamtalk_prim_regex]),
       {fields, [{source, fun() -> <<>> end}, {options, fun() -> [] end}]}]},
     {'BeamtalkInterface', 'Actor', actor, [P([beamtalk_prim_beamtalk_interface])]},
     {'WorkspaceInterface', 'Actor', actor, [P([beamtalk_prim_workspace_interface])]},
     {'TranscriptStream', 'Actor', actor, [P([beamtalk_prim_transcript_stream])]},
     {'Block', 'Object', object, [{modifiers, [sealed]}, primitive, P([beamtalk_prim_block])]},
     {'Symbol', 'Object', object, [{modifiers, [sealed]}, primitive, P([beamtalk_prim_symbol])]},
     {'Pid', 'Object', object, [{modifiers, [sealed]}, primitive, P([beamtalk_prim_pid])]},
     {'Port', 'Object', object, [{modifiers, [sealed]}, primitive]},
     {'Reference', 'Object', object, [{modifiers, [sealed]}, primitive]},
     {'Future', 'Object', object, [{modifiers, [sealed]}, primitive]},
     {'Stream', 'Object', object, [{modifiers, [sealed]}]},
     {'File', 'Object', object, []},
     {'JSON', 'Object', object, [{modifiers, [sealed]}]},
     {'System', 'Object', object, [{modifiers, [sealed]}, P([beamtalk_prim_system])]},
     {'TestCase', 'Object', object, [P([beamtalk_prim_test_case])]},
     {'TestResult', 'Object', object, [P([beamtalk_prim_test_result])]},
     {'TestRunner', 'Object', object, [P([beamtalk_prim_test_runner])]},
     {'Erlang', 'ProtoObject', object,
      [{modifiers, [sealed]}, primitive, P([beamtalk_prim_erlang])]},
     {'ErlangModule', 'ProtoObject', object,
      [{modifiers, [sealed]}, primitive, P([beamtalk_prim_erlang_module])]}].
