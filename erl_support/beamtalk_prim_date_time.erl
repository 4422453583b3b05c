%% @doc DateTime (stdlib §9): a UTC instant to the second as a value object
%% `#{'$beamtalk_class' => 'DateTime', timestamp => EpochSeconds}`.  One
%% integer field makes `<`, `=` and friends (compiled to Erlang's term
%% comparison, spec §6) chronological.  The calendar fields are computed with
%% `calendar`, so dates are checked and months/leap years roll over correctly.
-module(beamtalk_prim_date_time).
-export(['class now'/1, 'class monotonicNow'/1, 'class year:month:day:'/4,
         'class year:month:day:hour:minute:second:'/7, 'class fromTimestamp:'/2,
         'class fromString:'/2,
         'year'/1, 'month'/1, 'day'/1, 'hour'/1, 'minute'/1, 'second'/1,
         'asTimestamp'/1, 'asString'/1, 'printString'/1, 'displayString'/1,
         'addSeconds:'/2, 'addDays:'/2, 'diffSeconds:'/2,
         '<'/2, '>'/2, '<='/2, '>='/2]).

-define(EPOCH, 62167219200).  %% calendar:datetime_to_gregorian_seconds({{1970,1,1},{0,0,0}})

'class now'(_Cls) -> from_seconds(erlang:system_time(second) + ?EPOCH).

'class monotonicNow'(_Cls) -> erlang:monotonic_time(nanosecond).

'class year:month:day:'(Cls, Y, Mo, D) ->
    make(Cls, 'year:month:day:', Y, Mo, D, 0, 0, 0).

'class year:month:day:hour:minute:second:'(Cls, Y, Mo, D, H, Mi, S) ->
    make(Cls, 'year:month:day:hour:minute:second:', Y, Mo, D, H, Mi, S).

make(_Cls, Sel, Y, Mo, D, H, Mi, S) ->
    [int(Sel, X) || X <- [Y, Mo, D, H, Mi, S]],
    case calendar:valid_date(Y, Mo, D) andalso H >= 0 andalso H < 24
        andalso Mi >= 0 andalso Mi < 60 andalso S >= 0 andalso S < 60 of
        true -> new({{Y, Mo, D}, {H, Mi, S}});
        false ->
            beamtalk_exception:raise(runtime_error, 'DateTime', Sel,
                                     iolist_to_binary(["Invalid date and time: ",
                                                       iso(Y, Mo, D, H, Mi, S)]), nil)
    end.

'class fromTimestamp:'(_Cls, T) when is_integer(T) -> from_seconds(T + ?EPOCH);
'class fromTimestamp:'(_Cls, T) when is_float(T) -> from_seconds(floor(T) + ?EPOCH);
'class fromTimestamp:'(_Cls, T) -> type('fromTimestamp:', T, "a Number of seconds").

%% ISO 8601: `2024-02-29`, `2024-02-29T12:34:56` (also with a space, `.fff`
%% fractions dropped), ending in nothing or `Z` (UTC) or `+hh:mm`/`-hh:mm`.
'class fromString:'(Cls, Str) when is_binary(Str) ->
    Re = "^\\s*(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:[.,]\\d+)?)?)?"
         "(Z|z|[+-]\\d{2}(?::?\\d{2})?)?\\s*$",
    case re:run(Str, Re, [{capture, all_but_first, list}]) of
        {match, Parts} ->
            [Y, Mo, D | Rest] = Parts ++ lists:duplicate(7 - length(Parts), ""),
            [H, Mi, S, Zone] = Rest,
            DT = make(Cls, 'fromString:', num(Y), num(Mo), num(D), num(H), num(Mi), num(S)),
            'addSeconds:'(DT, -offset(Zone));
        nomatch ->
            beamtalk_exception:raise(runtime_error, 'DateTime', 'fromString:',
                                     iolist_to_binary(["Invalid ISO 8601 date and time: ",
                                                       beamtalk_print:print_string(Str)]), nil)
    end;
'class fromString:'(_Cls, X) -> type('fromString:', X, "a String").

num("") -> 0;
num(S) -> list_to_integer(S).

offset("") -> 0;
offset([Z]) when Z =:= $Z; Z =:= $z -> 0;
offset([Sign, H1, H2 | M]) ->
    Mins = case [C || C <- M, C =/= $:] of "" -> 0; Ms -> list_to_integer(Ms) end,
    Secs = (list_to_integer([H1, H2]) * 60 + Mins) * 60,
    case Sign of $+ -> Secs; $- -> -Secs end.

'year'(DT) -> {{V, _, _}, _} = parts(DT), V.
'month'(DT) -> {{_, V, _}, _} = parts(DT), V.
'day'(DT) -> {{_, _, V}, _} = parts(DT), V.
'hour'(DT) -> {_, {V, _, _}} = parts(DT), V.
'minute'(DT) -> {_, {_, V, _}} = parts(DT), V.
'second'(DT) -> {_, {_, _, V}} = parts(DT), V.

'asTimestamp'(DT) -> seconds(DT) - ?EPOCH.

'asString'(DT) ->
    {{Y, Mo, D}, {H, Mi, S}} = parts(DT),
    iolist_to_binary([iso(Y, Mo, D, H, Mi, S), $Z]).

%% ISO 8601 text of the parts; a part wider than its field is written whole
%% (io_lib's `~4..0b` writes `****` for it).
iso(Y, Mo, D, H, Mi, S) ->
    [pad(Y, 4), $-, pad(Mo, 2), $-, pad(D, 2), $T, pad(H, 2), $:, pad(Mi, 2), $:, pad(S, 2)].

pad(N, W) when N >= 0 ->
    T = integer_to_list(N),
    [lists:duplicate(max(0, W - length(T)), $0), T];
pad(N, _W) -> integer_to_list(N).

'printString'(DT) -> iolist_to_binary(["DateTime(", 'asString'(DT), ")"]).
'displayString'(DT) -> 'asString'(DT).

'addSeconds:'(DT, N) when is_integer(N) -> from_seconds(seconds(DT) + N);
'addSeconds:'(_DT, N) -> type('addSeconds:', N, "an Integer").

'addDays:'(DT, N) when is_integer(N) -> from_seconds(seconds(DT) + N * 86400);
'addDays:'(_DT, N) -> type('addDays:', N, "an Integer").

'diffSeconds:'(DT, Other) -> seconds(DT) - seconds(other('diffSeconds:', Other)).

'<'(A, B) -> seconds(A) < seconds(other('<', B)).
'>'(A, B) -> seconds(A) > seconds(other('>', B)).
'<='(A, B) -> seconds(A) =< seconds(other('<=', B)).
'>='(A, B) -> seconds(A) >= seconds(other('>=', B)).

%%% helpers

%% ISO 8601's four-digit years, as Python's datetime: `fromString:` could
%% not read a later one back.
new({{Y, _, _}, _}) when Y > 9999 ->
    beamtalk_exception:raise(runtime_error, 'DateTime', undefined,
                             <<"DateTime after year 9999 is not supported">>, nil);
new(DateTime) ->
    #{'$beamtalk_class' => 'DateTime',
      timestamp => calendar:datetime_to_gregorian_seconds(DateTime) - ?EPOCH}.

parts(DT) -> calendar:gregorian_seconds_to_datetime(seconds(DT)).

from_seconds(G) when G < 0 ->
    beamtalk_exception:raise(runtime_error, 'DateTime', undefined,
                             <<"DateTime before year 0 is not supported">>, nil);
from_seconds(G) -> new(calendar:gregorian_seconds_to_datetime(G)).

seconds(#{timestamp := T}) -> T + ?EPOCH.

other(_Sel, #{'$beamtalk_class' := 'DateTime'} = DT) -> DT;
other(Sel, X) -> type(Sel, X, "a DateTime").

int(_Sel, X) when is_integer(X) -> ok;
int(Sel, X) -> type(Sel, X, "Integers").

type(Sel, X, What) ->
    beamtalk_exception:raise(type_error, 'DateTime', Sel,
                             iolist_to_binary(["DateTime ", atom_to_binary(Sel, utf8), " expects ",
                                               What, ", got ", beamtalk_print:print_string(X)]), nil).
