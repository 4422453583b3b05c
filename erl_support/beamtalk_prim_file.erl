%% @doc File (stdlib §9), class side only, and its FileHandle values
%% `#{'$beamtalk_class' => 'FileHandle', path => Path, device => IoDevice}`.
%%
%% Paths are Strings (a Symbol is accepted too); relative ones are relative to
%% the workspace node's current directory (the project root).  Text is read
%% and written as bytes: Strings are UTF-8 binaries.  Every failure is a
%% Beamtalk RuntimeError naming the path and the reason
%% (`Cannot read "/x": No such file or directory`), a non-String argument a
%% TypeError.
-module(beamtalk_prim_file).
-export(['class exists:'/2, 'class readAll:'/2, 'class writeAll:contents:'/3,
         'class readLines:'/2, 'class open:do:'/3]).
-export([handle_lines/1, handle_print/1, split_lines/1]).

-define(CK, '$beamtalk_class').

'class exists:'(_Cls, Path) ->
    filelib:is_file(path(Path, 'exists:')).

'class readAll:'(_Cls, Path) ->
    P = path(Path, 'readAll:'),
    case file:read_file(P) of
        {ok, Bin} -> text('readAll:', P, Bin, 0);
        {error, Why} -> fail('readAll:', "Cannot read", P, Why)
    end.

'class writeAll:contents:'(_Cls, Path, Text) ->
    P = path(Path, 'writeAll:contents:'),
    is_binary(Text) orelse
        beamtalk_exception:raise(type_error, 'File', 'writeAll:contents:',
                                 iolist_to_binary(["File writeAll:contents: expects a String "
                                                   "as contents, not ", article(Text)]), nil),
    case file:write_file(P, Text) of
        ok -> nil;
        {error, Why} -> fail('writeAll:contents:', "Cannot write", P, Why)
    end.

'class readLines:'(_Cls, Path) ->
    P = path(Path, 'readLines:'),
    case file:read_file(P) of
        {ok, Bin} -> split_lines(text('readLines:', P, Bin, 0));
        {error, Why} -> fail('readLines:', "Cannot read", P, Why)
    end.

'class open:do:'(_Cls, Path, Block) ->
    P = path(Path, 'open:do:'),
    case file:open(P, [read, binary]) of
        {ok, Dev} ->
            H = #{?CK => 'FileHandle', path => P, device => Dev},
            try beamtalk_block:value(Block, [H])
            after file:close(Dev)
            end;
        {error, Why} -> fail('open:do:', "Cannot open", P, Why)
    end.

%% FileHandle primitives (beamtalk_prim_file_handle delegates here).
handle_lines(#{path := P, device := Dev}) ->
    Start = case file:position(Dev, cur) of {ok, At} -> At; _ -> 0 end,
    read_lines(Dev, P, Start, []).

read_lines(Dev, P, At, Acc) ->
    case file:read_line(Dev) of
        {ok, Line} ->
            text(lines, P, Line, At),
            read_lines(Dev, P, At + byte_size(Line), [chomp(Line) | Acc]);
        eof -> lists:reverse(Acc);
        {error, terminated} ->
            beamtalk_exception:raise(runtime_error, 'FileHandle', lines,
                                     iolist_to_binary(["Cannot read ", quoted(P),
                                                       ": the FileHandle is closed"]),
                                     <<"A FileHandle is closed when its open:do: block ends">>);
        {error, Why} -> fail(lines, "Cannot read", P, Why)
    end.

%% Strings are UTF-8 (stdlib §4): bytes that are not are refused where they
%% are read, as Python's read_text does, rather than answered as a raw
%% binary that fails (or prints as `<<99, 97, ...>>`) somewhere later.
%% At is the file offset of Bin's first byte.
text(Sel, P, Bin, At) ->
    case unicode:characters_to_binary(Bin) of
        B when is_binary(B) -> Bin;
        {_, Good, _} ->
            N = byte_size(Good),
            <<_:N/binary, Byte, _/binary>> = Bin,
            beamtalk_exception:raise(runtime_error, 'File', Sel,
                                     iolist_to_binary(["Cannot read ", quoted(P),
                                                       io_lib:format(": the file is not UTF-8 text "
                                                                     "(byte 0x~2.16.0B at offset ~b)",
                                                                     [Byte, At + N])]),
                                     <<"Beamtalk Strings are UTF-8: convert the file first "
                                       "(iconv -f latin1 -t utf-8 in.txt > out.txt), or read "
                                       "its bytes with Erlang file read_file: path">>)
    end.

handle_print(#{path := P}) -> iolist_to_binary(["FileHandle(", P, ")"]).

%% Lines without their "\n" or "\r\n"; a final newline ends the last line
%% rather than starting an empty one (as String lines).
split_lines(Bin) ->
    Parts = binary:split(Bin, <<"\n">>, [global]),
    Ls = case lists:reverse(Parts) of
             [<<>> | Rest] -> lists:reverse(Rest);
             _ -> Parts
         end,
    [chomp(L) || L <- Ls].

chomp(L) ->
    case L of
        <<B:(byte_size(L) - 2)/binary, "\r\n">> -> B;
        <<B:(byte_size(L) - 1)/binary, "\n">> -> B;
        <<B:(byte_size(L) - 1)/binary, "\r">> -> B;
        _ -> L
    end.

%%% Helpers

path(P, _Sel) when is_binary(P), P =/= <<>> -> P;
path(P, Sel) when is_atom(P), P =/= nil, P =/= true, P =/= false -> path(atom_to_binary(P), Sel);
path(P, Sel) ->
    beamtalk_exception:raise(type_error, 'File', Sel,
                             iolist_to_binary(["File ", atom_to_binary(Sel),
                                               " expects a path String, not ",
                                               case P of <<>> -> <<"an empty String">>;
                                                   _ -> article(P) end]), nil).

fail(Sel, Doing, P, Why) ->
    beamtalk_exception:raise(kind(Why), 'File', Sel,
                             iolist_to_binary([Doing, " ", quoted(P), ": ", reason(Why)]),
                             hint(Why, P)).

%% The kind a handler or `should:raise:` names (README "Error kinds"): the
%% two failures a program usually reacts to have their own; any other OS
%% error is a plain runtime_error whose message names the reason.
kind(enoent) -> file_not_found;
kind(enotdir) -> file_not_found;
kind(eacces) -> permission_denied;
kind(eperm) -> permission_denied;
kind(_) -> runtime_error.

quoted(P) -> [$", P, $"].

reason(enoent) -> <<"No such file or directory">>;
reason(eacces) -> <<"Permission denied">>;
reason(eisdir) -> <<"Is a directory">>;
reason(enotdir) -> <<"Not a directory">>;
reason(enospc) -> <<"No space left on device">>;
reason(eexist) -> <<"File exists">>;
reason(erofs) -> <<"Read-only file system">>;
reason(Why) when is_atom(Why) ->
    case erl_posix_msg:message(Why) of
        "unknown POSIX error" ++ _ -> atom_to_binary(Why);
        Msg -> unicode:characters_to_binary(capital(Msg))
    end;
reason(Why) -> iolist_to_binary(io_lib:format("~p", [Why])).

capital([C | R]) when C >= $a, C =< $z -> [C - 32 | R];
capital(S) -> S.

%% A relative path is looked for in the node's directory, which the user may
%% not expect; an absolute one is not, but its missing directory is worth
%% naming (writeAll: creates the file, not the directories above it).
hint(enoent, P) ->
    case filename:pathtype(P) of
        relative ->
            {ok, Cwd} = file:get_cwd(),
            iolist_to_binary(["Relative paths start at the workspace directory ", Cwd]);
        _ ->
            Dir = filename:dirname(P),
            case filelib:is_dir(Dir) of
                true -> nil;
                false -> iolist_to_binary(["The directory ", Dir, " does not exist"])
            end
    end;
hint(_, _) -> nil.

article(X) ->
    Name = atom_to_binary(try beamtalk_send:class_name(X) catch _:_ -> 'Object' end),
    case Name of
        <<C, _/binary>> when C =:= $A; C =:= $E; C =:= $I; C =:= $O; C =:= $U ->
            <<"an ", Name/binary>>;
        _ -> <<"a ", Name/binary>>
    end.
