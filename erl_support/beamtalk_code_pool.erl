%% @doc A bounded pool of module names for inputs that make funs (REPL
%% inputs with blocks, `beamtalk:eval/1`), and the collector that gives a
%% name back once nothing can call its code any more.
%%
%% Why: a fun names its code by module atom, so an input whose blocks may
%% live on (in bindings, actor state, ETS tables, `Workspace` globals,
%% classes) needs its module to stay loaded as long as any of its funs
%% exists.  Minting a module per input kept that promise but cost one atom
%% and one loaded module per input for the life of the node.  Here a name
%% is lent for one input and afterwards the module's code is made "old"
%% (`code:delete/1`: existing funs keep running it, nothing new can start
%% it); the name goes back to the free list only when
%%
%%   * no fun of the module exists anywhere on the node: each fun entry of
%%     the module is represented here by a *sample* fun (rebuilt from the
%%     module's `FunT` chunk with `binary_to_term`), and the emulator's
%%     reference count of that entry (`erlang:fun_info(F, refc)`) counts every
%%     fun term of it in any process heap, message, ETS table or persistent
%%     term; the entry is unused when the count is back to what it was just
%%     after loading (code + sample).  (In OTP 25 `check_process_code` no
%%     longer looks at funs, so a purge would break them silently.)
%%   * and no process is executing the old code (`code:soft_purge/1`).
%%
%% Funs that are garbage still count until their process collects, so a
%% sweep first collects the processes that ran inputs and the workspace
%% server (which keeps the old bindings maps until it collects).  Sweeps
%% run when a name is wanted, no name is free and the modules waiting for
%% release have reached a threshold that doubles with the number still in
%% use: the cost stays proportional to the inputs, and the names in
%% existence stay at (modules still referenced) + threshold.
%%
%% Not seen by the count: a fun kept only inside a binary
%% (`term_to_binary`) or on another node; such a fun raises `undef` when
%% called after its module went.
-module(beamtalk_code_pool).
-behaviour(gen_server).

-export([start_link/0, checkout/0, loaded/2, release/1, stats/0, sweep/0]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2, terminate/2,
         code_change/3]).

-define(SERVER, ?MODULE).
-define(MIN_THRESHOLD, 16).
-define(PREFIX, "bt@in@").
-define(RECENT, 8).

-record(st, {free = [] :: [atom()],
             next = 1 :: pos_integer(),
             held = #{} :: #{atom() => {pid(), reference(), [{fun(), integer()}]}},
             pending = #{} :: #{atom() => [{fun(), integer()}]},
             threshold = ?MIN_THRESHOLD :: pos_integer(),
             recent = [] :: [pid()],
             minted = 0 :: non_neg_integer(),
             sweeps = 0 :: non_neg_integer()}).

%%% API

start_link() ->
    gen_server:start_link({local, ?SERVER}, ?MODULE, [], []).

%% @doc A module name free for the caller's next input (no current or old
%% code).  It is the caller's until `release/1` or until the caller exits.
checkout() ->
    case whereis(?SERVER) of
        undefined ->
            %% No pool (a runtime started without its supervisor): one fresh
            %% name per input, as before there was a pool.
            list_to_atom(?PREFIX ++ "x" ++ integer_to_list(erlang:unique_integer([positive])));
        _ ->
            gen_server:call(?SERVER, {checkout, self()}, infinity)
    end.

%% @doc Tell the pool which funs the module just loaded under Mod can make:
%% call right after loading Bin and before running any of its code.
loaded(Mod, Bin) ->
    Samples = [{S, refc(S)} || S <- samples(Mod, Bin)],
    gen_server:cast(?SERVER, {loaded, Mod, Samples}).

%% @doc The input that ran in Mod is done: its code becomes old (its funs
%% keep working) and the name returns to the pool once nothing refers to it.
release(Mod) ->
    gen_server:cast(?SERVER, {release, Mod, self()}).

%% @doc Counts, for tests and `beamtalk workspace status`.
stats() ->
    gen_server:call(?SERVER, stats).

%% @doc Collect now (tests; normally a sweep runs when a name is wanted).
sweep() ->
    gen_server:call(?SERVER, sweep, infinity).

%%% gen_server

init([]) ->
    {ok, #st{}}.

handle_call({checkout, Pid}, _From, St0) ->
    {Mod, St1} = take_name(St0),
    Mon = erlang:monitor(process, Pid),
    Recent = lists:sublist([Pid | lists:delete(Pid, St1#st.recent)], ?RECENT),
    {reply, Mod, St1#st{held = maps:put(Mod, {Pid, Mon, []}, St1#st.held),
                        recent = Recent}};
handle_call(stats, _From, St) ->
    {reply, #{minted => St#st.minted,
              free => length(St#st.free),
              pending => maps:size(St#st.pending),
              held => maps:size(St#st.held),
              sweeps => St#st.sweeps,
              threshold => St#st.threshold}, St};
handle_call(sweep, _From, St) ->
    {reply, ok, collect(St)};
handle_call(_Other, _From, St) ->
    {reply, {error, unknown_request}, St}.

handle_cast({loaded, Mod, Samples}, St) ->
    case maps:find(Mod, St#st.held) of
        {ok, {Pid, Mon, _}} ->
            {noreply, St#st{held = maps:put(Mod, {Pid, Mon, Samples}, St#st.held)}};
        error ->
            {noreply, St}
    end;
handle_cast({release, Mod, Pid}, St) ->
    case maps:find(Mod, St#st.held) of
        {ok, {Pid, Mon, Samples}} ->
            erlang:demonitor(Mon, [flush]),
            {noreply, retire(Mod, Samples, St#st{held = maps:remove(Mod, St#st.held)})};
        _ ->
            {noreply, St}
    end;
handle_cast(_Msg, St) ->
    {noreply, St}.

%% A holder that died (killed evaluator, interrupted caller) gives back
%% what it held; its funs may still live elsewhere, so its modules wait
%% like any other.
handle_info({'DOWN', Mon, process, _Pid, _Reason}, St) ->
    Gone = [{M, S} || {M, {_, Mn, S}} <- maps:to_list(St#st.held), Mn =:= Mon],
    St1 = lists:foldl(fun({M, S}, Acc) ->
                              retire(M, S, Acc#st{held = maps:remove(M, Acc#st.held)})
                      end, St, Gone),
    {noreply, St1};
handle_info(_Msg, St) ->
    {noreply, St}.

terminate(_Reason, _St) -> ok.

code_change(_Old, St, _Extra) -> {ok, St}.

%%% Names

take_name(#st{free = [Mod | Rest]} = St) ->
    {Mod, St#st{free = Rest}};
take_name(St0) ->
    St = case maps:size(St0#st.pending) >= St0#st.threshold of
             true -> collect(St0);
             false -> St0
         end,
    case St#st.free of
        [Mod | Rest] -> {Mod, St#st{free = Rest}};
        [] -> mint(St)
    end.

%% A new name; one an earlier pool (before a restart) left code under is
%% skipped, as its funs may still be alive.
mint(#st{next = N} = St) ->
    Mod = list_to_atom(?PREFIX ++ integer_to_list(N)),
    case erlang:module_loaded(Mod) orelse erlang:check_old_code(Mod) of
        true -> mint(St#st{next = N + 1});
        false -> {Mod, St#st{next = N + 1, minted = St#st.minted + 1}}
    end.

retire(Mod, Samples, St) ->
    _ = code:delete(Mod),
    St1 = St#st{pending = maps:put(Mod, Samples, St#st.pending)},
    case Samples of
        [] -> release_unused(Mod, St1);      % makes no funs: free at once if idle
        _ -> St1
    end.

release_unused(Mod, St) ->
    case maps:find(Mod, St#st.pending) of
        {ok, Samples} ->
            case unused(Samples) andalso purge(Mod) of
                true -> St#st{pending = maps:remove(Mod, St#st.pending),
                              free = [Mod | St#st.free]};
                false -> St
            end;
        error -> St
    end.

%% Collect the processes that ran inputs (and the workspace server and the
%% store), then
%% give back every waiting name whose funs are all gone.
collect(St0) ->
    %% The store keeps the last bindings it wrote (beamtalk_store): its old
    %% copies are garbage to collect like the workspace server's.
    Procs = lists:usort([P || P <- [whereis(beamtalk_workspace), whereis(beamtalk_store)
                                    | St0#st.recent],
                              is_pid(P), is_process_alive(P)]),
    [catch erlang:garbage_collect(P) || P <- Procs],
    St = lists:foldl(fun release_unused/2, St0, maps:keys(St0#st.pending)),
    Alive = [P || P <- St#st.recent, is_process_alive(P)],
    St#st{threshold = max(?MIN_THRESHOLD, 2 * maps:size(St#st.pending)),
          recent = Alive, sweeps = St#st.sweeps + 1}.

purge(Mod) ->
    case erlang:check_old_code(Mod) of
        false -> not erlang:module_loaded(Mod);
        true -> code:soft_purge(Mod)
    end.

unused(Samples) ->
    lists:all(fun({S, Base}) -> refc(S) =< Base end, Samples).

%% The reference count of a fun's entry; a release of OTP without it keeps
%% every module (safe, never wrong).
refc(F) ->
    try erlang:fun_info(F, refc) of
        {refc, N} when is_integer(N) -> N;
        _ -> infinity_refc()
    catch _:_ -> infinity_refc()
    end.

infinity_refc() -> 1 bsl 60.

%%% Samples: one fun per fun entry of a loaded module

%% The `FunT` chunk lists each fun entry (lifted function, arity with the
%% free variables, index, number of free variables, old uniq); with the
%% module's MD5 that is all the external term format needs to rebuild a fun
%% of that entry.  The sample's free variables are `nil`: it is never called.
samples(Mod, Bin) ->
    case {beam_lib:chunks(Bin, ["FunT"]), beam_lib:md5(Bin)} of
        {{ok, {Mod, [{"FunT", <<Count:32, Entries/binary>>}]}}, {ok, {Mod, MD5}}} ->
            entries(Count, Entries, Mod, MD5);
        _ ->
            []
    end.

entries(0, _, _, _) -> [];
entries(K, <<_Name:32, Arity:32, _Label:32, Index:32, NumFree:32, OldUniq:32, Rest/binary>>,
        Mod, MD5) ->
    Body = <<(Arity - NumFree):8, MD5/binary, Index:32, NumFree:32,
             (ext(Mod))/binary, (ext(Index))/binary, (ext(OldUniq))/binary,
             (ext(self()))/binary,
             (binary:copy(ext(nil), NumFree))/binary>>,
    Sample = binary_to_term(<<131, 112, (byte_size(Body) + 4):32, Body/binary>>),
    [Sample | entries(K - 1, Rest, Mod, MD5)];
entries(_, _, _, _) -> [].

ext(Term) ->
    <<131, E/binary>> = term_to_binary(Term),
    E.
