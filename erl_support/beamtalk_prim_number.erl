%% @doc Primitive methods of Number, shared by Integer and Float (stdlib §3).
%% Infix operators compile to BEAM operations; these definitions are what
%% `perform:` reaches (`42 perform: #+ withArguments: #(3)` is 45).
-module(beamtalk_prim_number).

-compile({no_auto_import, [abs/1]}).

%% The largest Integer float/1 converts (the largest finite Float).
-define(FLOAT_INT_MAX, 179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368).
-export(['+'/2, '-'/2, '*'/2, '/'/2, '<'/2, '>'/2, '<='/2, '>='/2,
         'negated'/1, 'abs'/1, 'min:'/2, 'max:'/2, 'between:and:'/3,
         'isZero'/1, 'isPositive'/1, 'isNegative'/1, 'sign'/1, 'asFloat'/1,
         'asInteger'/1, 'asNumber'/1, 'asString'/1, 'sqrt'/1, 'squared'/1, 'raisedTo:'/2,
         'ln'/1, 'log'/1, 'log10'/1, 'log2'/1, 'exp'/1, 'sin'/1, 'cos'/1, 'tan'/1,
         'asin'/1, 'acos'/1, 'atan'/1, 'atan2:'/2,
         'to:do:'/3, 'to:by:do:'/4, 'to:'/2, 'reciprocal'/1]).
-export(['printShowingDecimalPlaces:'/2]).

'+'(A, B) -> A + B.
'-'(A, B) -> A - B.
'*'(A, B) -> A * B.
'/'(A, B) -> A / B.
'<'(A, B) -> A < B.
'>'(A, B) -> A > B.
'<='(A, B) -> A =< B.
'>='(A, B) -> A >= B.

'negated'(N) -> -N.
%% erlang:abs(-0.0) keeps the sign (-0.0); IEEE, Pharo and Python clear it.
'abs'(N) when is_float(N), N == 0 -> 0.0;
'abs'(N) -> erlang:abs(N).
'min:'(A, B) -> erlang:min(A, B).
'max:'(A, B) -> erlang:max(A, B).
'between:and:'(N, Lo, Hi) -> N >= Lo andalso N =< Hi.
'isZero'(N) -> N == 0.
'isPositive'(N) -> N > 0.
'isNegative'(N) -> N < 0.
'sign'(N) when N > 0 -> 1;
'sign'(N) when N < 0 -> -1;
'sign'(_) -> 0.
'asFloat'(N) -> float(N).
'asInteger'(N) when is_integer(N) -> N;
'asInteger'(N) -> trunc(N).
'asNumber'(N) -> N.
'asString'(N) -> beamtalk_print:base_print_string(N).
'sqrt'(N) when is_integer(N), N > ?FLOAT_INT_MAX -> big_sqrt(N);
'sqrt'(N) when N >= 0 -> math:sqrt(N);
'sqrt'(N) -> outside(sqrt, ">= 0", N).
'squared'(N) -> N * N.
'raisedTo:'(A, B) when is_integer(A), is_integer(B), B >= 0 -> ipow(A, B, 1);
'raisedTo:'(A, B) when is_number(B) -> math:pow(A, B);
'raisedTo:'(A, B) ->
    Class = beamtalk_send:class_name(A),
    beamtalk_rt:type_error(Class, 'raisedTo:', B, "a Number",
                           iolist_to_binary(["Type error in 'raisedTo:' on ", atom_to_binary(Class, utf8)])).
'ln'(N) when is_integer(N), N > ?FLOAT_INT_MAX -> big_log(fun math:log/1, math:log(2), N);
'ln'(N) when N > 0 -> math:log(N);
'ln'(N) -> outside(ln, "> 0", N).
'log'(N) when is_integer(N), N > ?FLOAT_INT_MAX -> big_log(fun math:log/1, math:log(2), N);
'log'(N) when N > 0 -> math:log(N);
'log'(N) -> outside(log, "> 0", N).
'log10'(N) when is_integer(N), N > ?FLOAT_INT_MAX -> big_log(fun math:log10/1, math:log10(2), N);
'log10'(N) when N > 0 -> math:log10(N);
'log10'(N) -> outside(log10, "> 0", N).
'log2'(N) when is_integer(N), N > ?FLOAT_INT_MAX -> big_log(fun math:log2/1, 1, N);
'log2'(N) when N > 0 -> math:log2(N);
'log2'(N) -> outside(log2, "> 0", N).
'exp'(N) -> math:exp(N).
'sin'(N) -> math:sin(N).
'cos'(N) -> math:cos(N).
'tan'(N) -> math:tan(N).
'reciprocal'(N) -> 1 / N.

%% Integers beyond the largest Float (about 1.8e308) cannot go through
%% math: (`float/1` fails with a bare badarith), yet their square roots
%% and logarithms are ordinary Floats: take them exactly on the Integer.
big_sqrt(N) ->
    R = isqrt(N, N bsr (bit_length(N) div 2)),
    try float(R)
    catch error:badarg ->
        beamtalk_exception:raise(runtime_error, 'Integer', sqrt,
                                 iolist_to_binary(["sqrt of ", digits_text(N),
                                                   " is too large for a Float"]), nil)
    end.

%% A long Integer in a message: its first and last ten digits and its length.
digits_text(N) ->
    D = integer_to_binary(N),
    <<First:10/binary, _/binary>> = D,
    Last = binary:part(D, byte_size(D) - 10, 10),
    [First, <<"…"/utf8>>, Last, " (", integer_to_binary(byte_size(D)), " digits)"].

%% Newton's iteration from above converges to floor(sqrt(N)).
isqrt(N, X) ->
    Y = (X + N div X) div 2,
    if Y >= X -> X; true -> isqrt(N, Y) end.

%% log N = log(N / 2^K) + K log 2, with N / 2^K well inside the Float range
%% (Log is the logarithm to the base wanted, Log2 its value at 2).
big_log(Log, Log2, N) ->
    K = bit_length(N) - 1000,
    Log(N bsr K) + K * Log2.

bit_length(N) -> bit_length(N, 0).
bit_length(0, L) -> L;
bit_length(N, L) when N >= 1 bsl 64 -> bit_length(N bsr 64, L + 64);
bit_length(N, L) -> bit_length(N bsr 1, L + 1).

ipow(_, 0, Acc) -> Acc;
ipow(A, B, Acc) when B rem 2 =:= 1 -> ipow(A * A, B div 2, Acc * A);
ipow(A, B, Acc) -> ipow(A * A, B div 2, Acc).

'to:do:'(From, To, Block) -> beamtalk_block:to_do(From, To, Block).
'to:by:do:'(From, To, Step, Block) -> beamtalk_block:to_by_do(From, To, Step, Block).
'to:'(From, To) when is_integer(From), is_integer(To) -> lists:seq(From, max(To, From - 1)).

%% Inverse trigonometry (stdlib §3).  Outside [-1, 1] asin and acos have no
%% real value: say so, rather than the bare `badarith` math: gives.
'asin'(F) when F >= -1, F =< 1 -> math:asin(F);
'asin'(F) -> domain(asin, F).
'acos'(F) when F >= -1, F =< 1 -> math:acos(F);
'acos'(F) -> domain(acos, F).
'atan'(F) -> math:atan(F).
'atan2:'(Y, X) when is_number(X) -> math:atan2(Y, X);
'atan2:'(Y, X) ->
    beamtalk_exception:raise(type_error, beamtalk_send:class_name(Y), 'atan2:',
                             iolist_to_binary(["atan2: expects a Number, not ",
                                               beamtalk_print:print_string(X)]), nil).

%% Square roots and logarithms of numbers they have no real value for:
%% the bare `badarith` of math: said nothing about which operand was wrong.
outside(Sel, Bound, N) ->
    beamtalk_exception:raise(runtime_error, beamtalk_send:class_name(N), Sel,
                             iolist_to_binary([atom_to_binary(Sel), " is defined for numbers ", Bound,
                                               ", not ", beamtalk_print:print_string(N)]), nil).

domain(Sel, F) ->
    beamtalk_exception:raise(runtime_error, beamtalk_send:class_name(F), Sel,
                             iolist_to_binary([atom_to_binary(Sel), " is defined on [-1, 1], not ",
                                               beamtalk_print:print_string(F)]), nil).

%% @doc Fixed decimals, as Python's `f"{x:.{n}f}"`: float_to_binary/2 rounds
%% the exact binary value (an exact tie away from zero, as `roundTo:`), but
%% refuses Floats past about 1e253 or more than 253 decimals, which io_lib's
%% `~f` still writes.
'printShowingDecimalPlaces:'(N, D) when is_integer(N), is_integer(D), D =:= 0 -> integer_to_binary(N);
'printShowingDecimalPlaces:'(N, D) when is_integer(N), is_integer(D), D > 0 ->
    <<(integer_to_binary(N))/binary, ".", (binary:copy(<<"0">>, D))/binary>>;
'printShowingDecimalPlaces:'(F, D) when is_float(F), is_integer(D), D >= 0 ->
    try float_to_binary(F, [{decimals, D}])
    catch error:badarg when D =:= 0 -> float_to_binary(float(round(F)), [{decimals, 0}]);
          error:badarg -> iolist_to_binary(io_lib:format("~.*f", [D, F]))
    end.
