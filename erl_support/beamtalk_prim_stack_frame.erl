%% @doc StackFrame (stdlib §6): one frame of an exception's `stackTrace`.
%%
%% A frame is a value object built from an Erlang stack entry.  For a
%% Beamtalk method the function name is the selector and the module is the
%% class's module, so `receiverClass` names the class that defines it.
-module(beamtalk_prim_stack_frame).
-export([frame/1]).
-export(['method'/1, 'receiverClass'/1, 'arguments'/1, 'moduleName'/1, 'file'/1,
         'line'/1, 'sourceLocation'/1, 'printString'/1, 'displayString'/1]).

%% @doc The StackFrame for {Module, Function, Arity, Location}.
frame({M, F, A, Loc}) ->
    #{'$beamtalk_class' => 'StackFrame',
      method => F,
      receiverClass => class_of_module(M),
      arguments => A,
      moduleName => M,
      file => case proplists:get_value(file, Loc) of
                  undefined -> nil;
                  File -> unicode:characters_to_binary(filename:basename(File))
              end,
      line => proplists:get_value(line, Loc, nil)}.

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

'sourceLocation'(#{file := nil}) -> nil;
'sourceLocation'(#{file := F, line := nil}) -> F;
'sourceLocation'(#{file := F, line := L}) -> iolist_to_binary([F, ":", integer_to_binary(L)]).

%% `Counter>>increment/2 (counter.bt:4)`; the module stands in for the class
%% when no class is defined by it.
'printString'(#{method := F, arguments := A, receiverClass := C, moduleName := M} = Fr) ->
    Owner = case C of nil -> M; _ -> C end,
    Where = case 'sourceLocation'(Fr) of
                nil -> <<>>;
                S -> [" (", S, ")"]
            end,
    iolist_to_binary([atom_to_binary(Owner, utf8), ">>", atom_to_binary(F, utf8), "/",
                      integer_to_binary(A), Where]).
'displayString'(Fr) -> 'printString'(Fr).
