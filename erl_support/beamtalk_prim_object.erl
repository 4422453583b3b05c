%% @doc Primitive methods of Object (stdlib §1).  See
%% beamtalk_prim_protoobject for the naming convention.
-module(beamtalk_prim_object).

-export(['printString'/1, 'displayString'/1, 'asString'/1, 'printNl'/1,
         'displayNl'/1, 'inspect'/1, 'respondsTo:'/2, 'perform:'/2,
         'perform:with:'/3, 'perform:with:with:'/4, 'perform:with:with:with:'/5,
         'isNil'/1, 'notNil'/1, 'ifNil:'/2, 'ifNotNil:'/2, 'ifNil:ifNotNil:'/3,
         'ifNotNil:ifNil:'/3, 'yourself'/1, 'await'/1, 'await:'/2, 'awaitForever'/1, 'whenResolved:'/2, 'whenRejected:'/2, 'hash'/1, 'copy'/1, 'error:'/2,
         'subclassResponsibility'/1, 'notImplemented'/1, 'fieldNames'/1,
         'fieldAt:'/2, 'fieldAt:put:'/3, '->'/2, 'isKindOf:'/2, 'isMemberOf:'/2,
         'isString'/1, 'isSymbol'/1, 'isNumber'/1, 'isInteger'/1, 'isFloat'/1,
         'isBoolean'/1, 'isList'/1, 'isDictionary'/1, 'isBlock'/1, 'isClass'/1,
         'isException'/1, 'isActor'/1, 'value'/1]).

%% Printing never re-dispatches at the top level (a class whose
%% printString is this primitive would loop otherwise).
'printString'(Self) -> beamtalk_print:base_print_string(Self).
'displayString'(Self) -> beamtalk_print:display_string_via_print(Self).
'asString'(Self) -> beamtalk_print:display_string(Self).
'inspect'(Self) -> beamtalk_print:print_string(Self).

'printNl'(Self) ->
    io:put_chars([beamtalk_print:print_string(Self), $\n]),
    Self.

'displayNl'(Self) ->
    io:put_chars([beamtalk_print:display_string(Self), $\n]),
    Self.

'respondsTo:'(Self, Sel) -> beamtalk_send:responds_to(Self, Sel).

'perform:'(Self, Sel) -> beamtalk_send:perform(Self, Sel, []).
'perform:with:'(Self, Sel, A) -> beamtalk_send:perform(Self, Sel, [A]).
'perform:with:with:'(Self, Sel, A, B) -> beamtalk_send:perform(Self, Sel, [A, B]).
'perform:with:with:with:'(Self, Sel, A, B, C) -> beamtalk_send:perform(Self, Sel, [A, B, C]).

'isNil'(_) -> false.
'notNil'(_) -> true.
'ifNil:'(Self, _Block) -> Self.
'ifNotNil:'(Self, Block) -> beamtalk_block:cull(Block, Self).
'ifNil:ifNotNil:'(Self, _NilBlock, Block) -> beamtalk_block:cull(Block, Self).
'ifNotNil:ifNil:'(Self, Block, _NilBlock) -> beamtalk_block:cull(Block, Self).

'yourself'(Self) -> Self.

%% Sends answer values, not futures (spec §9: `await` on a non-future
%% answers it unchanged, so `c increment await` is harmless).
'await'(Self) -> Self.
'await:'(Self, _Ms) -> Self.
'awaitForever'(Self) -> Self.
'whenResolved:'(Self, Block) when is_function(Block) -> _ = beamtalk_block:cull(Block, Self), Self;
'whenResolved:'(_Self, Block) -> callback_type('whenResolved:', Block).
'whenRejected:'(Self, Block) when is_function(Block) -> Self;
'whenRejected:'(_Self, Block) -> callback_type('whenRejected:', Block).

callback_type(Sel, Block) ->
    beamtalk_exception:raise(type_error, 'Object', Sel,
                             iolist_to_binary([atom_to_binary(Sel), " expects a Block, not ",
                                               beamtalk_print:print_string(Block)]), nil).
'hash'(Self) -> erlang:phash2(Self).
'copy'(Self) -> Self.
'value'(Self) -> Self.

'error:'(Self, Message) -> beamtalk_exception:user_error(Self, Message).

'subclassResponsibility'(Self) ->
    beamtalk_exception:user_error(Self, <<"This method is abstract and must be overridden by a subclass">>).

'notImplemented'(Self) ->
    beamtalk_exception:user_error(Self, <<"Method not yet implemented">>).

'fieldNames'(Self) -> beamtalk_object:field_names(Self).
'fieldAt:'(Self, Name) -> beamtalk_object:field_at(Self, Name).
'fieldAt:put:'(Self, Name, Value) -> beamtalk_object:field_at_put(Self, Name, Value).

'->'(Self, Value) -> beamtalk_rt:association(Self, Value).

'isKindOf:'(Self, Cls) ->
    is_class(Cls) andalso
        begin
            Target = beamtalk_class:behaviour(Cls),
            is_kind(beamtalk_class:behaviour(beamtalk_send:class_of(Self)), Target, 0)
        end.

is_kind(B, B, _) -> true;
is_kind(_, _, N) when N > 100 -> false;
is_kind(B, Target, N) ->
    case beamtalk_class:behaviour_super(B) of
        nil -> false;
        S -> is_kind(S, Target, N + 1)
    end.

'isMemberOf:'(Self, Cls) ->
    is_class(Cls) andalso beamtalk_send:class_of(Self) =:= Cls.

is_class({beamtalk_object, _, beamtalk_class, _}) -> true;
is_class(_) -> false.

'isString'(S) -> is_binary(S).
'isSymbol'(S) -> is_atom(S) andalso not lists:member(S, [nil, true, false]).
'isNumber'(N) -> is_number(N).
'isInteger'(N) -> is_integer(N).
'isFloat'(N) -> is_float(N).
'isBoolean'(B) -> is_boolean(B).
'isList'(L) -> is_list(L).
'isDictionary'(M) -> is_map(M) andalso not is_map_key('$beamtalk_class', M).
'isBlock'(F) -> is_function(F).
'isClass'(C) -> is_class(C) andalso element(2, C) =/= 'Metaclass'.
'isException'(E) -> beamtalk_exception:is_exception(E).
'isActor'({beamtalk_object, _, M, _}) -> M =/= beamtalk_class;
'isActor'(_) -> false.
