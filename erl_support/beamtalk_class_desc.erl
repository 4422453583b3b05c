%% @doc What a class description must be: its normal form and the rules a
%% definition has to pass before the registry records it (spec semantics
%% §3, §10; ADR 0034 §3, ADR 0038).
%%
%% `normalize/1` runs in the caller (the generated code, a ClassBuilder), so
%% a malformed description is refused there with a type error naming the
%% part that is wrong, and the registry process only ever sees the normal
%% form.  The `check_*` functions run in the registry process, because they
%% read the registry (the superclass must exist and not be sealed, the
%% chain must not loop, a sealed method must not be overridden, a stdlib
%% class must not be redefined) and must see it as it is when the
%% definition is recorded.  Kept apart from beamtalk_class so the rules of
%% a definition can be read in one place.
-module(beamtalk_class_desc).

-export([normalize/1, type_error/1, check_protected/3, check_superclass/3,
         check_sealed_methods/4]).

%% @doc The normal form of a description (runtime_abi.py): every key
%% present, fields and class variables as `[{Name, DefaultFun}]`, methods as
%% `#{Selector => {v | a, Fun}}`, method info keyed by `{Selector, ClassSide}`.
normalize(Desc) when is_map(Desc) ->
    Name = maps:get(name, Desc, undefined),
    is_atom(Name) andalso Name =/= undefined andalso Name =/= nil
        orelse type_error(<<"A class definition needs a name (a Symbol)">>),
    check_class_name(Name),
    Super = case maps:get(superclass, Desc, nil) of
                S when is_atom(S) -> S;
                {beamtalk_object, _, beamtalk_class, _} = C -> beamtalk_class:name_of(C);
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

%% @doc A malformed description: a type error raised as ClassBuilder's.
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

%% @doc A stdlib class (protected) is redefined only by the stdlib itself.
check_protected(Name, #{protected := true}, false) ->
    raise_def(class_already_exists, Name,
              ["Cannot redefine stdlib class '", to_bin(Name), "'"], nil);
check_protected(_, _, _) ->
    ok.

%% @doc The superclass exists, is not sealed (the stdlib may subclass a
%% sealed class) and does not have Name in its own chain; answers its
%% registry entry (`none` for a root class).
check_superclass(_Name, nil, _) ->
    none;
check_superclass(Name, Super, Stdlib) ->
    case beamtalk_class:entry(Super) of
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
            case Super =:= Name orelse lists:member(Name, beamtalk_class:superclasses(Super)) of
                true -> raise_def(runtime_error, Name,
                                  ["Circular superclass chain: ", to_bin(Name),
                                   " cannot inherit from ", to_bin(Super)], nil);
                false -> ok
            end,
            SE
    end.

%% @doc No instance method of D overrides a method sealed by an ancestor.
check_sealed_methods(_Name, _D, nil, _) -> ok;
check_sealed_methods(_Name, _D, _Super, true) -> ok;
check_sealed_methods(Name, D, Super, false) ->
    Own = maps:keys(maps:get(methods, D)),
    Sealed = [{S, A} || A <- [Super | beamtalk_class:superclasses(Super)],
                        S <- maps:get(sealed_methods, entry_or_empty(A), [])],
    case [{S, A} || {S, A} <- Sealed, lists:member(S, Own)] of
        [] -> ok;
        [{S, A} | _] ->
            raise_def(runtime_error, Name,
                      ["Cannot override sealed method `", to_bin(A), ">>", to_bin(S),
                       "` in ", to_bin(Name)], nil)
    end.

entry_or_empty(N) ->
    case beamtalk_class:entry(N) of undefined -> #{}; E -> E end.

raise_def(Kind, Class, Msg, Hint) ->
    beamtalk_exception:raise(Kind, Class, undefined, iolist_to_binary(Msg), Hint).

to_bin(A) when is_atom(A) -> atom_to_binary(A, utf8);
to_bin(B) when is_binary(B) -> B;
to_bin(T) -> iolist_to_binary(io_lib:format("~tp", [T])).
