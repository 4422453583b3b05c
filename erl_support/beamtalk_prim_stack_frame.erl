%% @doc StackFrame (stdlib §6): one frame of an exception's `stackTrace`.
%%
%% A frame is a value object built from an Erlang stack entry.  For a
%% Beamtalk method the function name is the selector and the module is the
%% class's module, so `receiverClass` names the class that defines it.
-module(beamtalk_prim_stack_frame).
-export([frame/1]).
-export(['method'/1, 'receiverClass'/1, 'arguments'/1, 'moduleName'/1, 'file'/1,
         'line'/1, 'sourceLocation'/1, 'isBlock'/1, 'printString'/1, 'displayString'/1]).

%% @doc The StackFrame for {Module, Function, Arity, Location}.  A block of
%% a loaded method is an Erlang fun named after the function that holds it
%% (`-report/2-fun-0-`, `-$d/3-anonymous-0-` in a value class's dispatch):
%% its frame names that method, marked as a block (`[] in Calc>>run/2`, as
%% Pharo prints it), not the fun's generated name.
frame({M, F0, A0, Loc} = Frame) ->
    case block_parent(F0) of
        {Parent, PA, Block} ->
            case class_of_module(M) of
                nil -> method_frame(Frame);
                _ -> (method_frame({M, Parent, PA, Loc}))#{block => Block}
            end;
        none -> method_frame(Frame)
    end.

block_parent(F) ->
    case re:run(atom_to_binary(F, utf8), <<"^-(.+?)/([0-9]+)-(.+)-$">>,
                [{capture, all_but_first, binary}, unicode]) of
        {match, [Parent, Arity, Kind]} ->
            {binary_to_atom(Parent, utf8), binary_to_integer(Arity), is_block_fun(Kind)};
        nomatch -> none
    end.

%% `fun-0`, `anonymous-0`: a block; a named fun (`Loop2/1-0`, an inlined
%% whileTrue:) or a comprehension is the method's own code.
is_block_fun(Kind) ->
    re:run(Kind, <<"^(fun|anonymous)-[0-9]+$">>) =/= nomatch.

method_frame({M, F0, A0, Loc}) ->
    Line = proplists:get_value(line, Loc, nil),
    File0 = case proplists:get_value(file, Loc) of
                undefined -> nil;
                Path -> unicode:characters_to_binary(filename:basename(Path))
            end,
    {Class, F1, A, File} =
        case class_of_module(M) of
            nil ->
                case typed_class_method(M, F0, Line) of
                    {C, Sel} -> {C, Sel, 1 + beamtalk_send:selector_arity(Sel), <<"<input>">>};
                    none ->
                        case input_module(M) of
                            true -> {nil, F0, A0, <<"<input>">>};
                            false -> {nil, F0, A0, File0}
                        end
                end;
            C ->
                {F2, A2} = method_of(C, F0, A0, Line),
                {C, F2, A2, File0}
        end,
    {F, Side} = case atom_to_binary(F1, utf8) of
                    <<"class ", Sel1/binary>> when Class =/= nil -> {binary_to_atom(Sel1, utf8), class};
                    _ -> {F1, instance}
                end,
    #{'$beamtalk_class' => 'StackFrame',
      method => F,
      side => Side,
      receiverClass => Class,
      arguments => A,
      moduleName => M,
      file => File,
      line => Line}.

%% A class typed at the REPL has no module of its own: its methods are funs
%% of the input's module (`bt@in@1>>-eval/1-fun-0-/2`).  The class whose
%% method funs come from that module, and the method by the frame's line
%% (lines of that input); `{Class, Selector}` (`'class sel'` for the class
%% side) or none.
typed_class_method(M, F, Line) when is_integer(Line) ->
    case atom_to_list(F) of
        "-" ++ _ ->
            Owners = [C || C <- beamtalk_class:all_names(), defines_funs_of(C, M)],
            Starts = [{L, C, side_name(Sel, Side)}
                      || C <- Owners,
                         {{Sel, Side}, #{line := L}} <- maps:to_list(method_info(C)),
                         is_integer(L), L =< Line],
            case lists:max([{0, nil, none} | Starts]) of
                {0, nil, none} -> none;
                {_, C, Sel} -> {C, Sel}
            end;
        _ -> none
    end;
typed_class_method(_M, _F, _Line) ->
    none.

defines_funs_of(C, M) ->
    case beamtalk_class:entry(C) of
        #{module := Mod} when Mod =/= undefined, Mod =/= nil -> false;
        #{methods := Ms} = E ->
            Funs = [Fun || {_, Fun} <- maps:values(Ms), is_function(Fun)]
                ++ [Fun || {_, Fun} <- maps:values(maps:get(class_methods, E, #{})), is_function(Fun)],
            lists:any(fun(Fun) -> element(2, erlang:fun_info(Fun, module)) =:= M end, Funs);
        _ -> false
    end.

side_name(Sel, true) -> binary_to_atom(<<"class ", (atom_to_binary(Sel, utf8))/binary>>, utf8);
side_name(Sel, false) -> Sel.

method_info(C) ->
    case beamtalk_class:entry(C) of
        #{method_info := MI} -> MI;
        _ -> #{}
    end.

%% A value class's instance methods are compiled into its dispatch function
%% '$d'/3 (the fast send path): the frame's line says which method it was,
%% by the first lines the class's method info records.  A class-side
%% method's function is named `class sel`.
method_of(nil, F, A, _Line) ->
    {F, A};
method_of(Class, '$d', 3, Line) when is_integer(Line) ->
    Info = method_info(Class),
    Starts = [{L, Sel} || {{Sel, false}, #{line := L}} <- maps:to_list(Info),
                          is_integer(L), L =< Line],
    case lists:max([{0, none} | Starts]) of
        {0, none} -> {'$d', 3};
        {_, Sel} -> {Sel, 1 + beamtalk_send:selector_arity(Sel)}
    end;
method_of(_Class, F, A, _Line) ->
    {F, A}.

class_of_module(M) ->
    Names = [N || N <- beamtalk_class:all_names(),
                  case beamtalk_class:class_info(N) of
                      #{module := M} -> true;
                      _ -> false
                  end],
    case Names of
        [N | _] -> N;
        [] -> nil
    end.

'method'(#{method := V}) -> V.
'receiverClass'(#{receiverClass := V}) -> V.
'arguments'(#{arguments := V}) -> V.
'moduleName'(#{moduleName := V}) -> V.
'file'(#{file := V}) -> V.
'line'(#{line := V}) -> V.

'isBlock'(Fr) -> maps:get(block, Fr, false).

'sourceLocation'(#{file := nil}) -> nil;
'sourceLocation'(#{file := F, line := nil}) -> F;
'sourceLocation'(#{file := F, line := L}) -> iolist_to_binary([F, ":", integer_to_binary(L)]).

%% `Counter>>increment/1 (counter.bt:4)`, `Counter class>>new/1 (…)`; the
%% module stands in for the class when no class is defined by it.
'printString'(#{receiverClass := nil, moduleName := M, method := F} = Fr) when is_atom(M), is_atom(F) ->
    case input_module(M) of
        true ->
            %% a statement typed at the REPL (or run from a file): its
            %% module's name is the workspace's, its blocks Erlang funs
            InBlock = case atom_to_binary(F, utf8) of
                          <<"-", _/binary>> -> <<"[] in ">>;
                          _ -> <<>>
                      end,
            Line = case maps:get(line, Fr, nil) of
                       L when is_integer(L) -> [" (line ", integer_to_binary(L), ")"];
                       _ -> []
                   end,
            iolist_to_binary([InBlock, "<input>", Line]);
        false -> method_text(Fr)
    end;
'printString'(Fr) -> method_text(Fr).

%% The module of an input: `bt@repl@<session>` (an input that makes no
%% funs) or `bt@in@N` (one lent by beamtalk_code_pool).
input_module(M) ->
    case atom_to_binary(M, utf8) of
        <<"bt@repl@", _/binary>> -> true;
        <<"bt@in@", _/binary>> -> true;
        _ -> false
    end.

method_text(#{method := F, arguments := A, receiverClass := C, moduleName := M} = Fr) ->
    Owner = case C of nil -> M; _ -> C end,
    Where = case 'sourceLocation'(Fr) of
                nil -> <<>>;
                S -> [" (", S, ")"]
            end,
    Side = case maps:get(side, Fr, instance) of
               class -> <<" class">>;
               _ -> <<>>
           end,
    InBlock = case maps:get(block, Fr, false) of
                  true -> <<"[] in ">>;
                  false -> <<>>
              end,
    iolist_to_binary([InBlock, atom_to_binary(Owner, utf8), Side, ">>", atom_to_binary(F, utf8), "/",
                      integer_to_binary(A), Where]).
'displayString'(Fr) -> 'printString'(Fr).
