%% The hand-written equivalent of the 5-method class of bench_runtime.py.
-module(bench_five).
-export([new/0, x/1, y/1, sum/1, scaled/2, describe/1]).
new() -> #{x => 3, y => 4}.
x(#{x := X}) -> X.
y(#{y := Y}) -> Y.
sum(#{x := X, y := Y}) -> X + Y.
scaled(#{x := X, y := Y} = P, K) -> P#{x := X * K, y := Y * K}.
describe(P) -> case sum(P) > 10 of true -> big; false -> small end.
