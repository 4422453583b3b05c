%% @doc Small runtime helpers that generated code calls where no single
%% Erlang operation expresses the Beamtalk meaning.
-module(beamtalk_rt).
-export([concat/2, array_from_list/1]).

%% @doc `a ++ b`: list append for lists, binary concatenation for strings.
concat(A, B) when is_list(A) -> A ++ B;
concat(A, B) when is_binary(A), is_binary(B) -> <<A/binary, B/binary>>;
concat(A, B) -> erlang:error(badarg, [A, B]).

%% @doc `#[a, b]`: an Array value wrapping an Erlang array.
array_from_list(L) ->
    #{'$beamtalk_class' => 'Array', elements => array:from_list(L)}.
