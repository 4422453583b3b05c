%% @doc FileHandle (stdlib §9): the value `File open:do:` gives its block
%% (see beamtalk_prim_file).
-module(beamtalk_prim_file_handle).
-export(['readLines'/1, 'path'/1, 'printString'/1, 'displayString'/1]).

'readLines'(H) -> beamtalk_prim_file:handle_lines(H).
'path'(#{path := P}) -> P.
'printString'(H) -> beamtalk_prim_file:handle_print(H).
'displayString'(H) -> 'printString'(H).
