%% @doc Beamtalk that changes Beamtalk: the primitives behind
%% `Workspace load:`/`watch:`/`unwatch:`/`watches`, `Counter reload`,
%% `Counter compile: "..."` and `Counter removeSelector: #sel`.
%%
%% They call the Erlang API of `beamtalk` (which answers `{error, Text}`)
%% and turn an error into a Beamtalk exception carrying that text, so a
%% compile error shows its file, line and caret like any REPL error.
-module(beamtalk_live).

-export([load/1, reload/1, compile/2, remove_selector/2, watch/1, unwatch/1, watches/0]).

%% @doc `Workspace load: path` answers nil (spec stdlib §10).
load(Path) ->
    check_string(Path, 'WorkspaceInterface', 'load:'),
    ok_or_raise(beamtalk:load(Path), 'WorkspaceInterface', 'load:'),
    nil.

%% @doc `Counter reload`: answers the class.
reload(Self) ->
    Name = beamtalk_class:name_of(Self),
    ok_or_raise(beamtalk:reload(Name), Name, reload),
    beamtalk_class:class_object(Name).

%% @doc `Counter compile: "sel => body"` (on a metaclass: a class-side
%% method); answers the selector.
compile(Self, Source) ->
    {ClassSide, Name} = side(Self),
    check_string(Source, Name, 'compile:'),
    ok_or_raise(beamtalk:compile_method(Name, ClassSide, Source), Name, 'compile:').

%% @doc `Counter removeSelector: #sel`: answers the receiver.
remove_selector(Self, Sel) when is_atom(Sel) ->
    {ClassSide, Name} = side(Self),
    beamtalk_class:remove_method(Name, Sel, ClassSide),
    Self;
remove_selector(Self, _) ->
    beamtalk_exception:raise(type_error, beamtalk_class:name_of(Self), 'removeSelector:',
                             <<"removeSelector: expects a Symbol">>, <<"Write #selector">>).

watch(Path) ->
    check_string(Path, 'WorkspaceInterface', 'watch:'),
    ok_or_raise(beamtalk:watch(Path), 'WorkspaceInterface', 'watch:'),
    nil.

unwatch(Path) ->
    check_string(Path, 'WorkspaceInterface', 'unwatch:'),
    ok_or_raise(beamtalk:unwatch(Path), 'WorkspaceInterface', 'unwatch:'),
    nil.

%% @doc The watched paths, as Strings.
watches() -> [P || #{path := P} <- beamtalk:watches()].

side(Self) ->
    case beamtalk_class:behaviour(Self) of
        {meta, N} -> {true, N};
        {class, N} -> {false, N}
    end.

check_string(S, _Class, _Sel) when is_binary(S) -> ok;
check_string(_, Class, Sel) ->
    beamtalk_exception:raise(type_error, Class, Sel,
                             iolist_to_binary([atom_to_binary(Sel), " expects a String"]), nil).

ok_or_raise(ok, _Class, _Sel) -> ok;
ok_or_raise({ok, V}, _Class, _Sel) -> V;
ok_or_raise({error, Text}, Class, Sel) ->
    beamtalk_exception:raise(runtime_error, Class, Sel, Text, nil).
