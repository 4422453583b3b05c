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
%% Rounding to 0.01 as round(F / Q) * Q multiplies by a binary 0.01 again,
%% and one result in eight then prints with a tail (`0.57 roundTo: 0.01` was
%% 0.5700000000000001), though `(x roundTo: 0.01) printString` is the way to
%% show two decimals.  Where Q is 1/N for an integer N, dividing by N gives
%% the Float nearest the decimal instead.
'roundTo:'(F, Q) ->
    R = 1 / Q,
    N = round(R),
    case N =/= 0 andalso abs(R - N) =< 1.0e-9 * abs(R) of
        true -> round(F * N) / N;
        false -> round(F / Q) * Q
    end.
