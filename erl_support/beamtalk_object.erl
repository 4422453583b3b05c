%% @doc Value and object instances: maps tagged with `'$beamtalk_class'`
%% (spec semantics §3.2, §3.3).
%%
%% `new` evaluates every field default (inherited fields first) at
%% construction time; `new:` merges a Dictionary over that.  For
%% `Value subclass:` classes the runtime synthesises, at definition time and
%% unless the class defines the selector itself, a getter and a functional
%% `withX:` setter per own field, and a class-side keyword constructor of all
%% fields in declaration order (`Point x: 3 y: 4`).  These are ordinary
%% entries of the flattened method tables (see beamtalk_class_tables:recompute).
-module(beamtalk_object).

-export([fields_hint/3, new/1, new/2, instantiate/1, check_instantiable/2, field_names/1,
         field_at/2, field_at_put/3, synthesise_accessors/1,
         synthesise_constructor/1, setter_name/1, make_fun/2, missing_field/2]).

-define(CK, '$beamtalk_class').

%% @doc `C new` for a constructible class (checks kind and modifiers).
new(ClassName) ->
    check_instantiable(ClassName, new),
    instantiate(ClassName).

%% @doc `C new: aDictionary`.
new(ClassName, Map) when is_map(Map) ->
    check_instantiable(ClassName, 'new:'),
    maps:merge(instantiate(ClassName), maps:remove(?CK, Map));
new(ClassName, _NotMap) ->
    check_instantiable(ClassName, 'new:'),
    %% `Array new: 3` (Pharo's sized collection): new: takes field values
    Name = atom_to_binary(ClassName, utf8),
    Hint = case beamtalk_class:inherits_from(ClassName, 'Collection') of
               true -> <<"new: sets fields from a Dictionary; a collection is made from its elements: ",
                         Name/binary, " withAll: #(1, 2, 3)">>;
               _ -> <<"new: sets fields from a Dictionary: ", Name/binary, " new: #{#field => value}">>
           end,
    beamtalk_exception:raise(type_error, ClassName, 'new:',
                             <<"new: expects a Dictionary argument">>, Hint).

%% @doc A fresh instance with every field at its default (no checks).
instantiate(ClassName) ->
    Fields = case beamtalk_class:class_info(ClassName) of
                 #{fields := F} -> F;
                 undefined -> beamtalk_class:not_found(ClassName)
             end,
    maps:from_list([{?CK, ClassName} | [{N, D()} || {N, D} <- Fields]]).

%% @doc Raise the spec's instantiation errors for classes that `new` cannot
%% build: abstract classes, primitive types, actors, metaclasses.
check_instantiable(ClassName, Sel) ->
    Info = case beamtalk_class:class_info(ClassName) of
               undefined -> beamtalk_class:not_found(ClassName);
               I -> I
           end,
    %% (the message is built only when raised: this runs on every `new`)
    Msg = fun() -> iolist_to_binary(["Cannot call '", atom_to_binary(Sel, utf8), "' on ",
                                     atom_to_binary(ClassName, utf8)]) end,
    case Info of
        #{abstract := true} ->
            beamtalk_exception:raise(instantiation_error, ClassName, Sel, Msg(),
                                     <<"Abstract classes cannot be instantiated. Subclass it first.">>);
        #{primitive := true} ->
            beamtalk_exception:raise(instantiation_error, ClassName, Sel, Msg(),
                                     iolist_to_binary([atom_to_binary(ClassName, utf8),
                                                       " is a primitive type and cannot be "
                                                       "instantiated with ",
                                                       atom_to_binary(Sel, utf8)]));
        #{kind := actor} ->
            beamtalk_exception:raise(instantiation_error, ClassName, Sel, Msg(),
                                     <<"Use spawn instead">>);
        _ -> ok
    end.

%% @doc `x fieldNames`: slot names of an instance (sorted).
field_names(#{?CK := _} = V) ->
    lists:sort(maps:keys(maps:remove(?CK, V)));
field_names(_) ->
    [].

%% @doc The hint of "C has no field 'x'": the fields there are, and the one
%% a misspelt name is closest to (`#balanse` -> `#balance`).
-spec fields_hint(atom(), [atom()], term()) -> binary().
fields_hint(C, [], _Name) ->
    <<(atom_to_binary(C, utf8))/binary, " has no fields">>;
fields_hint(_C, Fields0, Name) ->
    Fields = lists:sort(Fields0),
    Known = [atom_to_binary(F, utf8) || F <- Fields],
    Close = case is_atom(Name) of
                true ->
                    N = string:lowercase(atom_to_binary(Name, utf8)),
                    Scored = [{beamtalk_class_hint:distance(N, string:lowercase(K)), K} || K <- Known],
                    case lists:min(Scored) of
                        {D, K} when D =< 2, D < byte_size(N) -> ["did you mean #", K, "? "];
                        _ -> []
                    end;
                false -> []
            end,
    iolist_to_binary([Close, "Its fields are: ", lists:join(", ", Known)]).

internal_key(K) ->
    case atom_to_binary(K, utf8) of
        <<"__", _/binary>> -> true;
        _ -> false
    end.

%% @doc `x fieldAt: #slot`.  On a class object (not a metaclass), its class
%% variables: the only way a ClassBuilder class-side block (`[:cls | ...]`,
%% which has no `self.v`) reaches the variables `addClassVariable:` declared.
field_at({beamtalk_object, Tag, beamtalk_class, _} = Cls, Name) when Tag =/= 'Metaclass' ->
    beamtalk_class:class_var(Cls, declared_class_var(Cls, Name, 'fieldAt:'));
field_at({beamtalk_object, 'Metaclass', beamtalk_class, _} = Meta, Name) ->
    metaclass_has_no_fields(Meta, 'fieldAt:', Name);
field_at(#{?CK := C}, Name) when not is_atom(Name) ->
    beamtalk_send:symbol_expected(C, 'fieldAt:', "a field name (a Symbol)", Name);
field_at(#{?CK := C} = V, Name) ->
    case maps:find(Name, V) of
        {ok, Val} when Name =/= ?CK -> Val;
        _ -> beamtalk_exception:raise(runtime_error, C, 'fieldAt:',
                                      iolist_to_binary([atom_to_binary(C, utf8), " has no field '",
                                                        field_text(Name), "'"]),
                                      fields_hint(C, [K || K <- maps:keys(V), is_atom(K), K =/= ?CK,
                                                           not internal_key(K)], Name))
    end;
field_at(V, Name) ->
    C = beamtalk_send:class_name(V),
    %% `items.length`, `x.toString` (a method call in other languages) is
    %% field access here: the hint shows the message send
    Hint = case is_atom(Name) of
               true ->
                   N = atom_to_binary(Name, utf8),
                   iolist_to_binary(["x.", N, " reads a field, and ", beamtalk_rt:article(C), " has none: "
                                     "to send the message ", N, " write x ", N, " (a space, no dot)"]);
               false -> nil
           end,
    beamtalk_exception:raise(immutable_value, C, 'fieldAt:',
                             iolist_to_binary(["Cannot call 'fieldAt:' on ", atom_to_binary(C, utf8),
                                               " (primitive values have no fields)"]), Hint).

%% @doc `x fieldAt: #slot put: v`: values are immutable; a class object sets
%% one of its class variables (see field_at/2).
field_at_put({beamtalk_object, Tag, beamtalk_class, _} = Cls, Name, Value) when Tag =/= 'Metaclass' ->
    beamtalk_class:set_class_var(Cls, declared_class_var(Cls, Name, 'fieldAt:put:'), Value);
field_at_put({beamtalk_object, 'Metaclass', beamtalk_class, _} = Meta, Name, _Value) ->
    metaclass_has_no_fields(Meta, 'fieldAt:put:', Name);
field_at_put(V, _Name, _Value) ->
    C = beamtalk_send:class_name(V),
    beamtalk_exception:raise(immutable_value, C, 'fieldAt:put:',
                             iolist_to_binary(["Cannot call 'fieldAt:put:' on ",
                                               atom_to_binary(C, utf8), " (immutable value)"]),
                             <<"Values are immutable: use withSlot: (e.g. withX:) to get an "
                               "updated copy">>).

%% `Counter class fieldAt: #n`: it said "on Metaclass (primitive values
%% have no fields)"; the variables are the class's.
metaclass_has_no_fields(Meta, Sel, Name) ->
    C = atom_to_binary(beamtalk_class:name_of(Meta), utf8),
    beamtalk_exception:raise(runtime_error, 'Metaclass', Sel,
                             <<C/binary, " class has no fields">>,
                             iolist_to_binary(["class variables belong to the class: ", C,
                                               " fieldAt: ", beamtalk_print:print_string(Name)])).

%% @doc A field read (`self.y`, `p.y`) that found no such key: a value made
%% before its class gained the field reads the field's default (values are
%% immutable, so they are not upgraded in place as actors are); anything
%% else has no such field.
missing_field(Name, #{?CK := C} = V) ->
    Fields = case beamtalk_class:class_info(C) of
                 #{fields := Fs} -> Fs;
                 _ -> []
             end,
    case lists:keyfind(Name, 1, Fields) of
        {Name, Default} when is_function(Default, 0) -> Default();
        {Name, _} -> nil;
        false -> field_at(V, Name)
    end;
missing_field(Name, {beamtalk_object, _, Mod, _} = Actor) when Mod =/= beamtalk_class ->
    %% `anActor.count` from outside: the actor reads its own state, as
    %% `anActor fieldAt: #count` does (its fields live in its process)
    beamtalk_actor:send(Actor, 'fieldAt:', [Name]);
missing_field(Name, V) ->
    field_at(V, Name).

%% A class variable the class or a superclass declares, or a clear error.
declared_class_var(Cls, Name, Sel) ->
    C = beamtalk_class:name_of(Cls),
    Vars = lists:append([beamtalk_class:declared_class_vars(K) || K <- [C | beamtalk_class:superclasses(C)]]),
    case is_atom(Name) andalso lists:member(Name, Vars) of
        true -> Name;
        false ->
            T = field_text(Name),
            beamtalk_exception:raise(runtime_error, C, Sel,
                                     iolist_to_binary([atom_to_binary(C, utf8), " has no class variable '", T, "'"]),
                                     iolist_to_binary(["declare it with classState: ", T, " = ... (or addClassVariable: #",
                                                       T, " default: ...); ", atom_to_binary(C, utf8), " has ",
                                                       beamtalk_print:print_string(lists:usort(Vars))]))
    end.

field_text(A) when is_atom(A) -> atom_to_binary(A, utf8);
field_text(T) -> beamtalk_print:print_string(T).

%%% ---------------------------------------------------------------------
%%% Synthesised methods of Value subclasses
%%% ---------------------------------------------------------------------

%% @doc Getters and `withX:` setters for the class's own fields.
synthesise_accessors(Fields) ->
    maps:from_list(
      lists:append([[{N, {v, getter(N)}}, {setter_name(N), {v, setter(N)}}]
                    || {N, _} <- Fields])).

getter(N) ->
    fun(Self) ->
            case Self of
                #{N := V} -> V;
                _ -> missing_field(N, Self)
            end
    end.

setter(N) -> fun(Self, V) -> Self#{N => V} end.

%% @doc `withX:` for field `x`.
setter_name(N) ->
    case atom_to_binary(N, utf8) of
        <<C/utf8, Rest/binary>> ->
            Up = string:uppercase(<<C/utf8>>),
            binary_to_atom(<<"with", Up/binary, Rest/binary, ":">>, utf8);
        <<>> -> 'with:'
    end.

%% @doc The class-side keyword constructor `x:y:` over all fields.  It
%% sends `new` to the class (so a class-side `new` override is honoured)
%% and sets every field from the arguments.
synthesise_constructor([]) ->
    #{};
synthesise_constructor(Fields) ->
    Names = [N || {N, _} <- Fields],
    Sel = binary_to_atom(iolist_to_binary([[atom_to_binary(N, utf8), ":"] || N <- Names]), utf8),
    Ctor = fun([Cls | Args]) ->
                   Base = beamtalk_send:send(Cls, new, []),
                   maps:merge(Base, maps:from_list(lists:zip(Names, Args)))
           end,
    #{Sel => {v, make_fun(length(Names) + 1, Ctor)}}.

%% @doc A fun of the given arity that calls F with its arguments as a list.
make_fun(0, F) -> fun() -> F([]) end;
make_fun(1, F) -> fun(A) -> F([A]) end;
make_fun(2, F) -> fun(A, B) -> F([A, B]) end;
make_fun(3, F) -> fun(A, B, C) -> F([A, B, C]) end;
make_fun(4, F) -> fun(A, B, C, D) -> F([A, B, C, D]) end;
make_fun(5, F) -> fun(A, B, C, D, E) -> F([A, B, C, D, E]) end;
make_fun(6, F) -> fun(A, B, C, D, E, G) -> F([A, B, C, D, E, G]) end;
make_fun(7, F) -> fun(A, B, C, D, E, G, H) -> F([A, B, C, D, E, G, H]) end;
make_fun(8, F) -> fun(A, B, C, D, E, G, H, I) -> F([A, B, C, D, E, G, H, I]) end;
make_fun(9, F) -> fun(A, B, C, D, E, G, H, I, J) -> F([A, B, C, D, E, G, H, I, J]) end;
make_fun(10, F) -> fun(A, B, C, D, E, G, H, I, J, K) -> F([A, B, C, D, E, G, H, I, J, K]) end;
make_fun(N, F) ->
    %% Rare (more than ten fields): build a fun of that arity with erl_eval.
    Vars = [list_to_atom("A" ++ integer_to_list(I)) || I <- lists:seq(1, N)],
    Expr = {'fun', 1, {clauses, [{clause, 1, [{var, 1, V} || V <- Vars], [],
                                  [{call, 1, {var, 1, 'F'},
                                    [lists:foldr(fun(V, Acc) -> {cons, 1, {var, 1, V}, Acc} end,
                                                 {nil, 1}, Vars)]}]}]}},
    {value, Fun, _} = erl_eval:expr(Expr, erl_eval:add_binding('F', F, erl_eval:new_bindings())),
    Fun.
