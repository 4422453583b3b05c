%% @doc Where a test failed, as `File:Line`, for the reports of BUnit
%% (an ExUnit or pytest user looks for the line of the failing assertion).
%%
%% The first frame of the exception's stack that is in a method of a user
%% class loaded from a `.bt` file names the line.  A test method's last
%% statement is compiled as no tail call (kept/1), so its frame is there
%% when the failing assertion is the last line too.  When no frame names a
%% line (the failure came from a process of its own, say), the line is the
%% test method's header (its class's method info), which still says which
%% test and which file.  Tests of classes typed at the REPL have no file:
%% no location.
-module(beamtalk_test_location).
-export([find/3, kept/1, user_frame/1]).

-spec find(atom(), atom(), list()) -> binary() | nil.
find(Class, Sel, Stack) ->
    case first_user_frame(Stack) of
        nil -> method_header(Class, Sel);
        Loc -> Loc
    end.

first_user_frame(Stack) ->
    case user_frame(Stack) of
        {_M, _F, _A, Loc} -> text(proplists:get_value(file, Loc), proplists:get_value(line, Loc));
        nil -> nil
    end.

%% @doc The first frame of Stack in a method of a user class loaded from a
%% `.bt` file, with a line (also what the REPL's error block names as the
%% error's Location, beamtalk_errors:format/1), or nil.
-spec user_frame(term()) -> tuple() | nil.
user_frame([{M, _F, _A, Loc} = Frame | Rest]) when is_list(Loc) ->
    case {proplists:get_value(file, Loc), proplists:get_value(line, Loc)} of
        {File, Line} when is_list(File), is_integer(Line), Line > 0 ->
            case filename:extension(File) =:= ".bt" andalso is_user_module(M) of
                true -> Frame;
                false -> user_frame(Rest)
            end;
        _ -> user_frame(Rest)
    end;
user_frame([_ | Rest]) ->
    user_frame(Rest);
user_frame(_) ->
    nil.

%% A module of a class that is not the stdlib's.
is_user_module(M) ->
    lists:any(fun(N) ->
                      case beamtalk_class:class_info(N) of
                          #{module := Mod} when Mod =:= M ->
                              case beamtalk_class:entry(N) of
                                  #{stdlib := true} -> false;
                                  _ -> true
                              end;
                          _ -> false
                      end
              end, beamtalk_class:all_names()).

%% The header line of Sel in the first class of Class's chain that defines
%% it, with that class's source file.
method_header(Class, Sel) when is_atom(Class), Class =/= nil ->
    case beamtalk_class:entry(Class) of
        #{method_info := MI} = E ->
            case {maps:get({Sel, false}, MI, nil), maps:get(source_file, E, undefined)} of
                {#{line := Line}, File} when is_integer(Line), (is_binary(File) orelse is_list(File)) ->
                    text(File, Line);
                {nil, _} -> method_header(super(Class), Sel);
                _ -> nil
            end;
        _ -> nil
    end;
method_header(_, _) ->
    nil.

super(Class) ->
    case beamtalk_class:class_info(Class) of
        #{superclass := S} when is_atom(S) -> S;
        _ -> nil
    end.

text(File, Line) ->
    iolist_to_binary([unicode:characters_to_binary(File), ":", integer_to_binary(Line)]).

%% @doc The value of a test method's last statement, unchanged.  A test
%% method ends with a call of this (the compiler adds it) so that its last
%% statement is not a tail call and its frame, with the failing line, stays
%% on the stack for find/3.
-spec kept(term()) -> term().
kept(Value) -> Value.
