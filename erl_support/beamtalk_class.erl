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
-define(CK, '$beamtalk_class').

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
%% first) in one registry call; see do_define_batch/1.
-spec define_stdlib([map()]) -> ok.
define_stdlib(Descs) ->
    beamtalk_bootstrap:ensure_booted(),
    Pairs = [begin
                 D = normalize(Desc),
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
    D = normalize(Desc),
    Vars = [{N, eval_default(N, F)} || {N, F} <- maps:get(class_vars, D)],
    case gen_server:call(?REG, {define, D, Vars}, infinity) of
        {ok, Obj, Warnings} -> {Obj, Warnings};
        {error, Ex} -> erlang:error(Ex)
    end.

normalize(Desc) when is_map(Desc) ->
    Name = maps:get(name, Desc, undefined),
    is_atom(Name) andalso Name =/= undefined andalso Name =/= nil
        orelse type_error(<<"A class definition needs a name (a Symbol)">>),
    check_class_name(Name),
    Super = case maps:get(superclass, Desc, nil) of
                S when is_atom(S) -> S;
                {beamtalk_object, _, beamtalk_class, _} = C -> name_of(C);
                _ -> type_error(<<"superclass: expects a class or a class name">>)
            end,
    #{name => Name,
      superclass => Super,
      module => maps:get(module, Desc, undefined),
      dispatch => maps:get(dispatch, Desc, false) =:= true,
      fields => norm_fields(maps:get(fields, Desc, [])),
      methods => norm_methods(maps:get(methods, Desc, #{})),
      class_methods => norm_methods(maps:get(class_methods, Desc, #{})),
      class_vars => norm_fields(maps:get(class_vars, Desc, [])),
      modifiers => maps:get(modifiers, Desc, []),
      sealed_methods => maps:get(sealed_methods, Desc, []),
      source => maps:get(source, Desc, undefined),
      source_file => maps:get(source_file, Desc, undefined),
      doc => maps:get(doc, Desc, nil),
      method_info => norm_method_info(maps:get(method_info, Desc, #{})),
      stdlib => maps:get(stdlib, Desc, false) =:= true,
      kind => maps:get(kind, Desc, undefined),
      primitive => maps:get(primitive, Desc, false) =:= true};
normalize(_) ->
    type_error(<<"A class description must be a map">>).

norm_fields(L) when is_list(L) ->
    [norm_field(F) || F <- L];
norm_fields(M) when is_map(M) ->
    norm_fields(lists:sort(maps:to_list(M)));
norm_fields(_) ->
    type_error(<<"fields must be a list of {Name, DefaultFun}">>).

norm_field({N, F}) when is_atom(N), is_function(F, 0) -> {N, F};
norm_field({N, V}) when is_atom(N) -> {N, fun() -> V end};
norm_field(N) when is_atom(N) -> {N, fun() -> nil end};
norm_field(_) -> type_error(<<"a field is {Name, DefaultFun}">>).

%% Method info is kept under {Selector, ClassSide}; the description may
%% also key it by Selector with `class_side` inside (runtime_abi).
norm_method_info(MI) when is_map(MI) ->
    maps:from_list([case K of
                        {Sel, Side} when is_atom(Sel), is_boolean(Side) -> {K, V};
                        Sel when is_atom(Sel), is_map(V) -> {{Sel, maps:get(class_side, V, false) =:= true}, V};
                        _ -> {K, V}
                    end || {K, V} <- maps:to_list(MI)]);
norm_method_info(_) ->
    #{}.

norm_methods(M) when is_map(M) ->
    maps:map(fun(_Sel, {v, F}) when is_function(F) -> {v, F};
                (_Sel, {a, F}) when is_function(F) -> {a, F};
                (_Sel, F) when is_function(F) -> {v, F};
                (Sel, _) -> type_error(iolist_to_binary(
                                         ["method ", atom_to_binary(Sel, utf8),
                                          " must be {v | a, Fun}"]))
             end, M);
norm_methods(_) ->
    type_error(<<"methods must be a map of selector to {v | a, Fun}">>).

eval_default(_N, F) ->
    F().

type_error(Msg) ->
    beamtalk_exception:raise(type_error, 'ClassBuilder', undefined, Msg, nil).

%% A class name is an ASCII identifier starting with an upper-case letter,
%% what reads as a class reference (spec syntax §2.1); the compiler says
%% the same of `Object subclass: foo` (classes.py).  The workspace
%% singletons' names are refused too: a class `Transcript` would shadow the
%% Transcript (as `Transcript := 3` would, which the parser refuses).
check_class_name(Name) ->
    case lists:member(Name, beamtalk_singletons:names()) of
        true ->
            beamtalk_exception:raise(runtime_error, 'ClassBuilder', undefined,
                                     iolist_to_binary([to_bin(Name),
                                                       " is a system name and cannot be used as a class name"]),
                                     nil);
        false -> ok
    end,
    case is_class_name(atom_to_list(Name)) of
        true -> ok;
        false ->
            beamtalk_exception:raise(
              runtime_error, 'ClassBuilder', undefined,
              iolist_to_binary(["Invalid class name ", beamtalk_print:print_string(Name),
                                ": a class name starts with an upper-case letter (A-Z), "
                                "followed by letters, digits or _"]),
              <<"For example #Counter or #HttpClient2">>)
    end.

is_class_name([C | Rest]) when C >= $A, C =< $Z ->
    lists:all(fun(X) -> (X >= $a andalso X =< $z) orelse (X >= $A andalso X =< $Z)
                            orelse (X >= $0 andalso X =< $9) orelse X =:= $_
              end, Rest);
is_class_name(_) ->
    false.

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
                             nil).

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
            {ok, #{kind => Kind, fields => Own, superclass => Super, abstract => Abstract}};
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
            _ -> type_error(<<"add_method expects {v | a, Fun}">>)
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
    Reply = try registry_call(Req) of
                R0 -> beamtalk_store:class_changed(changed_class(Req)),
                      beamtalk_changes:noted(Req),
                      R0
            catch
                error:#{?CK := _} = Ex -> {error, Ex};
                C:R:S ->
                    Text = iolist_to_binary(io_lib:format("~tp:~tp ~tp", [C, R, S])),
                    {error, beamtalk_exception:new(internal_error, undefined, undefined,
                                                   <<"Class registry failure: ", Text/binary>>, nil)}
            end,
    {reply, Reply, St};
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

%%% ---------------------------------------------------------------------
%%% The registry's work
%%% ---------------------------------------------------------------------

%% Which class a registry request changed, for the store (beamtalk_store).
changed_class({define, #{name := Name}, _}) -> Name;
changed_class(Req) when is_tuple(Req), is_atom(element(2, Req)) -> element(2, Req);
changed_class(_) -> none.

registry_call({define, D, Vars}) ->
    do_define(D, Vars);
registry_call({define_batch, Pairs}) ->
    do_define_batch(Pairs);
registry_call({set_doc, Name, Doc}) ->
    case entry(Name) of
        undefined -> not_found(Name);
        E -> ets:insert(?TAB, {Name, E#{doc => Doc}}), ok
    end;
registry_call({set_method_doc, Name, Key, Doc}) ->
    case entry(Name) of
        undefined -> not_found(Name);
        E ->
            MI = maps:get(method_info, E, #{}),
            Info = maps:get(Key, MI, #{}),
            ets:insert(?TAB, {Name, E#{method_info => MI#{Key => Info#{doc => Doc}}}}), ok
    end;
registry_call({remove, Name}) ->
    do_remove(Name);
registry_call({add_method, Name, Sel, Method, Info}) ->
    do_add_method(Name, Sel, Method, Info);
registry_call({remove_method, Name, Sel, ClassSide}) ->
    do_remove_method(Name, Sel, ClassSide).

do_remove_method(Name, Sel, ClassSide) ->
    E = case entry(Name) of
            undefined -> not_found(Name);
            E0 -> E0
        end,
    maps:get(protected, E, false) andalso
        raise_def(class_already_exists, Name,
                  ["Cannot remove methods from stdlib class '", to_bin(Name), "'"], nil),
    Key = case ClassSide of true -> class_methods; false -> methods end,
    Table = maps:get(Key, E),
    maps:is_key(Sel, Table) orelse
        raise_def(does_not_understand, Name,
                  [to_bin(Name), case ClassSide of true -> " class"; false -> "" end,
                   " does not define ", atom_to_binary(Sel)],
                  <<"removeSelector: removes a method the class itself defines (see localMethods)">>),
    MI = maps:get(method_info, E, #{}),
    E1 = E#{Key => maps:remove(Sel, Table),
            method_info => maps:remove({Sel, ClassSide}, MI),
            sealed_methods => lists:delete(Sel, maps:get(sealed_methods, E, []))},
    ets:insert(?TAB, {Name, E1#{dispatch => false}}),
    ok = gen_server:call(maps:get(pid, E1), {set_desc, E1}),
    recompute(affected(Name)),
    beamtalk_dispatch_gen:set(Name, none),
    ok.

do_add_method(Name, Sel, Method, Info) ->
    E = case entry(Name) of
            undefined -> not_found(Name);
            E0 -> E0
        end,
    maps:get(protected, E, false) andalso
        raise_def(class_already_exists, Name,
                  ["Cannot add methods to stdlib class '", to_bin(Name), "'"], nil),
    ClassSide = maps:get(class_side, Info, false) =:= true,
    Super = maps:get(superclass, E),
    ClassSide orelse check_sealed_methods(Name, #{methods => #{Sel => Method}}, Super, false),
    E1 = case ClassSide of
             true -> E#{class_methods => (maps:get(class_methods, E))#{Sel => Method}};
             false -> E#{methods => (maps:get(methods, E))#{Sel => Method}}
         end,
    Sealed = case maps:get(sealed, Info, false) of
                 true when not ClassSide -> lists:usort([Sel | maps:get(sealed_methods, E1, [])]);
                 _ -> maps:get(sealed_methods, E1, [])
             end,
    MI = maps:get(method_info, E1, #{}),
    E2 = E1#{method_info => MI#{{Sel, ClassSide} => Info#{class_side => ClassSide}},
             sealed_methods => Sealed},
    ets:insert(?TAB, {Name, E2#{dispatch => false}}),
    ok = gen_server:call(maps:get(pid, E2), {set_desc, E2}),
    recompute(affected(Name)),
    beamtalk_dispatch_gen:set(Name, none),
    ok.

do_define(D, Vars) ->
    {Name, Entry, Old} = define_entry(D, Vars),
    recompute(affected(Name)),
    beamtalk_dispatch_gen:set(Name, dispatch_module(Entry)),
    {ok, class_object(Name), module_warnings(Name, Old, D)}.

%% The stdlib batch: every description laid over the class the bootstrap
%% made, then all tables recomputed and the dispatch module regenerated once.
do_define_batch(Pairs) ->
    Done = [define_entry(overlay(D), Vars) || {D, Vars} <- Pairs],
    recompute(all_names()),
    beamtalk_dispatch_gen:set_many([{Name, dispatch_module(E)} || {Name, E, _} <- Done]),
    ok.

%% A stdlib class compiled from stdlib/*.bt keeps what the bootstrap gave it
%% and the description does not say: primitives not declared in the file,
%% its kind, whether it is a primitive (non-instantiable) class.
overlay(#{name := Name} = D) ->
    case entry(Name) of
        undefined -> D;
        Old ->
            D#{methods => maps:merge(maps:get(methods, Old, #{}), maps:get(methods, D)),
               class_methods => maps:merge(maps:get(class_methods, Old, #{}),
                                           maps:get(class_methods, D)),
               sealed_methods => lists:usort(maps:get(sealed_methods, Old, [])
                                             ++ maps:get(sealed_methods, D)),
               doc => case maps:get(doc, D) of
                          nil -> maps:get(doc, Old, nil);
                          Doc -> Doc
                      end,
               kind => maps:get(kind, Old),
               primitive => maps:get(primitive, Old, false)}
    end.

define_entry(D, Vars) ->
    #{name := Name, superclass := Super, stdlib := Stdlib} = D,
    Old = entry(Name),
    check_protected(Name, Old, Stdlib),
    SuperEntry = check_superclass(Name, Super, Stdlib),
    check_sealed_methods(Name, D, Super, Stdlib),
    Kind = case {Stdlib, maps:get(kind, D)} of
               {true, K} when K =/= undefined -> K;
               _ -> case SuperEntry of
                        none -> object;
                        #{kind := SK} -> SK
                    end
           end,
    Pid = class_process(Name, Old, D, Vars),
    Entry = D#{kind => Kind, pid => Pid,
               class_vars => [N || {N, _} <- maps:get(class_vars, D)],
               protected => Stdlib orelse (Old =/= undefined andalso maps:get(protected, Old, false))},
    ets:insert(?TAB, {Name, Entry}),
    ets:insert(?TAB, {{pid, Pid}, Name}),
    persistent_term:put({beamtalk_class_tag, class_tag(Name)}, Name),
    {Name, Entry, Old}.

%% A class compiled from a file routes its value sends through its module's
%% `'$d'/3` (beamtalk_dispatch); actors and dynamic classes do not.
dispatch_module(#{dispatch := true, module := M, kind := K}) when is_atom(M), M =/= undefined,
                                                                K =/= actor ->
    M;
dispatch_module(_) ->
    none.

module_warnings(Name, #{module := M1}, #{module := M2})
  when M1 =/= undefined, M2 =/= undefined, M1 =/= M2 ->
    [iolist_to_binary(["Class '", to_bin(Name), "' redefined (was ", to_bin(M1),
                       ", now ", to_bin(M2), ")"])];
module_warnings(_, _, _) ->
    [].

check_protected(Name, #{protected := true}, false) ->
    raise_def(class_already_exists, Name,
              ["Cannot redefine stdlib class '", to_bin(Name), "'"], nil);
check_protected(_, _, _) ->
    ok.

check_superclass(_Name, nil, _) ->
    none;
check_superclass(Name, Super, Stdlib) ->
    case entry(Super) of
        undefined ->
            raise_def(class_not_found, Name, ["Class '", to_bin(Super), "' not found"],
                      iolist_to_binary(["Define ", to_bin(Super), " before its subclass ",
                                        to_bin(Name)]));
        SE ->
            case Stdlib orelse not lists:member(sealed, maps:get(modifiers, SE, [])) of
                true -> ok;
                %% ADR 0034 §3 words the Metaclass case on its own.
                false when Super =:= 'Metaclass' ->
                    raise_def(runtime_error, Name,
                              ["Metaclass is sealed and cannot be subclassed"], nil);
                false -> raise_def(runtime_error, Name,
                                   ["Cannot subclass sealed class `", to_bin(Super), "`"], nil)
            end,
            case Super =:= Name orelse lists:member(Name, superclasses(Super)) of
                true -> raise_def(runtime_error, Name,
                                  ["Circular superclass chain: ", to_bin(Name),
                                   " cannot inherit from ", to_bin(Super)], nil);
                false -> ok
            end,
            SE
    end.

check_sealed_methods(_Name, _D, nil, _) -> ok;
check_sealed_methods(_Name, _D, _Super, true) -> ok;
check_sealed_methods(Name, D, Super, false) ->
    Own = maps:keys(maps:get(methods, D)),
    Sealed = [{S, A} || A <- [Super | superclasses(Super)],
                        S <- maps:get(sealed_methods, entry_or_empty(A), [])],
    case [{S, A} || {S, A} <- Sealed, lists:member(S, Own)] of
        [] -> ok;
        [{S, A} | _] ->
            raise_def(runtime_error, Name,
                      ["Cannot override sealed method `", to_bin(A), ">>", to_bin(S),
                       "` in ", to_bin(Name)], nil)
    end.

entry_or_empty(N) ->
    case entry(N) of undefined -> #{}; E -> E end.

raise_def(Kind, Class, Msg, Hint) ->
    beamtalk_exception:raise(Kind, Class, undefined, iolist_to_binary(Msg), Hint).

class_process(Name, Old, D, Vars) ->
    case Old of
        #{pid := Pid} when is_pid(Pid) ->
            case is_process_alive(Pid) of
                true ->
                    ok = gen_server:call(Pid, {update, D, Vars}),
                    Pid;
                false ->
                    start_class_process(Name, D, Vars)
            end;
        _ ->
            start_class_process(Name, D, Vars)
    end.

start_class_process(Name, D, Vars) ->
    case supervisor:start_child(beamtalk_class_sup, [Name, D, Vars]) of
        {ok, Pid} -> Pid;
        {error, {already_started, Pid}} ->
            ok = gen_server:call(Pid, {update, D, Vars}),
            Pid
    end.

do_remove(Name) ->
    case entry(Name) of
        undefined -> not_found(Name);
        #{protected := true} ->
            raise_def(runtime_error, Name,
                      ["Cannot remove stdlib class '", to_bin(Name), "'"], nil);
        #{pid := Pid} ->
            case subclasses(Name) of
                [] -> ok;
                Subs -> raise_def(runtime_error, Name,
                                  ["Cannot remove ", to_bin(Name), ": it has subclasses (",
                                   lists:join(", ", [to_bin(S) || S <- Subs]), ")"], nil)
            end,
            ets:delete(?TAB, Name),
            ets:delete(?TAB, {pid, Pid}),
            Tag = class_tag(Name),
            persistent_term:erase(Name),
            persistent_term:erase(Tag),
            persistent_term:erase({beamtalk_class_tag, Tag}),
            beamtalk_dispatch_gen:set(Name, none),
            catch supervisor:terminate_child(beamtalk_class_sup, Pid),
            ok
    end.

%% The classes whose flattened tables depend on Name: itself and its
%% subclasses; every class when Name is in the chain of `Class` (all
%% class-side tables sit on top of the instance protocol of Class).
affected(Name) ->
    Chain = ['Class' | entry_superclasses('Class')],
    case lists:member(Name, Chain) of
        true -> all_names();
        false -> [Name | all_subclasses(Name)]
    end.

%% Recompute in two passes, parents before children: instance tables,
%% fields and info first, then class-side tables (which read the instance
%% table of Class, itself possibly recomputed in the first pass).
recompute(Names) ->
    Sorted = lists:sort([{depth(N), N} || N <- Names]),
    [recompute_instance(N) || {_, N} <- Sorted],
    [recompute_class_side(N) || {_, N} <- Sorted],
    ok.

depth(N) -> length(entry_superclasses(N)).

%% Superclass chain from the registry table (authoritative while the
%% persistent terms are being recomputed).
entry_superclasses(N) ->
    entry_superclasses(entry_super(N), 0).

entry_superclasses(nil, _) -> [];
entry_superclasses(_, D) when D > 100 -> [];
entry_superclasses(S, D) -> [S | entry_superclasses(entry_super(S), D + 1)].

entry_super(N) ->
    case ets:select(?TAB, [{{N, #{superclass => '$1'}}, [], ['$1']}]) of
        [S] -> S;
        [] -> nil
    end.

recompute_instance(Name) ->
    E = #{superclass := Super, kind := Kind, pid := Pid} = entry(Name),
    {SuperMethods, SuperFields} =
        case Super of
            nil -> {#{}, []};
            _ -> {instance_methods(Super),
                  case class_info(Super) of #{fields := F} -> F; _ -> [] end}
        end,
    Own = maps:get(fields, E),
    Fields = merge_fields(SuperFields, Own),
    Synth = case Kind of
                value -> beamtalk_object:synthesise_accessors(Own);
                _ -> #{}
            end,
    Methods = maps:merge(maps:merge(SuperMethods, Synth), maps:get(methods, E)),
    Modifiers = maps:get(modifiers, E),
    Info = #{name => Name,
             superclass => Super,
             kind => Kind,
             fields => Fields,
             version => erlang:unique_integer([positive, monotonic]),
             object => {beamtalk_object, class_tag(Name), beamtalk_class, Pid},
             module => maps:get(module, E),
             modifiers => Modifiers,
             abstract => lists:member(abstract, Modifiers),
             primitive => maps:get(primitive, E, false),
             stdlib => maps:get(stdlib, E, false)},
    put_term(Name, Methods#{'$info' => Info}).

recompute_class_side(Name) ->
    E = #{superclass := Super, kind := Kind} = entry(Name),
    Base = case Super of
               nil -> instance_methods('Class');
               _ -> class_side_methods(Super)
           end,
    Fields = case class_info(Name) of #{fields := F} -> F; _ -> [] end,
    Synth = case Kind of
                value -> beamtalk_object:synthesise_constructor(Fields);
                _ -> #{}
            end,
    Methods = maps:merge(maps:merge(Base, Synth), maps:get(class_methods, E)),
    put_term(class_tag(Name), Methods).

%% Inherited fields first, in their order; a redeclared field keeps its
%% position and takes the new default.
merge_fields(Inherited, Own) ->
    OwnMap = maps:from_list(Own),
    Kept = [case maps:find(N, OwnMap) of
                {ok, F1} -> {N, F1};
                error -> {N, F}
            end || {N, F} <- Inherited],
    InheritedNames = [N || {N, _} <- Inherited],
    Kept ++ [{N, F} || {N, F} <- Own, not lists:member(N, InheritedNames)].

put_term(Key, Value) ->
    case persistent_term:get(Key, '$bt_none') of
        Value -> ok;                          % unchanged: skip the global scan
        _ -> persistent_term:put(Key, Value)
    end.

to_bin(A) when is_atom(A) -> atom_to_binary(A, utf8);
to_bin(B) when is_binary(B) -> B;
to_bin(T) -> iolist_to_binary(io_lib:format("~tp", [T])).
