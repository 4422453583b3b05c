%% @doc Beamtalk for Erlang code on the node (DESIGN D11): any tool on the
%% node (a `-remsh` shell, a supervisor, a web UI) can compile and run
%% Beamtalk through the workspace's compiler peer, with no REPL attached.
%%
%% ```
%% {ok, ['Counter']} = beamtalk:load(<<"src/counter.bt">>),
%% {ok, 3} = beamtalk:eval(<<"c := Counter spawn. c increment. c increment. c increment">>).
%% '''
%%
%% Errors come back as the text the REPL would print (with file, line and a
%% caret for compile errors), never as an exception.
-module(beamtalk).

-export([eval/1, load/1]).
-export([reload/1, compile_method/3, watch/1, unwatch/1, watches/0]).
-export([send/3, class/1]).

%% @doc Compile and evaluate `Source` in a fresh scope (no bindings).
-spec eval(binary() | string()) -> {ok, term()} | {error, binary()}.
eval(Source) ->
    case beamtalk_compiler_peer:request({eval, to_bin(Source)}) of
        {ok, Forms, MakesFuns, _Warnings} -> beamtalk_peer_code:run_input(Forms, MakesFuns);
        {error, Text} -> {error, Text}
    end.

%% @doc Compile and load a `.bt` file, or every `.bt` file below a
%% directory.  Nothing is loaded unless every file compiles.  A relative
%% path is taken from the node's working directory (the project).
-spec load(binary() | string()) -> {ok, [atom()]} | {error, binary()}.
load(Path) ->
    Abs = absolute(Path),
    case filelib:is_file(Abs) of
        false -> {error, <<"File not found: ", (to_bin(Path))/binary, (relative_note(Path))/binary>>};
        true -> load_compiled(beamtalk_compiler_peer:request({load, [Abs]}))
    end.

%% A relative path starts at the node's directory, which need not be the
%% directory of the client that sent it: name it.
relative_note(Path) ->
    case filename:pathtype(Path) of
        relative ->
            {ok, Cwd} = file:get_cwd(),
            unicode:characters_to_binary([" (relative paths start at the workspace directory ", Cwd, ")"]);
        _ -> <<>>
    end.

load_compiled({ok, Modules, _Warnings}) ->
    case beamtalk_peer_code:load_modules([{M, F} || {M, F, _, _} <- Modules]) of
        ok -> {ok, [C || {_, _, C, _} <- Modules]};
        {error, Text} -> {error, Text}
    end;
load_compiled({error, Text}) ->
    {error, Text}.

%% @doc Send a message to a Beamtalk object from Erlang code (seed ADR
%% 0028's other direction): an actor (its record, or the pid Erlang code
%% usually holds), a class (`class/1`), or any value (`send(3, '+', [4])`).
%% The selector is the Beamtalk one (`'add:'`, `'at:put:'`).  As eval/1,
%% a failure is `{error, Text}` with the REPL's text, never an exception.
-spec send(term(), atom(), list()) -> {ok, term()} | {error, binary()}.
send(Target, Sel, Args) when is_atom(Sel), is_list(Args) ->
    case receiver(Target) of
        {ok, R} ->
            try {ok, beamtalk_send:send(R, Sel, Args)}
            catch C:Rn:S -> {error, beamtalk_errors:format(beamtalk_errors:wrap(C, Rn, S))}
            end;
        Error -> Error
    end;
send(_Target, Sel, Args) ->
    {error, iolist_to_binary(
              ["beamtalk:send/3: the selector must be an atom ('add:') and the arguments a list, not ",
               beamtalk_print:print_string(Sel), " and ", beamtalk_print:print_string(Args)])}.

%% A pid stands for the actor it runs (its record is in its dictionary).
receiver(Pid) when is_pid(Pid) ->
    Dict = case node(Pid) =:= node() of
               true -> erlang:process_info(Pid, dictionary);
               false -> try erpc:call(node(Pid), erlang, process_info, [Pid, dictionary], 5000)
                        catch _:_ -> undefined
                        end
           end,
    case Dict of
        {dictionary, D} ->
            case lists:keyfind('$bt_self', 1, D) of
                {_, {beamtalk_object, _, _, Pid} = Actor} -> {ok, Actor};
                _ -> not_actor(Pid)
            end;
        _ -> {error, iolist_to_binary([beamtalk_print:print_string(Pid), " is not alive"])}
    end;
receiver(Target) ->
    {ok, Target}.

not_actor(Pid) ->
    {error, iolist_to_binary([beamtalk_print:print_string(Pid),
                              " is not a Beamtalk actor: send to an Erlang process with Erlang's own "
                              "messages (gen_server:call/2, !)"])}.

%% @doc The class object named `Name` (`'Counter'`), to send class-side
%% messages to with send/3 (`send(C, spawn, [])`).
-spec class(atom() | binary() | string()) -> {ok, term()} | {error, binary()}.
class(Name0) ->
    Name = try binary_to_existing_atom(to_bin(Name0), utf8) catch _:_ -> undefined end,
    try {ok, beamtalk_class:class_object(Name)}
    catch _:_ -> {error, <<"Class '", (to_bin(Name0))/binary, "' not found">>}
    end.

%% @doc Recompile a class from its source file.
-spec reload(atom()) -> {ok, [atom()]} | {error, binary()}.
reload(Class) when is_atom(Class) ->
    case beamtalk_class:entry(Class) of
        undefined -> {error, <<"Class '", (atom_to_binary(Class))/binary, "' not found">>};
        #{stdlib := true} -> no_source(Class, <<" (it is part of the standard library)">>);
        #{source_file := F} when is_binary(F) -> load(F);
        _ -> no_source(Class, <<" (it was not loaded from a file)">>)
    end.

no_source(Class, Why) ->
    {error, <<(atom_to_binary(Class))/binary, " has no source file", Why/binary>>}.

%% @doc Add or replace one method of a live class from its source
%% (`double => self.n * 2`); ClassSide true for a class-side method.
-spec compile_method(atom(), boolean(), binary()) -> {ok, atom()} | {error, binary()}.
compile_method(Class, ClassSide, Source) when is_atom(Class) ->
    case beamtalk_compiler_peer:request({method, Class, ClassSide, to_bin(Source)}) of
        {ok, Forms, MakesFuns, _Warnings, Selector} ->
            case beamtalk_peer_code:run_input(Forms, MakesFuns) of
                {ok, _} -> {ok, Selector};
                {error, Text} -> {error, Text}
            end;
        {error, Text} -> {error, Text}
    end.

%% @doc Watch a file or directory: every save is compiled and hot-reloaded
%% by the compiler peer, whoever asked and whether or not a client stays.
-spec watch(binary() | string()) -> ok | {error, binary()}.
watch(Path) ->
    case beamtalk_watch:watch(absolute(Path)) of
        %% Answer once the peer's OS watches are in place, so a save made
        %% right after this returns is seen.
        ok -> beamtalk_compiler_peer:request({watch, beamtalk_watch:roots()});
        Error -> Error
    end.

-spec unwatch(binary() | string()) -> ok | {error, binary()}.
unwatch(Path) -> beamtalk_watch:unwatch(absolute(Path)).

%% @doc The watched roots with the outcome of their last reload.
-spec watches() -> [map()].
watches() -> beamtalk_watch:watches().

%% Lexically normalized ("." and ".." segments dropped): the compiler peer
%% reports a watched file under its normalized root, and a watch keyed
%% `/p/.` would never match it (its saves were silently not reloaded).
absolute(Path) ->
    Abs = filename:absname(unicode:characters_to_list(to_bin(Path))),
    unicode:characters_to_binary(filename:join(normal(filename:split(Abs), []))).

normal([], Acc) -> lists:reverse(Acc);
normal(["." | T], Acc) -> normal(T, Acc);
normal([".." | T], [Root]) -> normal(T, [Root]);
normal([".." | T], [_ | Acc]) -> normal(T, Acc);
normal([H | T], Acc) -> normal(T, [H | Acc]).

to_bin(B) when is_binary(B) -> B;
to_bin(L) when is_list(L) -> unicode:characters_to_binary(L);
to_bin(A) when is_atom(A) -> atom_to_binary(A).
