%% @doc Primitive methods of Symbol (atoms; stdlib §5).
-module(beamtalk_prim_symbol).

-export(['asString'/1, 'asSymbol'/1, 'asAtom'/1, 'size'/1, 'numArgs'/1,
         'value:'/2, 'value:value:'/3, '<'/2, '>'/2]).

'asString'(S) -> atom_to_binary(S, utf8).
'asSymbol'(S) -> S.
'asAtom'(S) -> S.
'size'(S) -> string:length(atom_to_binary(S, utf8)).
'numArgs'(S) -> beamtalk_send:selector_arity(S).
%% A symbol used as a one-argument block sends itself: `list collect: #size`.
'value:'(S, X) -> beamtalk_send:send(X, S, []).
'value:value:'(S, X, Y) -> beamtalk_send:send(X, S, [Y]).
'<'(A, B) -> A < B.
'>'(A, B) -> A > B.
