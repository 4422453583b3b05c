%% @doc The class registry's work: what the registry process
%% (`beamtalk_classes`, its gen_server callbacks in beamtalk_class) does for
%% each request - define a class or the stdlib batch, add or remove one
%% method, set a doc, remove a class.  It is the only writer of the ETS
%% table of the same name (`beamtalk_class_registry`: name => description
%% entry, `{pid, Pid}` => name), starts and updates the class processes, and
%% has beamtalk_class_tables recompute the flattened tables of whatever a
%% request changed.
%%
%% Why a module of its own: the requests all run inside the one registry
%% process, serialised, and share its invariants (entry written before the
%% tables are recomputed, dispatch module regenerated after); the readers in
%% beamtalk_class never need this code, and it needs none of theirs beyond
%% the lookups beamtalk_class exports.
-module(beamtalk_class_registry).

-export([serve/1]).

-define(TAB, beamtalk_class_registry).
-define(CK, '$beamtalk_class').

%% @doc Carry out one request of the registry process and answer its
%% reply: the request's result, or `{error, Exception}` for the caller to
%% raise in its own process (an unexpected crash becomes an internal_error
%% exception, so the registry process itself never dies of a request).
%% A request that succeeded is told to the store and the change log.
-spec serve(tuple()) -> term().
serve(Req) ->
    try registry_call(Req) of
        R0 -> beamtalk_store:class_changed(changed_class(Req)),
              beamtalk_changes:noted(Req),
              R0
    catch
        error:#{?CK := _} = Ex -> {error, Ex};
        C:R:S ->
            Text = iolist_to_binary(io_lib:format("~tp:~tp ~tp", [C, R, S])),
            {error, beamtalk_exception:new(internal_error, undefined, undefined,
                                           <<"Class registry failure: ", Text/binary>>, nil)}
    end.

%% Which class a registry request changed, for the store (beamtalk_store).
changed_class({define, #{name := Name}, _}) -> Name;
changed_class(Req) when is_tuple(Req), is_atom(element(2, Req)) -> element(2, Req);
changed_class(_) -> none.

registry_call({define, D, Vars}) ->
    do_define(D, Vars);
registry_call({define_batch, Pairs}) ->
    do_define_batch(Pairs);
registry_call({set_doc, Name, Doc}) ->
    case beamtalk_class:entry(Name) of
        undefined -> beamtalk_class:not_found(Name);
        E -> ets:insert(?TAB, {Name, E#{doc => Doc}}), ok
    end;
registry_call({set_method_doc, Name, Key, Doc}) ->
    case beamtalk_class:entry(Name) of
        undefined -> beamtalk_class:not_found(Name);
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
    E = editable_entry(Name, "remove methods from", {Sel, ClassSide}),
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
            sealed_methods => lists:delete(Sel, maps:get(sealed_methods, E, [])),
            extensions => lists:delete({Sel, ClassSide}, maps:get(extensions, E, []))},
    store_edited(Name, E1).

do_add_method(Name, Sel, Method, Info) ->
    ClassSide = maps:get(class_side, Info, false) =:= true,
    E = extendable_entry(Name, Sel, ClassSide),
    Super = maps:get(superclass, E),
    ClassSide orelse beamtalk_class_desc:check_sealed_methods(Name, #{methods => #{Sel => Method}}, Super, false),
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
    store_edited(Name, E2).

%% The entry of a class whose methods may be edited: it exists and is not a
%% stdlib class, or the method is an extension the user added to one
%% (Action says what was refused).
editable_entry(Name, Action, Key) ->
    E = case beamtalk_class:entry(Name) of
            undefined -> beamtalk_class:not_found(Name);
            E0 -> E0
        end,
    maps:get(protected, E, false) andalso not lists:member(Key, maps:get(extensions, E, []))
        andalso raise_def(class_already_exists, Name,
                          ["Cannot ", Action, " stdlib class '", to_bin(Name), "'"],
                          <<"only methods added with `", (to_bin(Name))/binary,
                            " >> sel => ...` can be removed">>),
    E.

%% The entry a method is added to.  A stdlib class takes extension methods
%% (spec semantics 4.2: `Integer >> double => self * 2`): new selectors, or
%% ones an earlier extension added; the stdlib's own methods stay as they are
%% (replacing `printString` of Integer would change what every tool shows).
%% The entry remembers its extensions so that they can be replaced and removed.
extendable_entry(Name, Sel, ClassSide) ->
    E = case beamtalk_class:entry(Name) of
            undefined ->
                %% `Nope >> foo => 1`: spec repl.md 5.1's text
                beamtalk_exception:raise(class_not_found, undefined, undefined,
                                         iolist_to_binary(["Class not found: ", to_bin(Name),
                                                           ". Define the class first before adding methods."]),
                                         beamtalk_class_hint:hint(Name));
            E0 -> E0
        end,
    case maps:get(protected, E, false) of
        false -> E;
        true ->
            Key = {Sel, ClassSide},
            Exts = maps:get(extensions, E, []),
            Table = case ClassSide of
                        true -> beamtalk_class:class_side_methods(Name);
                        false -> beamtalk_class:instance_methods(Name)
                    end,
            (maps:is_key(Sel, Table) andalso not is_extension(Key, [Name | beamtalk_class:superclasses(Name)])) andalso
                raise_def(class_already_exists, Name,
                          ["Cannot replace the stdlib method ", to_bin(Name),
                           case ClassSide of true -> " class"; false -> "" end,
                           ">>", atom_to_binary(Sel)],
                          <<"a stdlib class takes new methods (extensions), not changes to its own; "
                            "give the method another name">>),
            E#{extensions => lists:usort([Key | Exts])}
    end.

%% Whether the method Key that Names (a class and its superclasses) answers
%% is one a user added: the nearest class defining it added it as an extension.
is_extension(_Key, []) -> false;
is_extension({Sel, ClassSide} = Key, [N | Rest]) ->
    case beamtalk_class:entry(N) of
        undefined -> false;
        E ->
            Own = maps:get(case ClassSide of true -> class_methods; false -> methods end, E),
            case maps:is_key(Sel, Own) of
                true -> lists:member(Key, maps:get(extensions, E, []));
                false -> is_extension(Key, Rest)
            end
    end.

%% Record an edited entry: the method set changed, so the class leaves the
%% fast dispatch module until it is compiled from a file again.
store_edited(Name, E) ->
    ets:insert(?TAB, {Name, E#{dispatch => false}}),
    ok = gen_server:call(maps:get(pid, E), {set_desc, E}),
    beamtalk_class_tables:refresh(Name),
    beamtalk_dispatch_gen:set(Name, none),
    ok.

do_define(D, Vars) ->
    {Name, Entry, Old} = define_entry(D, Vars),
    beamtalk_class_tables:refresh(Name),
    beamtalk_dispatch_gen:set(Name, dispatch_module(Entry)),
    {ok, beamtalk_class:class_object(Name), module_warnings(Name, Old, D)}.

%% The stdlib batch: every description laid over the class the bootstrap
%% made, then all tables recomputed and the dispatch module regenerated once.
do_define_batch(Pairs) ->
    Done = [define_entry(overlay(D), Vars) || {D, Vars} <- Pairs],
    beamtalk_class_tables:recompute(beamtalk_class:all_names()),
    beamtalk_dispatch_gen:set_many([{Name, dispatch_module(E)} || {Name, E, _} <- Done]),
    ok.

%% A stdlib class compiled from stdlib/*.bt keeps what the bootstrap gave it
%% and the description does not say: primitives not declared in the file,
%% its kind, whether it is a primitive (non-instantiable) class.
overlay(#{name := Name} = D) ->
    case beamtalk_class:entry(Name) of
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
    Old = beamtalk_class:entry(Name),
    beamtalk_class_desc:check_protected(Name, Old, Stdlib),
    SuperEntry = beamtalk_class_desc:check_superclass(Name, Super, Stdlib),
    beamtalk_class_desc:check_sealed_methods(Name, D, Super, Stdlib),
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
    persistent_term:put({beamtalk_class_tag, beamtalk_class:class_tag(Name)}, Name),
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
    case beamtalk_class:entry(Name) of
        undefined -> beamtalk_class:not_found(Name);
        #{protected := true} ->
            raise_def(runtime_error, Name,
                      ["Cannot remove stdlib class '", to_bin(Name), "'"], nil);
        #{pid := Pid} ->
            case beamtalk_class:subclasses(Name) of
                [] -> ok;
                Subs -> raise_def(runtime_error, Name,
                                  ["Cannot remove ", to_bin(Name), ": it has subclasses (",
                                   lists:join(", ", [to_bin(S) || S <- Subs]), ")"], nil)
            end,
            ets:delete(?TAB, Name),
            ets:delete(?TAB, {pid, Pid}),
            Tag = beamtalk_class:class_tag(Name),
            persistent_term:erase(Name),
            persistent_term:erase(Tag),
            persistent_term:erase({beamtalk_class_tag, Tag}),
            beamtalk_dispatch_gen:set(Name, none),
            catch supervisor:terminate_child(beamtalk_class_sup, Pid),
            ok
    end.

raise_def(Kind, Class, Msg, Hint) ->
    beamtalk_exception:raise(Kind, Class, undefined, iolist_to_binary(Msg), Hint).

to_bin(A) when is_atom(A) -> atom_to_binary(A, utf8);
to_bin(B) when is_binary(B) -> B;
to_bin(T) -> iolist_to_binary(io_lib:format("~tp", [T])).
