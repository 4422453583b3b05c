%% @doc The hint of a "Class 'X' not found" error: the Beamtalk way to say
%% what another Smalltalk's class does (`OrderedCollection` -> List), or
%% the known name closest to a misspelt one (`Dictonary` -> Dictionary).
%% Only the error path calls it.
-module(beamtalk_class_hint).
-export([hint/1, distance/2]).

-spec hint(atom() | binary()) -> binary() | nil.
hint(Name) ->
    N = if is_atom(Name) -> atom_to_binary(Name, utf8); true -> Name end,
    case elsewhere(N) of
        nil ->
            case nearest(N) of
                nil -> variable_like(N);
                Near -> Near
            end;
        Text -> Text
    end.

%% `X = 1`, `Acc + 1`: an Erlang variable (upper-case, short) read as a class.
variable_like(N) when byte_size(N) =< 3 ->
    Lower = string:lowercase(N),
    <<"no class is named ", N/binary, ": a name starting with an upper-case letter is a class; a variable "
      "starts with a lower-case letter and is assigned with := (", Lower/binary, " := 1)">>;
variable_like(_) -> nil.

%% Classes of Pharo and Squeak that Beamtalk spells differently.
elsewhere(<<"OrderedCollection">>) ->
    <<"Beamtalk has no OrderedCollection: a List (#(1, 2), List new) is the growable sequence; add: answers a new List">>;
elsewhere(<<"SortedCollection">>) ->
    <<"Beamtalk has no SortedCollection: sort a List with sort or sort: [:a :b | a <= b]">>;
elsewhere(<<"Bag">>) ->
    <<"Beamtalk has no Bag: count with a Dictionary (d at: k put: (d at: k ifAbsent: [0]) + 1)">>;
elsewhere(<<"Smalltalk">>) ->
    <<"the system is Beamtalk (Beamtalk version) and the session's globals are in Workspace">>;
elsewhere(<<"ZeroDivide">>) ->
    <<"division by zero raises a RuntimeError whose message is badarith: [1 / 0] on: RuntimeError do: [:e | ...]">>;
elsewhere(<<"MessageNotUnderstood">>) ->
    <<"a failed send raises a RuntimeError of kind #does_not_understand: on: RuntimeError do: [:e | e kind]">>;
elsewhere(S) when S =:= <<"SubscriptOutOfBounds">>; S =:= <<"IndexOutOfBounds">> ->
    <<"an index outside the collection raises a RuntimeError of kind #index_out_of_bounds: "
      "on: RuntimeError do: [:e | ...]">>;
elsewhere(S) when S =:= <<"KeyNotFound">>; S =:= <<"NotFound">> ->
    <<"a missing key raises a RuntimeError: on: RuntimeError do: [:e | ...], or answer a default with "
      "at: key ifAbsent: [...]">>;
elsewhere(S) when S =:= <<"Warning">>; S =:= <<"Notification">> ->
    <<"Beamtalk has no Warning: make one with Error subclass: MyWarning, signal it and catch it with "
      "on: MyWarning do: [:e | ...]">>;
%% A WriteStream is how Pharo builds text; reading streams do not do that.
elsewhere(S) when S =:= <<"WriteStream">>; S =:= <<"ReadWriteStream">> ->
    <<"Beamtalk has no WriteStream: build a String with ++ or join: (#(\"a\", \"b\") join: \", \"), "
      "a List with add: or collect:">>;
elsewhere(<<"ReadStream">>) ->
    <<"streams come from their collection: #(1, 2, 3) stream, \"text\" stream">>;
elsewhere(S) when S =:= <<"Date">>; S =:= <<"Time">>; S =:= <<"DateAndTime">>; S =:= <<"Timestamp">> ->
    <<"dates and times are DateTime values (DateTime now)">>;
elsewhere(S) when S =:= <<"Delay">>; S =:= <<"Sleep">>; S =:= <<"Thread">> ->
    <<"Beamtalk has no Delay: Erlang timer sleep: 1000 waits a second in the calling process">>;
elsewhere(S) when S =:= <<"None">>; S =:= <<"Null">>; S =:= <<"NULL">>; S =:= <<"Nil">>;
                  S =:= <<"Undefined">> ->
    <<"the missing value is nil (lower case), an UndefinedObject">>;
elsewhere(S) when S =:= <<"Math">>; S =:= <<"Maths">> ->
    <<"arithmetic is sent to the numbers themselves (2 sqrt, 3 max: 4, x abs); Erlang math pi for constants">>;
elsewhere(S) when S =:= <<"Console">>; S =:= <<"System.out">>; S =:= <<"Stdout">> ->
    <<"print with x printNl, or write text with Transcript show: \"text\"; cr">>;
elsewhere(_) -> nil.

%% A known class or global whose name differs only in case, or by at most
%% two edits (one for short names).
nearest(N) ->
    Known = [atom_to_binary(K, utf8) || K <- beamtalk_class:all_names()]
        ++ [atom_to_binary(K, utf8) || K <- maps:keys(beamtalk_class:globals()), is_atom(K)],
    Lower = string:lowercase(N),
    Scored = [{case string:lowercase(K) of Lower -> 0; LK -> distance(Lower, LK) end, K}
              || K <- lists:usort(Known), K =/= N],
    Limit = case byte_size(N) < 5 of true -> 1; false -> 2 end,
    case lists:sort([S || {D, _} = S <- Scored, D =< Limit]) of
        [{_, Best} | _] -> <<"did you mean ", Best/binary, "?">>;
        [] -> nil
    end.

%% @doc Levenshtein distance of two short binaries (also beamtalk_selector_hint's).
distance(A, B) ->
    Bs = binary_to_list(B),
    First = lists:seq(0, length(Bs)),
    {_, Last} = lists:foldl(
                  fun(Ca, {I, Prev}) ->
                          {I + 1, row(Ca, Bs, Prev, [I + 1])}
                  end, {0, First}, binary_to_list(A)),
    lists:last(Last).

row(_Ca, [], _Prev, Acc) -> lists:reverse(Acc);
row(Ca, [Cb | Bs], [Diag, Up | Prev], [Left | _] = Acc) ->
    Cost = case Ca =:= Cb of true -> 0; false -> 1 end,
    row(Ca, Bs, [Up | Prev], [min(min(Up + 1, Left + 1), Diag + Cost) | Acc]).
