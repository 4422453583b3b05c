%% @doc Primitive methods of ProtoObject, the root (stdlib §1): the minimal
%% protocol every object - including Erlang module proxies - answers.
%%
%% Convention of all `beamtalk_prim_*` modules: an exported function named
%% like a selector is an instance method (`'at:put:'(Self, K, V)`); one named
%% `'class <selector>'` is a class-side method (Self is the class object).
%% beamtalk_bootstrap builds the method tables from the exports, and the
%% Beamtalk stdlib can call the same functions from `@primitive` bodies.
-module(beamtalk_prim_proto_object).

-export(['class'/1, '=='/2, '/='/2, '=:='/2, '=/='/2, '='/2, '~='/2,
         'doesNotUnderstand:args:'/3, 'perform:withArguments:'/3]).

'class'(Self) -> beamtalk_send:class_of(Self).

'=='(A, B) -> A == B.
'/='(A, B) -> A /= B.
'~='(A, B) -> A /= B.
'=:='(A, B) -> A =:= B.
'=/='(A, B) -> A =/= B.
'='(A, B) -> A =:= B.

%% @doc The default: raise the does-not-understand error.
'doesNotUnderstand:args:'(Self, Sel, _Args) ->
    beamtalk_exception:dnu(beamtalk_send:class_label(Self), Sel).

'perform:withArguments:'(Self, Sel, Args) ->
    beamtalk_send:perform(Self, Sel, Args).
