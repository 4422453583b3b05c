%% @doc The hint of a "X does not understand 'sel'" error: the Beamtalk way to
%% say what another Smalltalk's selector does (`copyFrom:to:` -> `from:to:`,
%% `ifEmpty:` -> `isEmpty ifTrue:`), or the selector of the receiver's class
%% closest to a misspelt one (`lenght` -> `length`).  Only the error path
%% calls it, so it may look through the class's whole method table.
-module(beamtalk_selector_hint).
-export([hint/2, default/0, generic/1]).

-define(DEFAULT, <<"Check spelling or use 'respondsTo:' to verify method exists">>).

%% @doc The hint of a DNU nothing better is known for.
default() -> ?DEFAULT.

%% @doc Is this a hint that names no selector (the default, or the one for a
%% nil receiver)?  A test report leaves those out: its line already says
%% which object did not understand what.
generic(?DEFAULT) -> true;
generic(<<"the receiver is nil: ", _/binary>>) -> true;
generic(_) -> false.

-spec hint(atom(), atom()) -> binary().
hint('String', Sel) when Sel =:= isLetter; Sel =:= isDigit; Sel =:= isVowel;
                         Sel =:= isUppercase; Sel =:= isLowercase; Sel =:= isWhitespace;
                         Sel =:= isSeparator; Sel =:= isAlphaNumeric; Sel =:= isCharacter;
                         Sel =:= asCharacter ->
    %% `"abc" do: [:c | c isLetter]`: the elements of a String are
    %% one-character Strings, and the character tests are on code points
    %% (spec stdlib.md sections 3 and 7)
    <<"the elements of a String are 1-character Strings; the character tests are on code points "
      "(Integers): s asCharlist answers them (\"a\" asCharlist first isLetter), or match a regex "
      "(s matchesRegex: \"^[a-z]+$\")">>;
hint(Label, Sel) when is_atom(Sel) ->
    case removed(Label) of
        nil ->
            case beamtalk_test_hint:hint(Label, Sel) of
                nil -> hint_for(Label, Sel);
                ForTests -> ForTests
            end;
        Gone -> Gone
    end;
hint(_Label, _Sel) ->
    ?DEFAULT.

%% An instance (an actor, most often) of a class `removeFromSystem` took
%% away answers nothing: say so rather than "Check spelling".
removed(Label) when is_atom(Label) ->
    Base = case binary:split(atom_to_binary(Label, utf8), <<" class">>) of
               [B, <<>>] -> B;
               _ -> atom_to_binary(Label, utf8)
           end,
    case catch beamtalk_class:exists(binary_to_existing_atom(Base, utf8)) of
        false ->
            <<Base/binary, " is no longer a class of this workspace (removeFromSystem removed it): its "
              "instances answer no messages; define the class again to bring them back">>;
        _ -> nil
    end;
removed(_) -> nil.

hint_for('Symbol', Sel) ->
    %% `sel startsWith: "get"` in a doesNotUnderstand: method: the selector
    %% is a Symbol, which is not a String (spec semantics 7)
    case maps:is_key(Sel, beamtalk_class:instance_methods('String')) of
        true ->
            S = atom_to_binary(Sel, utf8),
            <<"a Symbol is not a String: send asString first (aSymbol asString ", (header(S))/binary, ")">>;
        false -> hint_for2('Symbol', Sel)
    end;
hint_for(Label, Sel) -> hint_for2(Label, Sel).

hint_for2(Label, Sel) ->
    case case for_class(Label, Sel) of nil -> elsewhere(Sel); Own -> Own end of
        nil ->
            %% a field first: `me name` for a `name` field is not the
            %% class-side `name` every class answers
            case catch field_accessor(Label, Sel) of
                Field when is_binary(Field) -> Field;
                _ ->
                    case catch other_side(Label, Sel) of
                        Side when is_binary(Side) -> Side;
                        _ ->
                            case catch run_on(Label, Sel) of
                                RunOn when is_binary(RunOn) -> RunOn;
                                _ -> near(Label, Sel)
                            end
                    end
            end;
        Text -> Text
    end.

near(Label, Sel) ->
    case catch missing_argument(Label, Sel) of
        Missing when is_binary(Missing) -> Missing;
        _ -> near_spelling(Label, Sel)
    end.

%% `File readAll` or `s split`: the receiver understands the selector with
%% a colon, so the argument (and its colon) was left out.
missing_argument(Label, Sel) ->
    Name = atom_to_binary(Sel, utf8),
    0 = arity(Name),
    true = maps:is_key(binary_to_existing_atom(<<Name/binary, ":">>, utf8), table(atom_to_binary(Label, utf8))),
    Receiver = case binary:split(atom_to_binary(Label, utf8), <<" class">>) of
                   [Base, <<>>] -> Base;
                   _ -> article(Label)
               end,
    <<Name/binary, ": takes an argument: ", Receiver/binary, " ", Name/binary, ": x">>.

near_spelling(Label, Sel) ->
    case catch nearest(Label, Sel) of
        Best when is_binary(Best) -> <<"did you mean '", Best/binary, "'?">>;
        _ ->
            case catch other_arity(Label, Sel) of
                Other when is_binary(Other) -> Other;
                _ when Label =:= 'UndefinedObject' -> nil_receiver(Sel);
                _ -> ?DEFAULT
            end
    end.

%% `nil foo`: the receiver is nil far more often than the selector is
%% misspelt; say where a nil usually comes from.
nil_receiver(Sel) ->
    <<"the receiver is nil: a variable or field that was never assigned, or a send that answered nil "
      "(detect: found nothing, a method without ^); guard with x ifNil: [...] ifNotNil: [:v | v ",
      (header(atom_to_binary(Sel, utf8)))/binary, "]">>.

%% `s includesSubstring "b"` (the colon left out) or `d speak: 1` for a
%% `speak:and:`: the receiver understands the selector with another number
%% of arguments.  Fails (caught by near/2) when it does not.
other_arity(Label, Sel) ->
    Name = atom_to_binary(Sel, utf8),
    Table = table(atom_to_binary(Label, utf8)),
    Keys = [atom_to_binary(K, utf8) || K <- maps:keys(Table), is_atom(K)],
    case arity(Name) of
        0 ->
            %% the colon left out: the same hint as missing_argument/2
            missing_argument(Label, Sel);
        _ ->
            [First | _] = binary:split(Name, <<":">>),
            Longer = lists:sort([K || K <- Keys, K =/= Name, arity(K) > arity(Name),
                                      binary:longest_common_prefix([K, Name]) =:= byte_size(Name)]),
            Bare = [K || K <- Keys, K =:= First],
            case {Longer, Bare} of
                {[L | _], _} ->
                    <<(atom_to_binary(Label, utf8))/binary, " understands '", L/binary,
                      "': give all its keywords in one message (x ", (header(L))/binary, ")">>;
                {[], [B]} ->
                    <<B/binary, " takes no argument: x ", B/binary>>
            end
    end.

%% A selector the other side of the receiver's class defines: an instance
%% method sent to the class (`beamtalk run` sends `start` to the class, and
%% an instance-side `start` is the usual slip) or a class-side method sent
%% to an instance.  Fails (caught by hint/2) when neither side has it.
other_side(Label, Sel) ->
    S = atom_to_binary(Sel, utf8),
    case binary:split(atom_to_binary(Label, utf8), <<" class">>) of
        [Base, <<>>] ->
            true = maps:is_key(Sel, beamtalk_class:instance_methods(binary_to_existing_atom(Base, utf8))),
            <<S/binary, " is an instance method of ", Base/binary, ": send it to an instance, or define it "
              "on the class side (put class in front of its header: class ", (header(S))/binary, " => ...)">>;
        [Base] ->
            true = maps:is_key(Sel, beamtalk_class:class_side_methods(binary_to_existing_atom(Base, utf8))),
            <<S/binary, " is a class-side method of ", Base/binary, ": send it to the class (",
              Base/binary, " ", (header(S))/binary, ")">>
    end.

%% A field's name sent as a message (`r w` for a `w` field): only `Value
%% subclass:` classes get accessors (spec semantics 3.3), so an Object or
%% Actor subclass, typed or built with ClassBuilder, answers DNU; say how
%% to reach the field.  Fails (caught by hint_for/2) for any other selector.
field_accessor(Label, Sel) ->
    S = atom_to_binary(Sel, utf8),
    C = atom_to_binary(Label, utf8),
    Fields = beamtalk_actor:fields_of(Label),
    case arity(S) of
        0 ->
            true = lists:member(Sel, Fields),
            <<S/binary, " is a field of ", C/binary, ", which has no accessor for it (only a Value "
              "subclass gets them): define ", S/binary, " => self.", S/binary, ", or read it with "
              "fieldAt: #", S/binary>>;
        1 ->
            F = binary:part(S, 0, byte_size(S) - 1),
            true = lists:member(binary_to_existing_atom(F, utf8), Fields),
            <<F/binary, " is a field of ", C/binary, ", which has no setter for it: define ",
              F/binary, ": x => self.", F/binary, " := x">>
    end.

%% `Order id: 1 add: x quantity: 2`: the keywords of one statement make one
%% selector (spec syntax 4), so a keyword send whose answer should get the
%% next keywords needs parentheses.  The longest leading part of the
%% selector the receiver understands is the message meant first.  Fails
%% (caught by hint_for2/2) when no such part exists.
run_on(Label, Sel) ->
    S = atom_to_binary(Sel, utf8),
    Parts = binary:split(S, <<":">>, [global, trim_all]),
    true = arity(S) >= 2 andalso length(Parts) =:= arity(S),
    Table = table(atom_to_binary(Label, utf8)),
    Known = [N || N <- lists:seq(length(Parts) - 1, 1, -1), has(kw(lists:sublist(Parts, N)), Table)],
    [N | _] = Known,
    {First, Rest} = lists:split(N, Parts),
    Names = [<<C>> || C <- lists:seq($a, $z)],
    {FirstNames, RestNames} = lists:split(N, lists:sublist(Names, length(Parts))),
    Recv = case binary:split(atom_to_binary(Label, utf8), <<" class">>) of
               [Base, <<>>] -> Base;
               _ -> <<"x">>
           end,
    iolist_to_binary([atom_to_binary(Label, utf8), " understands '", kw(First),
                      "'; the keywords of one message make one selector, so to send '", kw(Rest),
                      "' to its answer, put the first message in parentheses: (", Recv, " ",
                      words(First, FirstNames), ") ", words(Rest, RestNames)]).

kw(Parts) -> iolist_to_binary([[P, <<":">>] || P <- Parts]).

%% A selector no code ever named is not an atom yet: not understood.
has(Name, Table) ->
    try maps:is_key(binary_to_existing_atom(Name, utf8), Table)
    catch error:badarg -> false
    end.

words(Parts, Names) ->
    iolist_to_binary(lists:join(<<" ">>, [[P, <<": ">>, A] || {P, A} <- lists:zip(Parts, Names)])).

%% `start`, `at: a put: b`, `+ a`: a selector written as a method header.
header(S) ->
    case arity(S) of
        0 -> S;
        _ ->
            case binary:split(S, <<":">>, [global, trim_all]) of
                [S] -> <<S/binary, " a">>;
                Parts ->
                    Names = lists:sublist([<<C>> || C <- lists:seq($a, $z)], length(Parts)),
                    iolist_to_binary(lists:join(<<" ">>, [[P, <<": ">>, N] || {P, N} <- lists:zip(Parts, Names)]))
            end
    end.

%% `#(1, 2) collect: 3`: the collection sent value: to what it was given.
for_class1(Label, Sel) when Sel =:= 'value:'; Sel =:= 'value:value:'; Sel =:= 'value:value:value:' ->
    {Users, Params} = case Sel of
                          'value:' -> {"collect:, select:, detect: or do:", "[:x | ...]"};
                          'value:value:' -> {"inject:into:, sort: or keysAndValuesDo:", "[:a :b | ...]"};
                          _ -> {"a method taking a three-argument block", "[:a :b :c | ...]"}
                      end,
    iolist_to_binary([atom_to_binary(Sel, utf8), " runs a Block: where a method such as ", Users,
                      " was given ", article(Label), ", give it a Block (", Params, ")"]);
%% A condition that answered something else than a Boolean (`3 ifTrue:`,
%% a Set's `select: [:x | nil]`, a Stream filter's `not`).
for_class1(Label, Sel) when Sel =:= 'ifTrue:'; Sel =:= 'ifFalse:'; Sel =:= 'ifTrue:ifFalse:';
                           Sel =:= 'ifFalse:ifTrue:'; Sel =:= 'not'; Sel =:= 'and:'; Sel =:= 'or:' ->
    iolist_to_binary([atom_to_binary(Sel, utf8), " is understood by true and false only: this condition answered ",
                      article(Label), " (blocks given to select:, reject:, detect: and whileTrue: must answer "
                      "a Boolean too)"]);
%% Selectors whose Beamtalk spelling depends on the receiver's class.
%% Pharo's `[...] fork`; `spawn` would otherwise be "a class-side method of
%% Block" (every class answers it, to refuse it), which fails again.
for_class1('Block', Sel) when Sel =:= fork; Sel =:= spawn; Sel =:= 'forkAt:'; Sel =:= newProcess;
                             Sel =:= 'forkNamed:'; Sel =:= spawnLink ->
    <<"a Block runs in a process of its own with Erlang erlang spawn: aBlock (an error there is "
      "reported as a crashed process); spawn makes an actor of an Actor subclass">>;
%% `x on: Error do: [...]` with x no Block: the protected code goes in
%% brackets (`on:do:` is a Block message); it said "did you mean 'to:do:'?".
for_class1(Label, Sel) when Label =/= 'Block', (Sel =:= 'on:do:' orelse Sel =:= 'ensure:'
                                                orelse Sel =:= 'ifCurtailed:') ->
    Form = case Sel of
               'on:do:' -> <<"[...] on: Error do: [:e | ...]">>;
               'ensure:' -> <<"[...] ensure: [...]">>;
               'ifCurtailed:' -> <<"[...] ifCurtailed: [...]">>
           end,
    <<(atom_to_binary(Sel, utf8))/binary, " is sent to a Block: put the code it protects in brackets (",
      Form/binary, ")">>;
for_class1('List', 'length') -> <<"size answers the number of elements">>;
for_class1('List', 'contains:') ->
    <<"anySatisfy: [:x | ...] tests the elements; includes: x looks for one">>;
for_class1('String', 'contains:') -> <<"includesSubstring: \"text\" tests for a substring">>;
for_class1('String', 'at:put:') ->
    <<"Strings are immutable values: build a new one with ++, take:, drop: or replaceAll:with:">>;
for_class1('String class', Sel) when Sel =:= 'with:'; Sel =:= 'with:with:'; Sel =:= 'new:withAll:' ->
    %% Pharo's `String with: $a`: a Character is its code point
    <<"a String is built from Strings: \"h\", \"ab\" ++ \"c\", String withAll: #(\"a\", \"b\"); "
      "from code points: String withAll: #(104, 105)">>;
for_class1('Dictionary', 'add:') -> <<"at: key put: value answers a new Dictionary with the pair">>;
for_class1('Float', 'printString:') ->
    <<"printString: prints an Integer in a base; to show a Float to 2 decimals: "
      "x printShowingDecimalPlaces: 2">>;
for_class1(Label, Sel) when Sel =:= 'spawn:'; Sel =:= 'spawnWith' ->
    %% `Counter spawn: 5`: an actor starts from its state: defaults, or
    %% from a Dictionary of field values
    case binary:split(atom_to_binary(Label, utf8), <<" class">>) of
        [Base, <<>>] ->
            case catch beamtalk_class:inherits_from(binary_to_existing_atom(Base, utf8), 'Actor') of
                true ->
                    <<"spawn starts an actor with its state: defaults; spawnWith: #{#field => value} "
                      "gives fields their first values">>;
                _ -> nil
            end;
        _ -> nil
    end;
for_class1('Character class', Sel) when Sel =:= cr; Sel =:= lf; Sel =:= tab; Sel =:= space; Sel =:= newline ->
    %% a Character is its code point (spec syntax 2.5)
    <<"a Character is its code point, an Integer: $\\n is 10, $\\t 9, $  32 (Character value: 10); "
      "for a line break in output send Transcript cr">>;
for_class1('Stream', Sel) when Sel =:= next; Sel =:= 'next:'; Sel =:= upToEnd; Sel =:= atEnd;
                             Sel =:= 'nextPutAll:'; Sel =:= 'nextPut:'; Sel =:= contents; Sel =:= skip ->
    %% Pharo's positionable streams: a Beamtalk Stream is lazy and immutable
    <<"a Stream is a lazy sequence, not a position: take: n answers the first n elements, asList all of "
      "them, drop: n the rest; text is built with ++ or Transcript show:">>;
for_class1('TranscriptStream', Sel) when Sel =:= newLine; Sel =:= newline; Sel =:= nl; Sel =:= lf;
                                       Sel =:= crlf; Sel =:= println ->
    <<"cr writes a line break (Transcript show: \"text\"; cr)">>;
for_class1(L, S) when (L =:= 'List' orelse L =:= 'Interval' orelse L =:= 'Set'),
                     (S =:= 'max:' orelse S =:= 'min:') ->
    <<"max answers the largest element; (c collect: [:x | ...]) max the largest of a key">>;
%% Data in and out: the names Python, JavaScript and Pharo users reach for.
for_class1('JSON class', S) when S =:= 'loads:'; S =:= 'decode:'; S =:= 'fromString:';
                                S =:= 'readFrom:'; S =:= 'load:' ->
    <<"JSON parse: text answers the value (objects become Dictionaries with String keys)">>;
for_class1('JSON class', S) when S =:= 'dumps:'; S =:= 'encode:'; S =:= 'stringify:';
                                S =:= 'toString:'; S =:= 'dump:'; S =:= 'render:' ->
    <<"JSON generate: value answers compact JSON text; JSON prettyPrint: value indents it">>;
for_class1('File class', S) when S =:= 'appendAll:contents:'; S =:= 'append:contents:';
                                S =:= 'append:to:'; S =:= 'appendText:to:' ->
    <<"File has no append: write the old and the new text together "
      "(File writeAll: p contents: (File readAll: p) ++ more)">>;
for_class1('File class', S) when S =:= 'delete:'; S =:= 'remove:'; S =:= 'deleteFile:';
                                S =:= 'rename:to:'; S =:= 'list:'; S =:= 'listDirectory:';
                                S =:= 'entries:'; S =:= 'mkdir:'; S =:= 'createDirectory:' ->
    <<"File reads and writes whole files; OTP's file module does the rest: "
      "Erlang file delete: p, Erlang file rename: a with: b, "
      "Erlang file make_dir: p (they answer #ok or {#error, reason}); File exists: p tests a path">>;
for_class1('File class', S) when S =:= 'read:'; S =:= 'readFile:'; S =:= 'contentsOf:'; S =:= 'readText:' ->
    <<"File readAll: path answers the contents; File readLines: path the lines">>;
for_class1('File class', S) when S =:= 'write:contents:'; S =:= 'write:to:'; S =:= 'writeFile:contents:';
                                S =:= 'writeText:to:' ->
    <<"File writeAll: path contents: text creates or replaces the file">>;
for_class1('Integer', 'atRandom') ->
    <<"Random nextInteger: n answers an Integer from 1 to n">>;
for_class1('Random class', S) when S =:= 'between:and:'; S =:= 'randint:and:'; S =:= 'nextInt:';
                                  S =:= 'integer:' ->
    <<"Random nextInteger: n answers an Integer from 1 to n (a + (Random nextInteger: b - a + 1) - 1 "
      "for a..b); Random seed: n a reproducible generator">>;
for_class1(L, S) when (L =:= 'List' orelse L =:= 'Array'), (S =:= 'shuffle' orelse S =:= 'shuffled') ->
    <<"no shuffle: sort by random keys, (c collect: [:x | Random next -> x]) sort collect: [:a | a value]">>;
for_class1('Stream', S) when S =:= size; S =:= length ->
    <<"a Stream is lazy and has no size: asList size reads it all and counts">>;
for_class1(_, _) -> nil.

%% Selectors of Pharo and Squeak (and Python) that Beamtalk spells
%% differently (only reached when the receiver does not understand them).
elsewhere('remove:') ->
    <<"collections are immutable values: reject: [:x | x = item] answers a new collection without it">>;
elsewhere(S) when S =:= 'asSortedCollection'; S =:= 'asSortedCollection:'; S =:= 'sorted';
                  S =:= 'sorted:' ->
    <<"sort answers a new sorted List (sort: [:a :b | a <= b] with your own order)">>;
elsewhere(S) when S =:= 'printShowingDecimalPlaces:'; S =:= 'printString:decimalPlaces:';
                  S =:= 'printOn:showingDecimalPlaces:' ->
    <<"x printShowingDecimalPlaces: 2 shows a Number with 2 decimals">>;
elsewhere('asArray') -> <<"make an Array with Array withAll: aList">>;
elsewhere('first:') -> <<"take: n answers the first n elements">>;
elsewhere('last:') -> <<"drop: c size - n answers the last n elements">>;
elsewhere(S) when S =:= 'append:'; S =:= 'addLast:' ->
    <<"add: answers a new List with the element at the end (addFirst: at the front)">>;
elsewhere('with:collect:') ->
    <<"zip: pairs two Lists; or (1 to: a size) collect: [:i | (a at: i) + (b at: i)]">>;
elsewhere(S) when S =:= 'sum:'; S =:= 'detectSum:' ->
    <<"inject: 0 into: [:acc :x | acc + ...] sums; sum adds the elements themselves">>;
elsewhere('detectMax:') ->
    <<"(c collect: [:x | key]) max answers the largest key; c inject: c first into: [:best :x | ...] "
      "keeps the element">>;
elsewhere('detectMin:') ->
    <<"(c collect: [:x | key]) min answers the smallest key; c inject: c first into: [:best :x | ...] "
      "keeps the element">>;
elsewhere(S) when S =:= 'readStream'; S =:= 'writeStream'; S =:= 'iter' ->
    <<"stream answers a lazy Stream over the collection (c stream)">>;
elsewhere('anyOne') -> <<"first answers an element (an error when the collection is empty)">>;
elsewhere(S) when S =:= 'substrings'; S =:= 'substrings:'; S =:= 'subStrings';
                  S =:= 'subStrings:'; S =:= 'tokenize:'; S =:= 'findTokens:' ->
    <<"words splits at white space, split: \",\" at a separator">>;
elsewhere(S) when S =:= 'beginsWith:'; S =:= 'endsWithAnyOf:' ->
    <<"startsWith: and endsWith: test the ends of a String">>;
elsewhere(S) when S =:= 'replace:with:'; S =:= 'copyReplacing:with:'; S =:= 'replaceString:withString:' ->
    <<"replaceAll: \"old\" with: \"new\" (replaceFirst:with: for the first one)">>;
elsewhere(S) when S =:= 'upper'; S =:= 'lower'; S =:= 'toUpperCase'; S =:= 'toLowerCase' ->
    <<"uppercase and lowercase convert the case">>;
elsewhere('len') -> <<"size answers the number of characters (graphemes)">>;
elsewhere('removeKey:ifAbsent:') ->
    <<"removeKey: answers a new Dictionary and ignores a missing key; test includesKey: first">>;
elsewhere('items') -> <<"keys, values and stream (of Associations) answer the contents">>;
elsewhere('quo:') -> <<"div: truncates toward zero (7 div: 2 is 3); % is the remainder">>;
elsewhere('to:collect:') ->
    <<"(1 to: 3) is an Interval: (1 to: 3) collect: [:i | ...] answers a List">>;
elsewhere('copyFrom:to:') ->
    <<"from: start to: end answers the elements (or characters) from start to end">>;
elsewhere(S) when S =:= 'readFrom:radix:'; S =:= 'readFrom:base:'; S =:= 'asIntegerRadix:';
                  S =:= 'asNumberRadix:'; S =:= 'asIntegerBase:' ->
    <<"read text in another base in the radix form of an Integer literal: (\"16r\" ++ \"ff\") asInteger "
      "is 255 (255 printString: 16 writes \"FF\")">>;
elsewhere(S) when S =:= 'ifEmpty:'; S =:= 'ifNotEmpty:'; S =:= 'ifEmpty:ifNotEmpty:';
                  S =:= 'ifNotEmpty:ifEmpty:' ->
    <<"test isEmpty: c isEmpty ifTrue: [...] ifFalse: [...]">>;
elsewhere(S) when S =:= 'trimSeparators'; S =:= 'trimBoth' ->
    <<"a String answers trim (and trimLeft, trimRight)">>;
elsewhere(S) when S =:= 'findFirst:'; S =:= 'findIndex:'; S =:= 'indexWhere:' ->
    <<"the index of the first match: (1 to: c size) detect: [:i | (c at: i) > 4] ifNone: [0] "
      "(indexOf: x finds an element)">>;
elsewhere(S) when S =:= 'average'; S =:= 'mean'; S =:= 'avg' ->
    <<"c sum / c size is the mean (a Float)">>;
elsewhere('occurrencesOf:') ->
    <<"count the matches: (c select: [:x | x = item]) size">>;
elsewhere('allButFirst') ->
    <<"rest answers all but the first element (drop: n all but the first n)">>;
elsewhere('allButLast') ->
    <<"take: c size - 1 answers all but the last element">>;
elsewhere('asSet') ->
    <<"make a Set with Set withAll: aList">>;
elsewhere('asOrderedCollection') ->
    <<"a List is the growable sequence (#(1, 2) add: 3 answers a new List); asList makes one">>;
elsewhere('copyWithout:') ->
    <<"reject: [:x | x = item] answers a new collection without it (collections are immutable values)">>;
elsewhere('copyWith:') ->
    <<"add: answers a new List with the element (collections are immutable values)">>;
elsewhere('addAll:') ->
    <<"++ joins two Lists (a ++ b answers a new List)">>;
elsewhere(S) when S =:= 'removeFirst'; S =:= 'removeLast'; S =:= 'removeAll:' ->
    <<"collections are immutable values: first and rest answer the head and a new tail, "
      "reject: a new collection without some elements">>;
elsewhere('mod:') ->
    <<"% is the remainder (its sign follows the receiver's) and div: the truncating division">>;
elsewhere(S) when S =:= 'printStringRadix:'; S =:= 'radix:'; S =:= 'printStringBase:';
                  S =:= 'printString:base:' ->
    <<"printString: 16 prints in another base">>;
elsewhere('printPaddedWith:to:') ->
    <<"pad the text: 5 printString padLeft: 3 with: \"0\"">>;
elsewhere('instVarNamed:') ->
    <<"read a field with fieldAt: #name">>;
elsewhere('instVarNamed:put:') ->
    <<"write a field with fieldAt: #name put: value">>;
elsewhere(S) when S =:= 'instVarAt:'; S =:= 'instVarAt:put:' ->
    <<"fields are reached by name: fieldNames lists them, fieldAt: #name reads one "
      "(fieldAt: #name put: value writes an actor's)">>;
elsewhere(S) when S =:= 'instanceVariableNames:'; S =:= 'addInstVarNamed:' ->
    <<"add a field to a live class with its builder: C classBuilder addField: #x default: nil; "
      "register (or define the class again with state: x = ...)">>;
elsewhere(S) when S =:= 'instVarNames'; S =:= 'allInstVarNames' ->
    <<"a class lists its fields with fieldNames (allFieldNames with the inherited ones)">>;
elsewhere(S) when S =:= 'allInstances'; S =:= 'allInstancesDo:'; S =:= 'instanceCount' ->
    <<"values have no identity to enumerate; the live actors of a class are Workspace actorsOf: "
      "TheClass">>;
elsewhere(S) when S =:= 'compiledMethodAt:'; S =:= 'lookupSelector:' ->
    <<"C >> #sel answers the CompiledMethod C defines (whichClassIncludesSelector: #sel finds "
      "the class that defines an inherited one)">>;
elsewhere(S) when S =:= 'valueWithReceiver:arguments:'; S =:= 'valueWithReceiver:' ->
    <<"run a method by its selector: receiver perform: aMethod selector withArguments: args">>;
elsewhere('argumentCount') ->
    <<"a Block and a Symbol answer numArgs (argumentCount is a CompiledMethod's)">>;
elsewhere('sourceCodeAt:') ->
    <<"(C >> #sel) source answers a method's source">>;
elsewhere('methodDict') ->
    <<"methods lists the selectors a class defines (allMethods with the inherited ones); "
      "C >> #sel answers one">>;
elsewhere(S) when S =:= 'comment'; S =:= 'comment:' ->
    <<"a class's comment is its doc (doc: \"text\" sets it; a /// comment above the class "
      "header writes it)">>;
elsewhere('printOn:') ->
    <<"printString answers the developer text and displayString the user text; override "
      "printString to change both">>;
elsewhere('even') -> <<"did you mean 'isEven'?">>;
elsewhere('odd') -> <<"did you mean 'isOdd'?">>;
elsewhere('withIndexDo:') ->
    <<"iterate with eachWithIndex: [:x :i | ...]">>;
elsewhere('reverseDo:') ->
    <<"iterate the reversed copy: aList reverse do: [:x | ...]">>;
elsewhere('associationsDo:') ->
    <<"iterate a Dictionary with keysAndValuesDo: [:k :v | ...]">>;
elsewhere(S) when S =:= 'bindWith:'; S =:= 'bindWith:with:'; S =:= 'bindWith:with:with:';
                  S =:= 'format:' ->
    <<"interpolate instead: \"{a} is {b}\"">>;
elsewhere(S) when S =:= 'displayNl'; S =:= 'printNl'; S =:= 'displayString:' ->
    <<"write to the Transcript: Transcript show: x printString; cr">>;
elsewhere('log:') ->
    <<"divide natural logarithms: x ln / base ln (log10 and log2 exist)">>;
elsewhere('value:value:value:value:') ->
    <<"valueWithArguments: #(a, b, c, d) calls a block of four or more arguments">>;
elsewhere(S) when S =:= 'map:'; S =:= 'flatMap'; S =:= 'mapcar:' ->
    <<"collect: [:x | ...] answers a new collection of the block's results">>;
elsewhere(S) when S =:= 'filter:'; S =:= 'where:'; S =:= 'findAll:' ->
    <<"select: [:x | ...] answers the elements the block is true for (reject: the others)">>;
elsewhere(S) when S =:= 'reduce:'; S =:= 'fold:'; S =:= 'inject:'; S =:= 'reduce:initial:' ->
    <<"inject: 0 into: [:acc :x | acc + x] folds the elements from a start value">>;
elsewhere(S) when S =:= 'forEach:'; S =:= 'each:'; S =:= 'foreach:'; S =:= 'for:' ->
    <<"do: [:x | ...] runs the block for each element">>;
elsewhere(S) when S =:= 'push:'; S =:= 'append'; S =:= 'insert:' ->
    <<"add: answers a new List with the element at the end (addFirst: at the front); "
      "collections are immutable values, so keep the answer: xs := xs add: x">>;
elsewhere(S) when S =:= 'toInt'; S =:= 'toInteger'; S =:= 'parseInt'; S =:= 'toNumber';
                  S =:= 'asInt'; S =:= 'int' ->
    <<"asInteger converts a String to an Integer (asNumber also reads a Float)">>;
elsewhere(S) when S =:= 'isA:'; S =:= 'isInstanceOf:'; S =:= 'instanceOf:'; S =:= 'isKindOf' ->
    <<"isKindOf: aClass tests the class and its superclasses (x class == C the exact class)">>;
elsewhere(S) when S =:= 'if:'; S =:= 'then:'; S =:= 'if:else:'; S =:= 'ifTrue:else:' ->
    <<"a Boolean answers ifTrue: [...] and ifTrue: [...] ifFalse: [...]">>;
elsewhere('count') ->
    <<"size answers the number of elements (count: [:x | ...] the number the block is true for)">>;
elsewhere(S) when S =:= 'with:'; S =:= 'with:with:'; S =:= 'with:with:with:'; S =:= 'with:with:with:with:' ->
    <<"make a collection from a List of its elements: Array withAll: #(1, 2) (or the literal #(1, 2))">>;
elsewhere('squared') ->
    <<"multiply: x * x (or x ** 2)">>;
elsewhere(S) when S =:= halt; S =:= 'halt:'; S =:= 'haltIf:'; S =:= haltOnce; S =:= 'haltIfNil' ->
    %% Pharo's breakpoint, in a method: the REPL has no debugger to open
    <<"there is no debugger to stop in: an uncaught error's Location names the method and line and "
      "_error stackTrace its frames; show values on the way with Transcript show: x printString; cr">>;
elsewhere(S) when S =:= signalerContext; S =:= signalContext ->
    <<"an exception carries its frames: e stackTrace (its first frame is where it was raised)">>;
elsewhere(_) -> nil.

%% `e receiver` (Pharo's MessageNotUnderstood) on an exception only.
for_class(Label, receiver) when is_atom(Label) ->
    case catch (Label =:= 'Exception' orelse beamtalk_class:inherits_from(Label, 'Exception')) of
        true -> receiver_hint();
        _ -> nil
    end;
for_class(Label, Sel) -> for_class1(Label, Sel).

receiver_hint() ->
    <<"an exception answers errorClass (the class of the object that failed) and selector, not the "
      "object itself; to keep the object, catch the error where you still hold it">>.

%% A selector of the receiver's class with the same number of arguments that
%% differs only in case, or by at most two edits (selectors of 5 characters
%% or more only: short ones are too alike to guess from).
nearest(Label, Sel) ->
    Name = atom_to_binary(Sel, utf8),
    Table = table(atom_to_binary(Label, utf8)),
    Arity = arity(Name),
    Lower = string:lowercase(Name),
    Scored = [{case string:lowercase(K) of Lower -> 0; LK -> beamtalk_class_hint:distance(Lower, LK) end, K}
              || S <- maps:keys(Table), is_atom(S),
                 K <- [atom_to_binary(S, utf8)], K =/= Name, binary:first(K) =/= $$,
                 arity(K) =:= Arity],
    Limit = case byte_size(Name) < 5 of true -> 0; false -> 2 end,
    Plural = <<Lower/binary, "s">>,
    %% (a short name is matched only by case, or as a singular: `line`)
    case lists:sort([S || {D, K} = S <- Scored, D =< Limit orelse string:lowercase(K) =:= Plural]) of
        [{_, Best} | _] -> Best;
        [] -> nil
    end.

%% The method table of a class label (`Integer`, or `Integer class` for its
%% class side).
table(Label) ->
    case binary:split(Label, <<" class">>) of
        [Base, <<>>] -> beamtalk_class:class_side_methods(binary_to_existing_atom(Base, utf8));
        _ -> beamtalk_class:instance_methods(binary_to_existing_atom(Label, utf8))
    end.

arity(Name) ->
    case Name of
        <<C, _/binary>> when C >= $a, C =< $z; C >= $A, C =< $Z; C =:= $_ ->
            length(binary:matches(Name, <<":">>));
        _ -> 1
    end.

%% `an Integer`, `a String`.
article(Label) ->
    Name = atom_to_binary(Label, utf8),
    case Name of
        <<C, _/binary>> when C =:= $A; C =:= $E; C =:= $I; C =:= $O; C =:= $U -> <<"an ", Name/binary>>;
        _ -> <<"a ", Name/binary>>
    end.
