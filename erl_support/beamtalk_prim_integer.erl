%% @doc Primitive methods of Integer (stdlib §3).
-module(beamtalk_prim_integer).

-compile({no_auto_import, [floor/1]}).
-export(['isEven'/1, 'isOdd'/1, 'factorial'/1, 'gcd:'/2, 'lcm:'/2, 'div:'/2,
         'rem:'/2, '%'/2, '**'/2, 'bitAnd:'/2, 'bitOr:'/2, 'bitXor:'/2,
         'bitShift:'/2, 'bitNot'/1, 'timesRepeat:'/2, 'printString:'/2,
         'isPrime'/1, 'roundTo:'/2, 'rounded'/1, 'truncated'/1, 'floor'/1, 'ceiling'/1,
         'asCharacter'/1, 'uppercase'/1, 'lowercase'/1]).
-export(['printPaddedWith:to:'/3]).
-export(['isLetter'/1, 'isUppercase'/1, 'isLowercase'/1, 'isWhitespace'/1]).

'isEven'(N) -> N rem 2 =:= 0.
'isOdd'(N) -> N rem 2 =/= 0.

'factorial'(N) when N < 0 ->
    beamtalk_exception:user_error(N, <<"factorial is not defined for negative integers">>);
'factorial'(N) -> fact(N, 1).

fact(0, Acc) -> Acc;
fact(N, Acc) -> fact(N - 1, Acc * N).

'gcd:'(A, B) when is_integer(B) -> gcd(abs(A), abs(B)).
gcd(A, 0) -> A;
gcd(A, B) -> gcd(B, A rem B).

'lcm:'(_, 0) -> 0;
'lcm:'(0, _) -> 0;
'lcm:'(A, B) when is_integer(B) -> abs(A * B) div gcd(abs(A), abs(B)).

'div:'(A, B) -> A div B.
'rem:'(A, B) -> A rem B.
'%'(A, B) -> A rem B.
'**'(A, B) -> round(math:pow(float(A), float(B))).
%% Integer arguments only (the guards): another one is a TypeError naming
%% it (beamtalk_bad_arg), not the bare badarith of band/bsl.
'bitAnd:'(A, B) when is_integer(B) -> A band B.
'bitOr:'(A, B) when is_integer(B) -> A bor B.
'bitXor:'(A, B) when is_integer(B) -> A bxor B.
'bitShift:'(A, B) when is_integer(B), B >= 0 -> A bsl B;
'bitShift:'(A, B) when is_integer(B) -> A bsr (-B).
'bitNot'(A) -> bnot A.

'timesRepeat:'(N, Block) -> beamtalk_block:times_repeat(N, Block).

'printString:'(N, Radix) when is_integer(Radix), Radix >= 2, Radix =< 36 ->
    integer_to_binary(N, Radix);
'printString:'(_N, Radix) ->
    beamtalk_exception:raise(type_error, 'Integer', 'printString:',
                             <<"Type error in 'printString:' on Integer">>,
                             iolist_to_binary(["'printString:' takes a base from 2 to 36; this one is ",
                                               beamtalk_rt:arg_text(Radix)])).

%% Trial division by the primes below 400 settles every N below 400^2 and
%% most composites; the rest go to Miller-Rabin.  Trial division alone ran
%% past the 30 s timeout for a 27-digit prime (2^89 - 1).  The first 13
%% prime bases make the test exact below 3.3e24 (Sorenson and Webster);
%% above that all 78 bases are used: a probable-prime test, as Python's
%% sympy and Pharo's isProbablyPrime are.
'isPrime'(N) when N < 2 -> false;
'isPrime'(N) ->
    Small = small_primes(),
    case [P || P <- Small, N rem P =:= 0] of
        [P | _] -> N =:= P;
        [] when N < 160000 -> true;
        [] when N < 3317044064679887385961981 -> miller_rabin(N, lists:sublist(Small, 13));
        [] -> miller_rabin(N, Small)
    end.

small_primes() ->
    [P || P <- lists:seq(2, 399), lists:all(fun(D) -> P rem D =/= 0 end, lists:seq(2, P - 1))].

miller_rabin(N, Bases) ->
    {D, S} = odd_part(N - 1, 0),
    lists:all(fun(A) -> strong_probable_prime(N, A, D, S) end, Bases).

odd_part(D, S) when D rem 2 =:= 0 -> odd_part(D div 2, S + 1);
odd_part(D, S) -> {D, S}.

strong_probable_prime(N, A, D, S) ->
    case pow_mod(A, D, N) of
        1 -> true;
        X -> squares_reach(N, X, S - 1)
    end.

squares_reach(N, X, _) when X =:= N - 1 -> true;
squares_reach(_, _, 0) -> false;
squares_reach(N, X, K) -> squares_reach(N, X * X rem N, K - 1).

pow_mod(_, 0, _) -> 1;
pow_mod(B, E, M) when E rem 2 =:= 1 -> B * pow_mod(B, E - 1, M) rem M;
pow_mod(B, E, M) -> H = pow_mod(B, E div 2, M), H * H rem M.

%% Pharo's Number>>roundTo: on an Integer: the multiple of Q nearest N,
%% halves away from zero as Float rounded does; exact for big Integers.
'roundTo:'(N, Q) when is_integer(Q), Q =/= 0 ->
    A = erlang:abs(Q),
    D = N div A,
    Near = case 2 * erlang:abs(N rem A) >= A of
               true when N < 0 -> D - 1;
               true -> D + 1;
               false -> D
           end,
    Near * A;
'roundTo:'(N, Q) when is_float(Q), Q /= 0 -> beamtalk_prim_float:'roundTo:'(N, Q).

'rounded'(N) -> N.
'truncated'(N) -> N.
'floor'(N) -> N.
'ceiling'(N) -> N.

%% Characters are code points (spec §7): a one-character String.
%% A number that is no code point (a surrogate, negative, past 16r10FFFF)
%% answered unicode's raw `{error, <<>>, [N]}` as if it were a value.
'asCharacter'(N) when N >= 0, N =< 16#10FFFF, not (N >= 16#D800 andalso N =< 16#DFFF) ->
    unicode:characters_to_binary([N]);
'asCharacter'(N) ->
    beamtalk_exception:raise(type_error, 'Integer', 'asCharacter',
                             iolist_to_binary(["asCharacter needs a code point: an Integer in 0..1114111 "
                                               "outside the surrogates 55296..57343, not ",
                                               integer_to_binary(N)]), nil).

%% Character tests of a code point, Unicode's (beamtalk_unicode).
'isLetter'(N) -> beamtalk_unicode:is_letter(N).
'isUppercase'(N) -> beamtalk_unicode:is_upper(N).
'isLowercase'(N) -> beamtalk_unicode:is_lower(N).
'isWhitespace'(N) -> beamtalk_unicode:is_whitespace(N).

%% Case mapping of a code point (stdlib §3, Character); a mapping that is
%% not one code point (German sharp s upper-cases to "SS") keeps the receiver.
'uppercase'(N) -> case_map(N, fun string:uppercase/1).
'lowercase'(N) -> case_map(N, fun string:lowercase/1).

case_map(N, F) when N >= 0, N =< 16#10FFFF, not (N >= 16#D800 andalso N =< 16#DFFF) ->
    case F([N]) of
        [C] when is_integer(C) -> C;
        _ -> N
    end;
case_map(N, _F) -> N.

%% @doc Pharo's zero padding: the digits padded to the width after the sign.
'printPaddedWith:to:'(N, <<_/utf8>> = Pad, W) when is_integer(W) ->
    padded(N, Pad, W);
'printPaddedWith:to:'(N, C, W) when is_integer(C), C >= 0, C =< 16#10FFFF, is_integer(W),
                                    not (C >= 16#D800 andalso C =< 16#DFFF) ->
    padded(N, <<C/utf8>>, W).

padded(N, Pad, W) ->
    {Sign, Digits} = case N < 0 of
                         true -> {<<"-">>, integer_to_binary(-N)};
                         false -> {<<>>, integer_to_binary(N)}
                     end,
    Missing = max(0, W - byte_size(Sign) - byte_size(Digits)),
    <<Sign/binary, (binary:copy(Pad, Missing))/binary, Digits/binary>>.
