%% @doc Primitive methods of CompiledMethod, the value `C >> #sel` answers:
%% `#{'$beamtalk_class' => 'CompiledMethod', selector, source, doc,
%% argumentCount, class}` (spec semantics §3.5).
-module(beamtalk_prim_compiled_method).

-export(['selector'/1, 'source'/1, 'doc'/1, 'argumentCount'/1, 'methodClass'/1,
         'asString'/1]).

'selector'(#{selector := S}) -> S.
'source'(#{source := S}) -> S.
'doc'(#{doc := D}) -> D.
'argumentCount'(#{selector := S}) -> beamtalk_send:selector_arity(S).
'methodClass'(#{class := C}) -> beamtalk_class:class_object(C).
'asString'(M) -> beamtalk_print:print_string(M).
