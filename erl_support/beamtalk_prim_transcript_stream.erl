%% @doc Primitive methods of TranscriptStream (stdlib §10).  Instance
%% methods are actor style, `F(Self, State, Args...) -> {Result, State1}`,
%% and run inside the Transcript process (`beamtalk_transcript`, which also
%% documents where the text goes).  Every command answers the Transcript
%% itself, so cascades read naturally:
%% `Transcript show: "a"; cr; show: "b"`.
-module(beamtalk_prim_transcript_stream).

-export(['show:'/3, 'display:'/3, 'print:'/3, 'showCr:'/3, 'cr'/2, 'tab'/2,
         'space'/2, 'nl'/2, 'recent'/2, 'clear'/2, 'subscribe'/2, 'unsubscribe'/2,
         'class current'/1, 'class current:'/2, 'class new'/1, 'class new:'/2, 'class spawn'/1,
         'class spawnWith:'/2]).

'show:'(Self, St, V) -> {Self, beamtalk_transcript:emit(St, text(V))}.
'display:'(Self, St, V) -> {Self, beamtalk_transcript:emit(St, text(V))}.
'print:'(Self, St, V) -> {Self, beamtalk_transcript:emit(St, print(V))}.
'showCr:'(Self, St, V) -> {Self, beamtalk_transcript:emit(St, <<(text(V))/binary, "\n">>)}.
'cr'(Self, St) -> {Self, beamtalk_transcript:emit(St, <<"\n">>)}.
'nl'(Self, St) -> {Self, beamtalk_transcript:emit(St, <<"\n">>)}.
'tab'(Self, St) -> {Self, beamtalk_transcript:emit(St, <<"\t">>)}.
'space'(Self, St) -> {Self, beamtalk_transcript:emit(St, <<" ">>)}.

'recent'(_Self, #{ring := Q} = St) -> {queue:to_list(Q), St}.
'clear'(Self, St) -> {Self, St#{ring => queue:new(), count => 0}}.

'subscribe'(Self, St) ->
    {Self, beamtalk_transcript:add_subscriber(St, beamtalk_transcript:caller())}.
'unsubscribe'(Self, St) ->
    {Self, beamtalk_transcript:remove_subscriber(St, beamtalk_transcript:caller())}.

'class current'(_Cls) -> beamtalk_transcript:current().
%% There is one Transcript per node (`new`/`spawn` are refused), so the only
%% actor `current:` can be given is that one; anything else is a TypeError.
'class current:'(Cls, T) ->
    case beamtalk_transcript:current() of
        T -> Cls;
        _ -> beamtalk_exception:raise(
               type_error, 'TranscriptStream', 'current:',
               iolist_to_binary(["TranscriptStream current: expects the Transcript, not ",
                                 beamtalk_print:print_string(T)]),
               <<"TranscriptStream is a singleton: there is no other Transcript to install">>)
    end.
'class new'(_Cls) -> singleton(new).
'class new:'(_Cls, _) -> singleton('new:').
'class spawn'(_Cls) -> singleton(spawn).
'class spawnWith:'(_Cls, _) -> singleton('spawnWith:').

singleton(Sel) ->
    beamtalk_exception:raise(
      instantiation_error, 'TranscriptStream', Sel,
      iolist_to_binary(["Cannot call '", atom_to_binary(Sel, utf8), "' on TranscriptStream"]),
      <<"TranscriptStream is a singleton: use Transcript (or TranscriptStream current)">>).

%% An actor that is waiting on the Transcript cannot print itself for it:
%% use the default rendering instead of a call that would wait.
text({beamtalk_object, _, Mod, Pid} = V) when Mod =/= beamtalk_class ->
    case Pid =:= beamtalk_transcript:caller() of
        true -> beamtalk_print:base_print_string(V);
        false -> beamtalk_transcript:display_text(V)
    end;
text(V) -> beamtalk_transcript:display_text(V).

print({beamtalk_object, _, Mod, Pid} = V) when Mod =/= beamtalk_class ->
    case Pid =:= beamtalk_transcript:caller() of
        true -> beamtalk_print:base_print_string(V);
        false -> beamtalk_print:print_string(V)
    end;
print(V) -> beamtalk_print:print_string(V).
