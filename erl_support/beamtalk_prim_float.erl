%% @doc Primitive methods of Float (stdlib §3).
-module(beamtalk_prim_float).

-compile({no_auto_import, [floor/1]}).
-export(['rounded'/1, 'ceiling'/1, 'floor'/1, 'truncated'/1, 'asInteger'/1,
         'isNaN'/1, 'isInfinite'/1, 'fractionPart'/1, 'integerPart'/1,
         'roundTo:'/2]).

'rounded'(F) -> round(F).
'ceiling'(F) -> ceil(F).
'floor'(F) -> erlang:floor(F).
'truncated'(F) -> trunc(F).
'asInteger'(F) -> trunc(F).
'isNaN'(_) -> false.
'isInfinite'(_) -> false.
'fractionPart'(F) -> F - trunc(F).
'integerPart'(F) -> float(trunc(F)).
'roundTo:'(F, Q) -> round(F / Q) * Q.
