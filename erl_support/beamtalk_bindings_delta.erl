%% @doc What changed between two versions of a session's bindings map.
%%
%% Why: a session's bindings live in the workspace server, its evaluator
%% process and the store process, and a message between processes copies
%% the whole term.  Handing the whole map over on every input copied every
%% bound value twice or three times per input (a bound million-element
%% List: about 40 ms of every later `3 + 4`, scripts/bench_workspace.py).
%% Each of those processes keeps its own copy instead and is sent only the
%% names whose values changed.  Comparing two versions is cheap: a value
%% that did not change is the same term in both, and `=:=` answers for the
%% same term without looking inside it.
-module(beamtalk_bindings_delta).

-export([diff/2, patch/2]).

-type delta() :: same | {delta, Changed :: map(), Removed :: [atom()]}.
-export_type([delta/0]).

%% @doc The change from Old to New.
-spec diff(map(), map()) -> delta().
diff(Same, Same) -> same;
diff(Old, New) ->
    Changed = maps:filter(fun(K, V) ->
                                  case Old of
                                      #{K := V} -> false;
                                      _ -> true
                                  end
                          end, New),
    Removed = [K || K <- maps:keys(Old), not is_map_key(K, New)],
    case {map_size(Changed), Removed} of
        {0, []} -> same;
        _ -> {delta, Changed, Removed}
    end.

%% @doc Base with a change applied.
-spec patch(map(), delta()) -> map().
patch(Base, same) -> Base;
patch(Base, {delta, Changed, []}) -> maps:merge(Base, Changed);
patch(Base, {delta, Changed, Removed}) -> maps:merge(maps:without(Removed, Base), Changed).
