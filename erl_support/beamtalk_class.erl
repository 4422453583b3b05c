%% @doc Classes: the registry, one gen_server per class, and the flattened
%% method tables every send reads (DESIGN D7, D8; spec semantics §3, §10).
%%
%% Three kinds of storage, each for a reason:
%%
%% * The **class process** (`beamtalk_class_<Name>`, one per class) holds the
%%   class description it was defined with and the values of its class
%%   variables.  It never runs user code, so it can never be blocked by it.
%% * The **registry table** (ETS `beamtalk_class_registry`, owned by the
%%   runtime supervisor so it survives a registry restart) maps names to the
%%   description entry, and pids to names.  Reflection reads it directly.
%% * **persistent_term** holds what a send needs, so an ordinary send is one
%%   `persistent_term:get/2` plus one map lookup and never waits on a process:
%%     `Name` (the bare class-name atom, e.g. 'Point') - the flattened
%%         instance-side table `#{Selector => {v | a, Fun}}` (own methods win),
%%         plus the reserved key `'$info'` => kind, flattened fields with their
%%         default funs, version, class object, modifiers;
%%     `Tag` (the class object's tag, e.g. 'Point class') - the flattened
%%         class-side table: class methods along the superclass chain, above
%%         the instance protocol of `Class` (Class, Behaviour, Object,
%%         ProtoObject) - the Smalltalk-80 metaclass chain;
%%     `{beamtalk_class_tag, Tag}` - the class name of a class object tag.
%%   Why bare atoms: persistent_term hashes its key on every get, and a
%%   tuple key such as `{beamtalk_methods, Name}` costs twice an atom key
%%   (measured by scripts/bench_dispatch.erl's development runs).  Class names
%%   are capitalised and tags contain a space, so they do not meet the
%%   lower-case or tuple keys other applications use.  Keeping the info in
%%   the same term means an actor checks its class version and finds its
%%   method with one lookup.
%%   Writing a persistent term is expensive (a global scan), but happens only
%%   when a class is (re)defined; reading it is a hash lookup without copying.
%%
%% All definitions go through the registry process (`beamtalk_classes`), so
%% recomputing the flattened tables of a class and all its subclasses (hot
%% reload) never races with another definition.  Code in the caller evaluates
%% user funs (class variable defaults) before the request is sent, so the
%% registry never runs user code either.
%%
%% This module is the front door: the API the generated code, the
%% primitives and the workspace call, the lookups (all reads, straight from
%% the ETS table and persistent_term, in the caller's process), class
%% variables, and the gen_server callbacks of both kinds of process.  The
%% work behind a definition lives in modules of its own, each for one job:
%%   beamtalk_class_desc     - the normal form of a class description and
%%                             the rules a definition must pass;
%%   beamtalk_class_registry - what the registry process does for each
%%                             request (the only writer of the ETS table);
%%   beamtalk_class_tables   - computing the flattened tables above.
%%
%% Class objects are `{beamtalk_object, 'Counter class', beamtalk_class, Pid}`
%% and metaclass objects `{beamtalk_object, 'Metaclass', beamtalk_class, Pid}`
%% (same pid).  The module slot is always `beamtalk_class`: that is how a send
%% tells a class object from an actor without a lookup, and it keeps a class
%% object equal to itself when the class is redefined from another module.
-module(beamtalk_class).
-behaviour(gen_server).

%% Generated code (runtime_abi.py)
-export([define/1, global/1, class_var/2, set_class_var/3, info/1, add_method/4,
         remove_method/3]).
-export([define_unbooted/1, define_with_warnings/1, define_stdlib/1]).
%% Workspace globals
-export([set_global/2, unset_global/1, globals/0]).
%% Runtime API
-export([class_object/1, metaclass_object/1, class_tag/1, class_info/1, entry/1,
         exists/1, instance_methods/1, raw_table/1, class_side_methods/1, name_of/1,
         name_from_pid/1, superclass/1, superclasses/1, subclasses/1,
         all_subclasses/1, inherits_from/2, is_kind_of_class/2, all_names/0,
         remove/1, set_doc/2, set_method_doc/4, behaviour/1, behaviour_object/1,
         behaviour_super/1, behaviour_table/1, behaviour_own/1,
         behaviour_name/1, declared_class_vars/1, reg_name/1, not_found/1]).
%% Processes
-export([start_registry/0, start_link_class/3]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(REG, beamtalk_classes).
-define(TAB, beamtalk_class_registry).
-define(GLOBALS, beamtalk_globals).

%%% ---------------------------------------------------------------------
%%% Definition
%%% ---------------------------------------------------------------------

%% @doc Register or update a class from its description (runtime_abi.py);
%% answers the class object.  Errors are raised as Beamtalk exceptions.
-spec define(map()) -> tuple().
define(Desc) ->
    beamtalk_bootstrap:ensure_booted(),
    define_unbooted(Desc).

%% @doc `define/1` without the boot check (used while booting).
define_unbooted(Desc) ->
    {Obj, _Warnings} = define_checked(Desc),
    Obj.

%% @doc Register the stdlib classes compiled from `stdlib/*.bt` (parents
%% first) in one registry call; see beamtalk_class_registry:do_define_batch/1.
-spec define_stdlib([map()]) -> ok.
define_stdlib(Descs) ->
    beamtalk_bootstrap:ensure_booted(),
    Pairs = [begin
                 D = beamtalk_class_desc:normalize(Desc),
                 {D, [{N, eval_default(N, F)} || {N, F} <- maps:get(class_vars, D)]}
             end || Desc <- Descs],
    case gen_server:call(?REG, {define_batch, Pairs}, infinity) of
        ok -> ok;
        {error, Ex} -> erlang:error(Ex)
    end.

%% @doc Like `define/1`, also answering the warnings of the definition
%% (spec §10: `Class 'X' redefined (was m1, now m2)` when a class moves to
%% another module) for the workspace to show.
-spec define_with_warnings(map()) -> {tuple(), [binary()]}.
define_with_warnings(Desc) ->
    beamtalk_bootstrap:ensure_booted(),
    define_checked(Desc).

define_checked(Desc) ->
    D = beamtalk_class_desc:normalize(Desc),
    Vars = [{N, eval_default(N, F)} || {N, F} <- maps:get(class_vars, D)],
    case gen_server:call(?REG, {define, D, Vars}, infinity) of
        {ok, Obj, Warnings} -> {Obj, Warnings};
        {error, Ex} -> erlang:error(Ex)
    end.

eval_default(_N, F) ->
    F().


%%% ---------------------------------------------------------------------
%%% Globals and class references
%%% ---------------------------------------------------------------------

%% @doc The value of a capitalised name: a class object or a workspace global.
global(Name) ->
    case persistent_term:get(Name, undefined) of
        #{'$info' := #{object := Obj}} -> Obj;
        _ ->
            case catch ets:lookup(?GLOBALS, Name) of
                [{_, V}] -> V;
                _ -> not_found(Name)
            end
    end.

not_found(Name) ->
    beamtalk_exception:raise(class_not_found, undefined, undefined,
                             iolist_to_binary(["Class '", to_bin(Name), "' not found"]),
                             beamtalk_class_hint:hint(Name)).

%% @doc Bind a workspace global (Transcript, Beamtalk, ...) visible to
%% `global/1`; a class of the same name wins.
set_global(Name, Value) when is_atom(Name) ->
    beamtalk_bootstrap:ensure_started(),
    ets:insert(?GLOBALS, {Name, Value}),
    Value.

unset_global(Name) ->
    catch ets:delete(?GLOBALS, Name),
    nil.

globals() ->
    try maps:from_list(ets:tab2list(?GLOBALS)) catch _:_ -> #{} end.

%% @doc The class object of a registered class.
class_object(Name) ->
    case persistent_term:get(Name, undefined) of
        #{'$info' := #{object := Obj}} -> Obj;
        _ -> not_found(Name)
    end.

%% @doc The metaclass object of a registered class (`Counter class`).
metaclass_object(Name) ->
    {beamtalk_object, _, Mod, Pid} = class_object(Name),
    {beamtalk_object, 'Metaclass', Mod, Pid}.

%% @doc 'Counter' -> 'Counter class'.
class_tag(Name) ->
    binary_to_atom(<<(atom_to_binary(Name, utf8))/binary, " class">>, utf8).

%% @doc The class info the runtime keeps with the method table: name,
%% superclass, kind, fields (flattened, with default funs), version, class
%% object, module, modifiers, abstract, primitive, stdlib.
class_info(Name) ->
    case persistent_term:get(Name, undefined) of
        #{'$info' := Info} -> Info;
        _ -> undefined
    end.

%% @doc What the compiler needs of a class it did not define (runtime_abi
%% CLASS_INFO): its kind, its own field names and its superclass.
-spec info(atom()) -> {ok, #{kind := atom(), fields := [atom()], superclass := atom()}} | error.
info(Name) ->
    case class_info(Name) of
        #{kind := Kind, superclass := Super} ->
            E = entry(Name),
            Own = case E of
                      #{fields := Fs} -> [F || {F, _} <- Fs];
                      _ -> []
                  end,
            Abstract = case E of
                           #{modifiers := Ms} when is_list(Ms) -> lists:member(abstract, Ms);
                           _ -> false
                       end,
            Protected = case E of
                            #{protected := P} -> P =:= true;
                            _ -> false
                        end,
            Module = case E of
                         #{module := M} -> M;
                         _ -> nil
                     end,
            {ok, #{kind => Kind, fields => Own, superclass => Super, abstract => Abstract,
                   protected => Protected, module => Module}};
        undefined -> error
    end.

entry(Name) ->
    case catch ets:lookup(?TAB, Name) of
        [{_, E}] -> E;
        _ -> undefined
    end.

exists(Name) ->
    class_info(Name) =/= undefined.

%% @doc The flattened instance-side method table (without the info key).
instance_methods(Name) ->
    maps:remove('$info', raw_table(Name)).

%% @doc The table as stored (the hot path uses it directly).
raw_table(Name) ->
    case persistent_term:get(Name, undefined) of
        #{'$info' := _} = T -> T;
        _ -> #{}
    end.

class_side_methods(Name) ->
    case persistent_term:get(class_tag(Name), undefined) of
        T when is_map(T) -> T;
        _ -> #{}
    end.

%% @doc The class name behind a class object, a metaclass object (the class
%% it describes) or a bare name.
name_of({beamtalk_object, 'Metaclass', beamtalk_class, Pid}) ->
    name_from_pid(Pid);
name_of({beamtalk_object, Tag, beamtalk_class, _}) ->
    case persistent_term:get({beamtalk_class_tag, Tag}, undefined) of
        undefined -> strip_class_suffix(Tag);
        Name -> Name
    end;
name_of(Name) when is_atom(Name) ->
    Name.

strip_class_suffix(Tag) ->
    Bin = atom_to_binary(Tag, utf8),
    case binary:split(Bin, <<" class">>) of
        [N, <<>>] -> binary_to_atom(N, utf8);
        _ -> Tag
    end.

name_from_pid(Pid) ->
    case catch ets:lookup(?TAB, {pid, Pid}) of
        [{_, Name}] -> Name;
        _ -> undefined
    end.

superclass(Name) ->
    case class_info(Name) of
        #{superclass := S} -> S;
        undefined -> nil
    end.

%% @doc Superclass names, nearest first.
superclasses(Name) ->
    superclasses(superclass(Name), 0).

superclasses(nil, _) -> [];
superclasses(_, N) when N > 100 -> [];
superclasses(S, N) -> [S | superclasses(superclass(S), N + 1)].

%% @doc Direct subclasses, sorted by name (a match spec: no entry is copied).
subclasses(Name) ->
    lists:sort(ets:select(?TAB, [{{'$1', #{superclass => Name}}, [{is_atom, '$1'}], ['$1']}])).

all_subclasses(Name) ->
    Direct = subclasses(Name),
    Direct ++ lists:append([all_subclasses(S) || S <- Direct]).

%% @doc Strict inheritance: `inherits_from('Counter', 'Actor')`.
inherits_from(Name, Ancestor) ->
    lists:member(Ancestor, superclasses(Name)).

%% @doc Name is Ancestor or one of its subclasses.
is_kind_of_class(Name, Name) -> true;
is_kind_of_class(Name, Ancestor) -> inherits_from(Name, Ancestor).

all_names() ->
    lists:sort([K || {K, _} <- ets:tab2list(?TAB), is_atom(K)]).

declared_class_vars(Name) ->
    case entry(Name) of
        #{class_vars := Vs} -> Vs;
        _ -> []
    end.

set_doc(Name, Doc) ->
    gen_server:call(?REG, {set_doc, Name, Doc}).

%% @doc The doc of one method (`setDocForMethod:to:`); ClassSide: boolean().
set_method_doc(Name, Sel, ClassSide, Doc) ->
    gen_server:call(?REG, {set_method_doc, Name, {Sel, ClassSide}, Doc}).

%% @doc `C >> sel => body` (runtime_abi ADD_METHOD): add or replace one
%% method of a live class; Info is `#{source, doc, class_side}`.  Existing
%% instances and actors use it from their next message.
-spec add_method(tuple() | atom(), atom(), {v | a, fun()} | fun(), map()) -> ok.
add_method(Cls, Sel, Method, Info) when is_atom(Sel), is_map(Info) ->
    Name = name_of(Cls),
    M = case Method of
            {v, F} when is_function(F) -> {v, F};
            {a, F} when is_function(F) -> {a, F};
            F when is_function(F) -> {v, F};
            _ -> beamtalk_class_desc:type_error(<<"add_method expects {v | a, Fun}">>)
        end,
    case gen_server:call(?REG, {add_method, Name, Sel, M, Info}, infinity) of
        ok -> ok;
        {error, Ex} -> erlang:error(Ex)
    end.

%% @doc `C removeSelector: #sel`: remove one method the class itself
%% defines (ClassSide true: a class-side method).  Instances and actors stop
%% answering it from their next message (an inherited one answers again).
-spec remove_method(atom(), atom(), boolean()) -> ok.
remove_method(Name, Sel, ClassSide) when is_atom(Name), is_atom(Sel) ->
    case gen_server:call(?REG, {remove_method, Name, Sel, ClassSide =:= true}, infinity) of
        ok -> ok;
        {error, Ex} -> erlang:error(Ex)
    end.

%% @doc Unregister a class (`removeFromSystem`).
remove(Name) ->
    case gen_server:call(?REG, {remove, Name}) of
        ok -> nil;
        {error, Ex} -> erlang:error(Ex)
    end.

%%% Behaviours: a class object describes instances ({class, Name}); a
%%% metaclass object describes a class object ({meta, Name}).  Reflection
%%% works on either through these.

behaviour({beamtalk_object, 'Metaclass', beamtalk_class, Pid}) ->
    {meta, name_from_pid(Pid)};
behaviour({beamtalk_object, _, beamtalk_class, _} = C) ->
    {class, name_of(C)};
behaviour(Name) when is_atom(Name) ->
    {class, Name}.

behaviour_object({class, N}) -> class_object(N);
behaviour_object({meta, N}) -> metaclass_object(N).

behaviour_name({class, N}) -> N;
behaviour_name({meta, N}) -> class_tag(N).

behaviour_super({class, N}) ->
    case superclass(N) of
        nil -> nil;
        S -> {class, S}
    end;
behaviour_super({meta, N}) ->
    case superclass(N) of
        nil -> {class, 'Class'};
        S -> {meta, S}
    end.

behaviour_table({class, N}) -> instance_methods(N);
behaviour_table({meta, N}) -> class_side_methods(N).

behaviour_own({class, N}) ->
    case entry(N) of #{methods := M} -> M; _ -> #{} end;
behaviour_own({meta, N}) ->
    case entry(N) of #{class_methods := M} -> M; _ -> #{} end.

%%% ---------------------------------------------------------------------
%%% Class variables (held by the class process of the declaring class)
%%% ---------------------------------------------------------------------

class_var(Cls, Var) ->
    Name = receiver_class(Cls),
    case declaring_class(Name, Var) of
        none -> nil;
        Owner -> class_call(Owner, {get_var, Var})
    end.

set_class_var(Cls, Var, Value) ->
    Name = receiver_class(Cls),
    Owner = case declaring_class(Name, Var) of
                none -> Name;
                O -> O
            end,
    class_call(Owner, {set_var, Var, Value}),
    beamtalk_store:class_changed(Owner),
    Value.

receiver_class({beamtalk_object, _, beamtalk_class, _} = C) -> name_of(C);
receiver_class(Name) when is_atom(Name) -> Name;
receiver_class(Other) -> beamtalk_send:class_name(Other).

declaring_class(Name, Var) ->
    declaring_class(Name, Var, 0).

declaring_class(nil, _, _) -> none;
declaring_class(_, _, N) when N > 100 -> none;
declaring_class(Name, Var, N) ->
    case lists:member(Var, declared_class_vars(Name)) of
        true -> Name;
        false -> declaring_class(superclass(Name), Var, N + 1)
    end.

class_call(Name, Req) ->
    try gen_server:call(reg_name(Name), Req, 5000)
    catch exit:{noproc, _} ->
            beamtalk_exception:raise(class_not_found, Name, undefined,
                                     iolist_to_binary(["The class process of ", to_bin(Name),
                                                       " is not running"]), nil)
    end.

reg_name(Name) ->
    binary_to_atom(<<"beamtalk_class_", (atom_to_binary(Name, utf8))/binary>>, utf8).

%%% ---------------------------------------------------------------------
%%% Processes
%%% ---------------------------------------------------------------------

-record(reg, {}).
-record(cls, {name, desc, vars = #{}}).

%% @doc The registry process (a child of the runtime supervisor).
start_registry() ->
    gen_server:start_link({local, ?REG}, ?MODULE, registry, []).

%% @doc A class process (a child of the class supervisor).
start_link_class(Name, Desc, Vars) ->
    gen_server:start_link({local, reg_name(Name)}, ?MODULE, {class, Name, Desc, Vars}, []).

init(registry) ->
    {ok, #reg{}};
init({class, Name, Desc, Vars}) ->
    {ok, #cls{name = Name, desc = Desc, vars = maps:from_list(Vars)}}.

handle_call(Req, _From, #reg{} = St) ->
    {reply, beamtalk_class_registry:serve(Req), St};
handle_call({get_var, Var}, _From, #cls{vars = Vars} = St) ->
    {reply, maps:get(Var, Vars, nil), St};
handle_call({set_var, Var, Value}, _From, #cls{vars = Vars} = St) ->
    {reply, ok, St#cls{vars = Vars#{Var => Value}}};
handle_call({update, Desc, NewVars}, _From, #cls{vars = Old} = St) ->
    %% Redefinition keeps the values of class variables still declared.
    Vars = maps:from_list([case maps:find(N, Old) of
                               {ok, V0} -> {N, V0};
                               error -> {N, V}
                           end || {N, V} <- NewVars]),
    {reply, ok, St#cls{desc = Desc, vars = Vars}};
handle_call({set_desc, Desc}, _From, St) ->
    {reply, ok, St#cls{desc = Desc}};
handle_call(description, _From, #cls{desc = D} = St) ->
    {reply, D, St};
handle_call(class_vars, _From, #cls{vars = V} = St) ->
    {reply, V, St};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast(_Msg, St) -> {noreply, St}.
handle_info(_Msg, St) -> {noreply, St}.
terminate(_Reason, _St) -> ok.
code_change(_Old, St, _Extra) -> {ok, St}.

to_bin(A) when is_atom(A) -> atom_to_binary(A, utf8);
to_bin(B) when is_binary(B) -> B;
to_bin(T) -> iolist_to_binary(io_lib:format("~tp", [T])).
