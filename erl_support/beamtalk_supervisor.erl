%% @doc Beamtalk supervisors: a `Supervisor subclass:` is run by OTP's own
%% `supervisor` (seed ADR 0028 §5, which leaves the design to a later ADR).
%%
%% The class describes the supervisor on its class side (`strategy`,
%% `intensity`, `period`, `children`); `spec/1` asks it, in the caller, and
%% turns its answers into OTP's `{SupFlags, [ChildSpec]}`, so a bad
%% description is a Beamtalk error where `AppSup start` was typed, not a
%% crash report in a log.  The supervisor is registered locally under the
%% class name: one running supervisor per class, found again with
%% `AppSup current`, as OTP applications name theirs.
%%
%% Children (what `children` may answer, see `child_spec/1`):
%%   an Actor subclass      a worker started by `start_actor/2` with the
%%                          class's initial state (defaults, initialize);
%%   a Supervisor subclass  a nested supervisor (`start_link/1`);
%%   a Dictionary           `#{#actor => C, #id => .., #with => #{..}}`,
%%                          `#{#supervisor => C}` or an Erlang child
%%                          (`#{#id => .., #start => #(M, F, Args)}`, what
%%                          `Erlang childSpec:` checks).
%%
%% A restarted child is a new process: Beamtalk code finds the current one
%% by its id through the supervisor (`aSup child: #id`), never by keeping
%% the reference it had (see README, Supervision).
%%
%% Supervisors started from the REPL (`AppSup start`) live under
%% `beamtalk_supervisors`, a simple_one_for_one holder added on demand to
%% the runtime supervisor, so they outlive the evaluation that started them;
%% a package's top supervisor is a child of its application's supervisor
%% (beamtalk_app).
-module(beamtalk_supervisor).
-behaviour(supervisor).

-export([start_link/1, start_link/2, start/1, spec/1, child_spec/1, check_erlang_spec/1,
         start_actor/2, child_ref/3, holder/0]).
-export([init/1]).

-define(CK, '$beamtalk_class').
-define(HOLDER, beamtalk_supervisors).

%%% ---------------------------------------------------------------------
%%% Starting
%%% ---------------------------------------------------------------------

%% @doc Start the supervisor of Class linked to the caller (a parent
%% supervisor's start function).  A bad description answers `{error, Text}`.
start_link(Class) ->
    try spec(Class) of
        Spec -> start_link(Class, Spec)
    catch C:R:S ->
            {error, {bad_supervisor, Class, beamtalk_errors:format(beamtalk_errors:wrap(C, R, S))}}
    end.

start_link(Class, Spec) ->
    supervisor:start_link({local, Class}, ?MODULE, {Class, Spec}).

%% @doc `AppSup start`: check the description here (errors are raised in
%% the caller), then start it under the holder.  Answers the pid.
start(Class) ->
    case whereis(Class) of
        undefined -> ok;
        _ -> beamtalk_exception:raise(
               runtime_error, Class, start,
               iolist_to_binary([atom_to_binary(Class, utf8), " is already running"]),
               iolist_to_binary([atom_to_binary(Class, utf8),
                                 " current answers it; send it stop first to start it again"]))
    end,
    Spec = spec(Class),
    case supervisor:start_child(holder(), [Class, Spec]) of
        {ok, Pid} -> Pid;
        {error, Reason} ->
            beamtalk_exception:raise(runtime_error, Class, start,
                                     iolist_to_binary(["Cannot start ", atom_to_binary(Class, utf8),
                                                       ": ", reason_text(Reason)]), nil)
    end.

%% @doc The holder of REPL-started supervisors (started on first use).
holder() ->
    case whereis(?HOLDER) of
        undefined ->
            beamtalk_bootstrap:ensure_started(),
            Child = #{id => ?HOLDER,
                      start => {supervisor, start_link, [{local, ?HOLDER}, ?MODULE, holder]},
                      restart => permanent, shutdown => infinity, type => supervisor},
            case supervisor:start_child(beamtalk_runtime_sup, Child) of
                {ok, Pid} -> Pid;
                {error, {already_started, Pid}} -> Pid;
                {error, already_present} ->
                    case supervisor:restart_child(beamtalk_runtime_sup, ?HOLDER) of
                        {ok, Pid} -> Pid;
                        {error, running} -> whereis(?HOLDER)
                    end
            end;
        Pid -> Pid
    end.

init(holder) ->
    {ok, {#{strategy => simple_one_for_one, intensity => 1000, period => 1},
          [#{id => supervisor, start => {?MODULE, start_link, []},
             restart => temporary, shutdown => infinity, type => supervisor}]}};
init({_Class, {Flags, Children}}) ->
    {ok, {Flags, Children}}.

%%% ---------------------------------------------------------------------
%%% The description
%%% ---------------------------------------------------------------------

%% @doc `{SupFlags, [ChildSpec]}` from the class side of Class.
spec(Class) ->
    Info = beamtalk_class:class_info(Class),
    Info =:= undefined andalso beamtalk_class:not_found(Class),
    Class =/= 'Supervisor' andalso beamtalk_class:inherits_from(Class, 'Supervisor') orelse
        beamtalk_exception:raise(
          runtime_error, Class, start,
          iolist_to_binary([atom_to_binary(Class, utf8), " is not a Supervisor subclass"]),
          <<"Define Supervisor subclass: MySup with class-side strategy and children">>),
    Obj = beamtalk_class:class_object(Class),
    Ask = fun(Sel) -> beamtalk_send:send(Obj, Sel, []) end,
    Strategy = strategy(Class, Ask(strategy)),
    Intensity = non_neg(Class, intensity, Ask(intensity)),
    Period = pos(Class, period, Ask(period)),
    Children = case Ask(children) of
                   L when is_list(L) -> L;
                   Other -> bad(Class, children, "a List of child specs", Other)
               end,
    Specs = [child_spec(C) || C <- Children],
    Ids = [maps:get(id, S) || S <- Specs],
    case Ids -- lists:usort(Ids) of
        [] -> ok;
        [Dup | _] ->
            beamtalk_exception:raise(runtime_error, Class, children,
                                     iolist_to_binary(["Two children of ", atom_to_binary(Class, utf8),
                                                       " have the id ", beamtalk_print:print_string(Dup)]),
                                     <<"Give each child its own #id">>)
    end,
    {#{strategy => Strategy, intensity => Intensity, period => Period}, Specs}.

strategy(_, S) when S =:= oneForOne; S =:= one_for_one -> one_for_one;
strategy(_, S) when S =:= oneForAll; S =:= one_for_all -> one_for_all;
strategy(_, S) when S =:= restForOne; S =:= rest_for_one -> rest_for_one;
strategy(Class, Other) -> bad(Class, strategy, "#oneForOne, #oneForAll or #restForOne", Other).

non_neg(_, _, N) when is_integer(N), N >= 0 -> N;
non_neg(Class, Sel, Other) -> bad(Class, Sel, "an Integer >= 0", Other).

pos(_, _, N) when is_integer(N), N > 0 -> N;
pos(Class, Sel, Other) -> bad(Class, Sel, "an Integer > 0 (seconds)", Other).

bad(Class, Sel, Want, Got) ->
    beamtalk_exception:raise(
      type_error, Class, Sel,
      iolist_to_binary([atom_to_binary(Class, utf8), " ", atom_to_binary(Sel, utf8), " must answer ",
                        Want, ", not ", beamtalk_print:print_string(Got)]), nil).

%% @doc One OTP child spec from a Beamtalk child description.
child_spec({beamtalk_object, _, beamtalk_class, _} = ClassObj) ->
    class_child(beamtalk_class:name_of(ClassObj), #{});
child_spec(#{?CK := _} = Other) ->
    spec_error(Other);
child_spec(#{actor := ClassObj} = D) ->
    Class = class_arg(ClassObj, actor),
    actor_child(Class, options(D));
child_spec(#{supervisor := ClassObj} = D) ->
    Class = class_arg(ClassObj, supervisor),
    sup_child(Class, options(D));
child_spec(#{start := _} = D) ->
    check_erlang_spec(D);
child_spec(Other) ->
    spec_error(Other).

class_child(Class, Opts) ->
    case beamtalk_class:class_info(Class) of
        #{kind := actor} -> actor_child(Class, Opts);
        #{} -> case beamtalk_class:inherits_from(Class, 'Supervisor') of
                   true -> sup_child(Class, Opts);
                   false -> spec_error(beamtalk_class:class_object(Class))
               end;
        undefined -> beamtalk_class:not_found(Class)
    end.

class_arg({beamtalk_object, _, beamtalk_class, _} = Obj, _) -> beamtalk_class:name_of(Obj);
class_arg(Other, Key) ->
    spec_type_error(iolist_to_binary(["#", atom_to_binary(Key, utf8), " must be a class, not ",
                                      beamtalk_print:print_string(Other)])).

options(D) ->
    maps:with([id, restart, shutdown, with], D).

actor_child(Class, Opts) ->
    #{kind := Kind} = beamtalk_class:class_info(Class),
    Kind =:= actor orelse
        spec_type_error(iolist_to_binary([atom_to_binary(Class, utf8),
                                          " is not an Actor subclass and cannot be an #actor child"])),
    With = maps:get(with, Opts, #{}),
    is_map(With) andalso not maps:is_key(?CK, With) orelse
        spec_type_error(<<"#with must be a Dictionary of initial field values">>),
    #{id => id(maps:get(id, Opts, Class)),
      start => {?MODULE, start_actor, [Class, With]},
      restart => restart(maps:get(restart, Opts, permanent)),
      shutdown => shutdown(maps:get(shutdown, Opts, 5000)),
      type => worker,
      modules => [beamtalk_actor]}.

sup_child(Class, Opts) ->
    beamtalk_class:inherits_from(Class, 'Supervisor') orelse
        spec_type_error(iolist_to_binary([atom_to_binary(Class, utf8), " is not a Supervisor subclass"])),
    #{id => id(maps:get(id, Opts, Class)),
      start => {?MODULE, start_link, [Class]},
      restart => restart(maps:get(restart, Opts, permanent)),
      shutdown => shutdown(maps:get(shutdown, Opts, infinity)),
      type => supervisor,
      modules => [?MODULE]}.

%% @doc `Erlang childSpec: #{...}`: an OTP child spec written as a
%% Dictionary (seed ADR 0028 §5): `#id` and `#start => #(M, F, Args)` are
%% required; `#restart`, `#shutdown`, `#type` and `#modules` are optional.
check_erlang_spec(D) when is_map(D), not is_map_key(?CK, D) ->
    maps:is_key(id, D) orelse
        spec_type_error(<<"An Erlang child spec needs an #id (a Symbol)">>),
    Start = case maps:get(start, D, undefined) of
                [M, F, A] when is_atom(M), is_atom(F), is_list(A) -> {M, F, A};
                {M, F, A} when is_atom(M), is_atom(F), is_list(A) -> {M, F, A};
                Other ->
                    spec_type_error(iolist_to_binary(
                                      ["#start must be #(module, function, arguments) as ",
                                       "#(#my_server, #start_link, #()), not ",
                                       beamtalk_print:print_string(Other)]))
            end,
    {Mod, _, _} = Start,
    Spec = #{id => id(maps:get(id, D)),
             start => Start,
             restart => restart(maps:get(restart, D, permanent)),
             shutdown => shutdown(maps:get(shutdown, D, 5000)),
             type => type(maps:get(type, D, worker)),
             modules => maps:get(modules, D, [Mod])},
    case maps:keys(D) -- [id, start, restart, shutdown, type, modules] of
        [] -> Spec;
        [K | _] -> spec_type_error(iolist_to_binary(["Unknown child spec key ",
                                                       beamtalk_print:print_string(K)]))
    end;
check_erlang_spec(Other) ->
    spec_type_error(iolist_to_binary(["Erlang childSpec: expects a Dictionary, not ",
                                      beamtalk_print:print_string(Other)])).

id(Id) when is_atom(Id) -> Id;
id(Other) -> spec_type_error(iolist_to_binary(["A child #id must be a Symbol, not ",
                                               beamtalk_print:print_string(Other)])).

restart(R) when R =:= permanent; R =:= transient; R =:= temporary -> R;
restart(Other) -> spec_type_error(iolist_to_binary(["#restart must be #permanent, #transient or #temporary, not ",
                                                    beamtalk_print:print_string(Other)])).

shutdown(N) when is_integer(N), N >= 0 -> N;
shutdown(S) when S =:= brutalKill; S =:= brutal_kill -> brutal_kill;
shutdown(infinity) -> infinity;
shutdown(Other) -> spec_type_error(iolist_to_binary(["#shutdown must be milliseconds, #brutalKill or #infinity, not ",
                                                     beamtalk_print:print_string(Other)])).

type(T) when T =:= worker; T =:= supervisor -> T;
type(Other) -> spec_type_error(iolist_to_binary(["#type must be #worker or #supervisor, not ",
                                                 beamtalk_print:print_string(Other)])).

spec_error(Other) ->
    spec_type_error(iolist_to_binary(
                      ["A child must be an Actor subclass, a Supervisor subclass or a child spec ",
                       "Dictionary, not ", beamtalk_print:print_string(Other)])).

spec_type_error(Message) ->
    beamtalk_exception:raise(type_error, 'Supervisor', children, Message,
                             <<"See README, Supervision: Counter, #{#actor => Counter, #id => #c}, "
                               "Erlang childSpec: #{#id => #s, #start => #(#m, #start_link, #())}">>).

%%% ---------------------------------------------------------------------
%%% Actor children
%%% ---------------------------------------------------------------------

%% @doc Start an actor child linked to its supervisor with the class's
%% initial state; every restart starts from it again.
start_actor(Class, With) ->
    try
        beamtalk_actor:check_fields(Class, With, 'spawnWith:'),
        {Mod, State} = beamtalk_actor:initial_state(Class, With, spawn),
        {ok, Pid} = beamtalk_actor:start_link({Class, Mod}, State),
        beamtalk_actor:initialize({beamtalk_object, Class, Mod, Pid}),
        {ok, Pid}
    catch C:R:S ->
            Ex = beamtalk_errors:wrap(C, R, S),
            {error, {actor_start_failed, Class,
                     iolist_to_binary([atom_to_binary(maps:get(?CK, Ex), utf8), ": ",
                                       beamtalk_exception:message_text(Ex)])}}
    end.

%% @doc The Beamtalk reference of a running child: an actor record for an
%% actor child, a Supervisor instance for a nested Beamtalk supervisor, the
%% pid itself for an Erlang child.
child_ref(Sup, Id, Pid) when is_pid(Pid) ->
    case supervisor:get_childspec(Sup, Id) of
        {ok, #{start := {?MODULE, start_actor, [Class | _]}}} ->
            Mod = case beamtalk_class:class_info(Class) of
                      #{module := M} when M =/= undefined -> M;
                      _ -> beamtalk_actor
                  end,
            {beamtalk_object, Class, Mod, Pid};
        {ok, #{start := {?MODULE, start_link, [Class]}}} ->
            (beamtalk_object:instantiate(Class))#{pid => Pid};
        _ -> Pid
    end;
child_ref(_Sup, _Id, _NotRunning) ->
    nil.

reason_text(Reason) ->
    case Reason of
        {shutdown, {failed_to_start_child, Id, {actor_start_failed, _, Text}}} ->
            iolist_to_binary(["child ", beamtalk_print:print_string(Id), " failed to start: ", Text]);
        {shutdown, {failed_to_start_child, Id, {'EXIT', {undef, [{M, F, A, _} | _]}}}} ->
            iolist_to_binary(["child ", beamtalk_print:print_string(Id), " failed to start: ",
                              io_lib:format("~ts:~ts/~b is undefined (is ~ts on the code path?)",
                                            [M, F, length(A), M])]);
        {shutdown, {failed_to_start_child, Id, {'EXIT', {R, _Stack}}}} ->
            iolist_to_binary(["child ", beamtalk_print:print_string(Id), " failed to start: ",
                              io_lib:format("~tp", [R])]);
        {shutdown, {failed_to_start_child, Id, R}} ->
            iolist_to_binary(["child ", beamtalk_print:print_string(Id), " failed to start: ",
                              io_lib:format("~tp", [R])]);
        Other -> iolist_to_binary(io_lib:format("~tp", [Other]))
    end.
