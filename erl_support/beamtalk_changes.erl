%% @doc Pending source changes (issue 14 item 3): in a package, a class
%% changed at the REPL (a class definition typed there, `compile:`,
%% `removeSelector:`, ClassBuilder) is a change of its `src/` file that
%% `Workspace flush` writes and `Workspace revert:` drops.
%%
%% Why the node keeps the list and Python writes the file: the changes
%% happen on the node (REPL input, ClassBuilder, the compiler peer's
%% `compile:`), so the node is where they can be seen; but the node never
%% parses Beamtalk (DESIGN D1-D3), so the edit of a file (find the method
%% by its span, keep every other byte) is asked of the compiler peer
%% (`beamtalk_ws/package/writeback.py`).
%%
%% Durability (item 4): each change is written to the store's bt_change
%% table (beamtalk_store:put_change/2) as it is noted, synchronously, so it
%% is on disk before the evaluation that made it answers.  The store also
%% keeps, under `{file, Class}`, the file a class was loaded from with the
%% SHA-256 of that file when it was loaded: a flush refuses a file whose
%% content is no longer that (changed on disk since).
%%
%% noted/1 runs in the class registry's process, after a request
%% succeeded: it must never call the registry (it reads its ETS table).
-module(beamtalk_changes).

-export([enable/0, noted/1, list/0, flush/0, revert/1, report/0, file_hash/1]).

-define(ON, beamtalk_changes_on).

%%% API

%% @doc Start noting changes (the boot calls this after the durable state
%% was restored: restoring a class is not a change).
enable() ->
    persistent_term:put(?ON, true).

on() -> persistent_term:get(?ON, false).

%% @doc A class registry request succeeded (beamtalk_class).
noted(Req) ->
    case on() of
        true ->
            try note(Req)
            catch C:R -> logger:warning("beamtalk changes: not noted (~tp:~tp)", [C, R])
            end;
        false -> ok
    end,
    ok.

%% @doc The pending changes, oldest first, as maps.
list() ->
    [C || {Id, C} <- beamtalk_store:changes(), is_integer(Id)].

%% @doc `Workspace revert: aChange` (a change map or its id): drop it.
revert(Id) when is_integer(Id) ->
    case [C || #{id := I} = C <- list(), I =:= Id] of
        [] -> {error, iolist_to_binary(["There is no pending change ", integer_to_list(Id),
                                        " (Workspace changes lists them)"])};
        [_] -> beamtalk_store:delete_change(Id), ok
    end;
revert(#{id := Id}) -> revert(Id);
revert(_) -> {error, <<"revert: expects a change from Workspace changes (or its id)">>}.

%% @doc `Workspace flush`: write every pending change to its file.
%% Answers `{ok, Text}` or `{error, Text}` (some file was refused; what
%% could be written was, and its changes are no longer pending).
flush() ->
    case list() of
        [] -> {ok, <<"No pending changes.">>};
        Changes ->
            Req = {writeback, [wire(C) || C <- Changes]},
            case beamtalk_compiler_peer:request(Req) of
                {ok, Results} -> {Oks, Errors} = lists:foldl(fun flushed/2, {[], []}, Results),
                                 Text = iolist_to_binary(lists:join("\n", lists:reverse(Oks) ++ lists:reverse(Errors))),
                                 case Errors of
                                     [] -> {ok, Text};
                                     _ -> {error, Text}
                                 end;
                {error, Text} -> {error, Text}
            end
    end.

%% @doc What `:changes` prints.
report() ->
    case list() of
        [] -> <<"No pending changes.">>;
        Cs -> iolist_to_binary(lists:join("\n", [line(C) || C <- Cs]))
    end.

%% @doc The SHA-256 (hex) of a file's bytes, or `none` when it cannot be read.
file_hash(File) ->
    case file:read_file(File) of
        {ok, Bin} -> hex(crypto:hash(sha256, Bin));
        _ -> none
    end.

%%% Noting

note({define, #{name := Name} = D, _Vars}) ->
    case {maps:get(stdlib, D, false), text(maps:get(source_file, D, undefined))} of
        {true, _} -> ok;
        {_, File} when File =/= <<>> ->
            %% A class loaded from a file (a load, a reload, a watch): what
            %% its file is now.
            Row = {File, file_hash(File)},
            case lists:keyfind({file, Name}, 1, beamtalk_store:changes()) of
                {_, Row} -> ok;
                _ -> beamtalk_store:put_change({file, Name}, Row)
            end;
        _ ->
            Source = text(maps:get(source, D, undefined)),
            case target(Name) of
                none -> ok;
                Target ->
                    %% A new definition replaces every earlier change of the class.
                    [beamtalk_store:delete_change(I) || #{id := I, class := C} <- list(), C =:= Name],
                    add(Target#{class => Name, kind => class, selector => nil, class_side => false,
                                source => case Source of <<>> -> nil; S -> S end,
                                doc => doc(maps:get(doc, D, nil))})
            end
    end;
note({add_method, Name, Sel, _Method, Info}) ->
    Side = maps:get(class_side, Info, false) =:= true,
    Source = text(maps:get(source, Info, undefined)),
    method_change(Name, Sel, Side, method, case Source of <<>> -> nil; S -> S end,
                  doc(maps:get(doc, Info, nil)));
note({remove_method, Name, Sel, Side}) ->
    method_change(Name, Sel, Side, remove, nil, nil);
note(_) -> ok.

method_change(Name, Sel, Side, Kind, Source, Doc) ->
    case target(Name) of
        none -> ok;
        Target ->
            %% A later change of the same method replaces the earlier one.
            [beamtalk_store:delete_change(I)
             || #{id := I, class := C, selector := S, class_side := Sd, kind := K} <- list(),
                C =:= Name, S =:= Sel, Sd =:= Side, K =/= class],
            add(Target#{class => Name, kind => Kind, selector => Sel, class_side => Side,
                        source => Source, doc => Doc})
    end.

%% Which file a change of class Name goes to: the file it was loaded from
%% (if that file is in a package), the file of a pending new class, or
%% for a class new to the workspace `src/<snake>.bt` of the package the
%% node runs in.  `none` outside a package.
target(Name) ->
    case lists:keyfind({file, Name}, 1, beamtalk_store:changes()) of
        {_, {File, Hash}} ->
            case package_of(File) of
                none -> none;
                Root -> #{file => File, base_hash => Hash, package => Root}
            end;
        false ->
            case [C || #{class := C0} = C <- list(), C0 =:= Name, maps:get(kind, C) =:= class] of
                [#{file := F, base_hash := H, package := R} | _] ->
                    #{file => F, base_hash => H, package => R};
                [] ->
                    {ok, Cwd} = file:get_cwd(),
                    case is_package(Cwd) of
                        true ->
                            Root = text(Cwd),
                            #{file => filename:join([Root, <<"src">>, <<(snake(Name))/binary, ".bt">>]),
                              base_hash => none, package => Root};
                        false -> none
                    end
            end
    end.

package_of(File) ->
    find_root(text(File), filename:dirname(text(File))).

%% The package whose src/ holds File: the nearest directory above it with
%% a beamtalk.toml and a src/ that File is below.
find_root(File, Dir) ->
    Src = filename:split(filename:join(Dir, "src")),
    case is_package(Dir) andalso lists:prefix(Src, filename:split(File)) of
        true -> text(Dir);
        false ->
            case filename:dirname(Dir) of
                Dir -> none;
                Up -> find_root(File, Up)
            end
    end.

is_package(Dir) ->
    filelib:is_regular(filename:join(Dir, "beamtalk.toml")) andalso filelib:is_dir(filename:join(Dir, "src")).

%% Ids are never reused (a flushed change's id is not given again), so an
%% id read from an earlier `Workspace changes` cannot name another change.
add(Change) ->
    Rows = beamtalk_store:changes(),
    Next = case lists:keyfind(next_id, 1, Rows) of {_, N} -> N; false -> 1 end,
    Id = lists:max([Next | [I + 1 || {I, _} <- Rows, is_integer(I)]]),
    beamtalk_store:put_change(next_id, Id + 1),
    beamtalk_store:put_change(Id, Change#{id => Id, time => erlang:system_time(second)}).

%%% Flushing

%% What the peer gets: plain terms (binaries, atoms, booleans).
wire(C) ->
    {maps:get(id, C), maps:get(class, C), maps:get(kind, C), maps:get(selector, C),
     maps:get(class_side, C), maps:get(source, C), maps:get(doc, C), maps:get(file, C),
     maps:get(base_hash, C)}.

%% The peer answers, per file, {ok, File, Hash, Ids, Text} or {error, File, Text, Ids}.
flushed({ok, File, Hash, Ids, Text}, {Oks, Errs}) ->
    Classes = lists:usort([C || #{id := I, class := C} <- list(), lists:member(I, Ids)]),
    [beamtalk_store:delete_change(I) || I <- Ids],
    [beamtalk_store:put_change({file, C}, {File, Hash}) || C <- Classes],
    {[Text | Oks], Errs};
flushed({error, _File, Text, _Ids}, {Oks, Errs}) ->
    {Oks, [Text | Errs]}.

line(#{id := Id, class := Class, kind := Kind, file := File} = C) ->
    What = case Kind of
               class -> [atom_to_binary(Class), <<" (class definition)">>];
               method -> [sel(C), <<" (method)">>];
               remove -> [sel(C), <<" (removed)">>]
           end,
    NoSource = case {Kind, maps:get(source, C)} of
                   {remove, _} -> <<>>;
                   {_, nil} -> <<" [no source: built with ClassBuilder; flush cannot write it]">>;
                   _ -> <<>>
               end,
    iolist_to_binary([integer_to_list(Id), ". ", What, " -> ", relative(File), NoSource]).

sel(#{class := Class, selector := Sel, class_side := Side}) ->
    [atom_to_binary(Class), case Side of true -> <<" class">>; false -> <<>> end,
     <<" >> ">>, atom_to_binary(Sel)].

relative(File) ->
    {ok, Cwd} = file:get_cwd(),
    Prefix = <<(text(Cwd))/binary, "/">>,
    case binary:match(File, Prefix) of
        {0, N} -> binary:part(File, N, byte_size(File) - N);
        _ -> File
    end.

%%% Helpers

snake(Name) ->
    S = atom_to_list(Name),
    list_to_binary(string:lowercase(snake(S, $A))).

snake([], _) -> [];
snake([C | Rest], Prev) when C >= $A, C =< $Z,
                             ((Prev >= $a andalso Prev =< $z) orelse (Prev >= $0 andalso Prev =< $9)) ->
    [$_, C | snake(Rest, C)];
snake([C | Rest], _) -> [C | snake(Rest, C)].

doc(D) when is_binary(D), D =/= <<>> -> D;
doc(_) -> nil.

text(undefined) -> <<>>;
text(nil) -> <<>>;
text(B) when is_binary(B) -> B;
text(L) when is_list(L) -> unicode:characters_to_binary(L);
text(A) when is_atom(A) -> atom_to_binary(A).

hex(Bin) -> list_to_binary([io_lib:format("~2.16.0b", [X]) || <<X>> <= Bin]).
