%% @doc System (stdlib §9): class-side access to the host environment.
%% Names may be Strings or Symbols; values come back as UTF-8 Strings.
-module(beamtalk_prim_system).
-export(['class getEnv:'/2, 'class getEnv:default:'/3, 'class osPlatform'/1,
         'class osFamily'/1, 'class architecture'/1, 'class hostname'/1,
         'class erlangVersion'/1, 'class pid'/1]).

'class getEnv:'(Cls, Name) -> 'class getEnv:default:'(Cls, Name, nil, 'getEnv:').

'class getEnv:default:'(Cls, Name, Default) ->
    'class getEnv:default:'(Cls, Name, Default, 'getEnv:default:').

'class getEnv:default:'(_Cls, Name, Default, Sel) ->
    case os:getenv(env_name(Name, Sel)) of
        false -> Default;
        Value -> unicode:characters_to_binary(Value)
    end.

env_name(Name, _Sel) when is_binary(Name), Name =/= <<>> -> unicode:characters_to_list(Name);
env_name(Name, _Sel) when is_atom(Name), Name =/= nil, Name =/= true, Name =/= false ->
    atom_to_list(Name);
env_name(_Name, Sel) ->
    beamtalk_exception:raise(type_error, 'System', Sel,
                             iolist_to_binary(["System ", atom_to_binary(Sel, utf8),
                                               " expects a non-empty String or Symbol name"]), nil).

'class osPlatform'(_Cls) ->
    case os:type() of
        {win32, _} -> win32;
        {unix, Name} -> Name;
        {_, Name} -> Name
    end.

'class osFamily'(_Cls) ->
    case os:type() of
        {win32, _} -> win32;
        {Family, _} -> Family
    end.

'class architecture'(_Cls) ->
    unicode:characters_to_binary(erlang:system_info(system_architecture)).

'class hostname'(_Cls) ->
    {ok, Name} = inet:gethostname(),
    unicode:characters_to_binary(Name).

'class erlangVersion'(_Cls) ->
    unicode:characters_to_binary(erlang:system_info(otp_release)).

'class pid'(_Cls) -> list_to_integer(os:getpid()).
