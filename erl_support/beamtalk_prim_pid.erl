%% @doc Primitive methods of Pid (interop; seed ADR 0028 phase 2).
-module(beamtalk_prim_pid).

-export(['isAlive'/1, 'asString'/1]).

'isAlive'(P) -> beamtalk_actor:is_alive(P).
'asString'(P) -> beamtalk_print:print_string(P).
