%% @doc Message sending (spec semantics §2, §4; DESIGN D7, D8).
%%
%% The hot path never talks to a class process: the receiver's class name
%% is decided from the term (spec §2 order), then one `persistent_term:get`
%% fetches that class's flattened method table (maintained by
%% `beamtalk_class`), then one map lookup finds `{v, Fun}` or `{a, Fun}`.
%%
%% Where a send goes:
%%   value / primitive term   -> instance table of its class, run here;
%%   actor record             -> `beamtalk_actor:call/3` (gen_server call),
%%                               lifecycle selectors handled here;
%%   class object             -> class-side table (class methods inherited
%%                               along the metaclass chain, then the
%%                               Class/Behaviour protocol), run here with the
%%                               class object as self;
%%   metaclass object         -> instance table of `Metaclass`, run here.
%% Nothing found: the class chain's `doesNotUnderstand:args:` (the default
%% one, on ProtoObject, raises the does-not-understand error).
-module(beamtalk_send).

%% Generated code (runtime_abi.py)
-export([send/3, super_send/4, self_send/4, super_self_send/5, cast/3,
         class_of/1, responds_to/2]).
%% Runtime API
-export([send_value/4]).
-export([class_name/1, class_label/1, perform/3, table_of/1, lookup/2,
         apply_v/3, apply_a/4, invoke/5, selector_arity/1, symbol_expected/4]).

-define(CK, '$beamtalk_class').

-compile({inline, [send_value/4, send_class/4, apply_v/3, apply_a/4]}).

%%% ---------------------------------------------------------------------
%%% send
%%% ---------------------------------------------------------------------

%% @doc `Receiver selector: args`.
send(#{?CK := C} = R, Sel, Args) ->
    beamtalk_dispatch:d(C, Sel, R, Args);
send(R, Sel, Args) when is_map(R) ->
    send_value('Dictionary', R, Sel, Args);
send({beamtalk_object, Tag, beamtalk_class, _} = R, Sel, Args) ->
    send_class(Tag, R, Sel, Args);
send({beamtalk_object, _, _, _} = R, Sel, Args) ->
    beamtalk_actor:send(R, Sel, Args);
send(R, Sel, Args) ->
    send_value(class_name(R), R, Sel, Args).

%% The tables are persistent terms keyed by the bare class name (instance
%% side, with the class info under '$info') or by the class tag (class
%% side); see beamtalk_class.
send_value(C, R, Sel, Args) ->
    case persistent_term:get(C, undefined) of
        #{Sel := {v, F}} -> apply_v(F, R, Args);
        #{'$info' := _} = T -> not_found(T, C, R, Sel, Args);
        _ -> unknown_class(C)
    end.

send_class('Metaclass', R, Sel, Args) ->
    case persistent_term:get('Metaclass', undefined) of
        #{Sel := {v, F}} -> apply_v(F, R, Args);
        #{'$info' := _} = T -> not_found(T, 'Metaclass', R, Sel, Args);
        _ -> unknown_class('Metaclass')
    end;
send_class(Tag, R, Sel, Args) ->
    case persistent_term:get(Tag, undefined) of
        #{Sel := {v, F}} -> apply_v(F, R, Args);
        T when is_map(T) -> not_found(T, Tag, R, Sel, Args);
        _ -> unknown_class(beamtalk_class:name_of(R))
    end.

%% Not in the table (or an actor-style method on a non-actor receiver).
not_found(T, Label, R, Sel, Args) ->
    case T of
        #{Sel := {a, _}} ->
            beamtalk_exception:raise(dispatch_error, Label, Sel,
                                     iolist_to_binary([to_bin(Sel), " is an actor method and ",
                                                       beamtalk_print:print_string(R),
                                                       " is not an actor"]), nil);
        _ -> dnu_value(T, Label, R, Sel, Args)
    end.

dnu_value(T, Label, R, Sel, Args) ->
    case T of
        #{'doesNotUnderstand:args:' := {v, F}} -> F(R, Sel, Args);
        _ -> beamtalk_exception:dnu(Label, Sel)
    end.

unknown_class(C) ->
    beamtalk_class:not_found(C).

%% @doc Apply a value-style method.
apply_v(F, R, []) -> F(R);
apply_v(F, R, [A]) -> F(R, A);
apply_v(F, R, [A, B]) -> F(R, A, B);
apply_v(F, R, [A, B, C]) -> F(R, A, B, C);
apply_v(F, R, Args) -> erlang:apply(F, [R | Args]).

%% @doc Apply an actor-style method: `{Result, State1}`.
apply_a(F, R, S, []) -> F(R, S);
apply_a(F, R, S, [A]) -> F(R, S, A);
apply_a(F, R, S, [A, B]) -> F(R, S, A, B);
apply_a(F, R, S, Args) -> erlang:apply(F, [R, S | Args]).

%%% ---------------------------------------------------------------------
%%% Actor-side sends (state threaded)
%%% ---------------------------------------------------------------------

%% @doc `self sel` inside an actor method: runs in this process, no
%% gen_server call; answers `{Result, State1}`.
self_send(Self, State, Sel, Args) ->
    C = element(2, Self),
    case persistent_term:get(C, undefined) of
        #{'$info' := _} = T -> invoke(T, Self, State, Sel, Args);
        _ -> unknown_class(C)
    end.

%% @doc Run Sel with the class table T in an actor's own process (the
%% actor server has already fetched T for its version check).
invoke(T, Self, State, Sel, Args) ->
    case T of
        #{Sel := {a, F}} -> apply_a(F, Self, State, Args);
        #{Sel := {v, F}} -> invoke_v(F, Self, State, Args);
        _ -> dnu_actor(T, element(2, Self), Self, State, Sel, Args)
    end.

%% A value-style method running in its actor (a ClassBuilder closure,
%% `addMethod: #bump body: [:me | me fieldAt: #n put: ...]`, or an Object
%% method) holds no state, so while it runs the state lives in the process
%% dictionary: a send of the method to its own actor reference runs in this
%% process against that state instead of deadlocking on a call to itself
%% (beamtalk_actor:call/4), and what it changes is the method's new state.
invoke_v(F, Self, State, Args) ->
    case get('$bt_vstate') of
        undefined ->
            put('$bt_vstate', State),
            try
                Result = apply_v(F, Self, Args),
                {Result, get('$bt_vstate')}
            after
                erase('$bt_vstate')
            end;
        _ ->
            %% nested in another value-style method of this actor: the
            %% dictionary already holds the state (which is `State`)
            Result = apply_v(F, Self, Args),
            {Result, get('$bt_vstate')}
    end.

dnu_actor(T, C, Self, State, Sel, Args) ->
    case T of
        #{'doesNotUnderstand:args:' := {a, F}} -> F(Self, State, Sel, Args);
        #{'doesNotUnderstand:args:' := {v, F}} -> {F(Self, Sel, Args), State};
        _ -> beamtalk_exception:dnu(C, Sel)
    end.

%% @doc `super sel` in a value-style method defined in DefiningClass
%% (instance side, or class side when self is a class object of that chain).
super_send(Def, Self, Sel, Args) ->
    T = super_table(Def, Self),
    case T of
        #{Sel := {v, F}} when Sel =:= 'new:' ->
            %% `super new: d` (typically inside an override of class-side
            %% `new`) asks for the inherited construction: Behaviour's
            %% `new:` must not send `new` back to that override
            %% (beamtalk_prim_behaviour:'new:'/2 takes this mark).
            put(beamtalk_super_new, Self),
            try apply_v(F, Self, Args) after erase(beamtalk_super_new) end;
        #{Sel := {v, F}} -> apply_v(F, Self, Args);
        _ -> super_dnu(Def, Self, Sel)
    end.

%% @doc `super sel` in an actor method defined in DefiningClass.
super_self_send(Def, Self, State, Sel, Args) ->
    T = case beamtalk_class:superclass(Def) of
            nil -> #{};
            S -> beamtalk_class:instance_methods(S)
        end,
    case T of
        #{Sel := {a, F}} -> apply_a(F, Self, State, Args);
        %% a ClassBuilder block method of an actor superclass: runs against
        %% this actor's state, as `invoke` runs one (its `me fieldAt:` would
        %% otherwise be a call to this very process)
        #{Sel := {v, F}} -> invoke_v(F, Self, State, Args);
        _ -> super_dnu(Def, Self, Sel)
    end.

super_table(Def, {beamtalk_object, Tag, beamtalk_class, _} = Self) when Tag =/= 'Metaclass' ->
    Name = beamtalk_class:name_of(Self),
    case lists:member(Def, [Name | beamtalk_class:superclasses(Name)]) of
        true ->
            %% A class-side method: continue along the metaclass chain.
            case beamtalk_class:superclass(Def) of
                nil -> beamtalk_class:instance_methods('Class');
                S -> beamtalk_class:class_side_methods(S)
            end;
        false -> super_instance_table(Def)
    end;
super_table(Def, _Self) ->
    super_instance_table(Def).

super_instance_table(Def) ->
    case beamtalk_class:superclass(Def) of
        nil -> #{};
        S -> beamtalk_class:instance_methods(S)
    end.

super_dnu(Def, Self, Sel) ->
    beamtalk_exception:dnu(class_label(Self), Sel,
                           iolist_to_binary(["No superclass of ", to_bin(Def),
                                             " implements '", to_bin(Sel), "'",
                                             super_dnu_more(Sel)])).

%% Pharo's `super initialize` first line: Object and Actor have none to run.
super_dnu_more(initialize) -> ": Object and Actor define no initialize, so `super initialize` can be removed";
super_dnu_more(_) -> "".

%% @doc `receiver sel!`: fire and forget to an actor; ignored for others.
cast({beamtalk_object, _, Mod, Pid}, Sel, Args) when Mod =/= beamtalk_class ->
    gen_server:cast(Pid, {cast, Sel, Args}),
    ok;
cast(_R, _Sel, _Args) ->
    ok.

%%% ---------------------------------------------------------------------
%%% Classes of values
%%% ---------------------------------------------------------------------

%% @doc The class name deciding dispatch (spec §2 order).  For a class
%% object it is its tag ('Counter class'), naming its metaclass.
class_name(V) when is_integer(V) -> 'Integer';
class_name(V) when is_float(V) -> 'Float';
class_name(V) when is_binary(V) -> 'String';
class_name(true) -> 'True';
class_name(false) -> 'False';
class_name(nil) -> 'UndefinedObject';
class_name(V) when is_function(V) -> 'Block';
class_name(V) when is_atom(V) -> 'Symbol';
class_name(V) when is_list(V) -> 'List';
class_name(#{?CK := C}) -> C;
class_name(V) when is_map(V) -> 'Dictionary';
class_name({beamtalk_object, 'Metaclass', beamtalk_class, _}) -> 'Metaclass';
class_name({beamtalk_object, Tag, _, _}) -> Tag;
class_name(V) when is_tuple(V) -> 'Tuple';
class_name(V) when is_pid(V) -> 'Pid';
class_name(V) when is_port(V) -> 'Port';
class_name(V) when is_reference(V) -> 'Reference';
class_name(_) -> 'Object'.

%% @doc The class name as error messages show it ("Counter class" for a
%% class object, "Metaclass" for a metaclass object).
class_label(V) -> class_name(V).

%% @doc `x class`: the class object; for a class object its metaclass, for
%% a metaclass the `Metaclass` class (DESIGN D8).
class_of({beamtalk_object, 'Metaclass', beamtalk_class, _}) ->
    beamtalk_class:class_object('Metaclass');
class_of({beamtalk_object, _, beamtalk_class, Pid}) ->
    {beamtalk_object, 'Metaclass', beamtalk_class, Pid};
class_of(V) ->
    beamtalk_class:class_object(class_name(V)).

%% @doc The flattened method table a send to V consults.
table_of({beamtalk_object, 'Metaclass', beamtalk_class, _}) ->
    beamtalk_class:instance_methods('Metaclass');
table_of({beamtalk_object, _Tag, beamtalk_class, _} = C) ->
    beamtalk_class:class_side_methods(beamtalk_class:name_of(C));
table_of(V) ->
    beamtalk_class:instance_methods(class_name(V)).

lookup(V, Sel) ->
    maps:find(Sel, table_of(V)).

%% @doc `x respondsTo: #sel`.
responds_to({beamtalk_object, _, Mod, _} = V, Sel) when Mod =/= beamtalk_class ->
    lists:member(Sel, [isAlive, stop, kill, monitor, pid]) orelse maps:is_key(Sel, table_of(V));
responds_to(#{'$beamtalk_class' := 'ErlangModule'} = P, Sel) ->
    %% a module proxy also understands the module's exports (seed ADR 0028)
    maps:is_key(Sel, table_of(P)) orelse 'beamtalk_prim_erlang_module':'respondsTo:'(P, Sel);
responds_to(V, Sel) ->
    maps:is_key(Sel, table_of(V)).

%% @doc `x perform: #sel withArguments: args` (arity checked).
perform(R, Sel, Args) when is_atom(Sel), is_list(Args) ->
    case selector_arity(Sel) =:= length(Args) of
        true -> send(R, Sel, Args);
        false ->
            beamtalk_exception:raise(
              arity_mismatch, class_label(R), Sel,
              iolist_to_binary(io_lib:format(
                                 "Wrong number of arguments for '~ts': expected ~b, got ~b",
                                 [Sel, selector_arity(Sel), length(Args)])), nil)
    end;
perform(R, Sel, Args) when is_atom(Sel) ->
    beamtalk_exception:raise(type_error, class_label(R), 'perform:withArguments:',
                             <<"perform:withArguments: expects a List of arguments">>,
                             nil, #{args => Args});
perform(R, Sel, _Args) ->
    symbol_expected(class_label(R), 'perform:', "a Symbol", Sel).

%% @doc A reflective message given something other than a Symbol where a
%% selector or field name goes (`perform: "size"`, `fieldAt: "x"`, `C >>
%% "foo"`): a TypeError that shows what it got and how to write the Symbol.
%% Without it a String fell through to a raw `function_clause`, or to
%% "has no field 'x'" / "does not define 'foo'" for a name that exists.
symbol_expected(Class, Sel, What, Got) ->
    Msg = iolist_to_binary([atom_to_binary(Sel, utf8), " expects ", What, ", not ",
                            beamtalk_print:print_string(Got)]),
    Hint = case Got of
               <<_, _/binary>> ->
                   case re:run(Got, "^[A-Za-z_][A-Za-z0-9_]*(:([A-Za-z_][A-Za-z0-9_]*:)*)?$",
                               [unicode, {capture, none}]) of
                       match -> iolist_to_binary(["write #", Got, " (a Symbol), or send asSymbol to the String"]);
                       nomatch -> <<"send asSymbol to the String">>
                   end;
               _ -> <<"a selector or field name is a Symbol, such as #size">>
           end,
    beamtalk_exception:raise(type_error, Class, Sel, Msg, Hint).

selector_arity(Sel) ->
    S = atom_to_list(Sel),
    case S of
        [C | _] when (C >= $a andalso C =< $z); (C >= $A andalso C =< $Z); C =:= $_ ->
            length([X || X <- S, X =:= $:]);
        _ -> 1
    end.

to_bin(A) when is_atom(A) -> atom_to_binary(A, utf8);
to_bin(B) when is_binary(B) -> B;
to_bin(T) -> iolist_to_binary(io_lib:format("~tp", [T])).
