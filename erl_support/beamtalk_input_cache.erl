%% @doc Skips compile:forms and the reload for an input whose code is
%% already loaded: the same line typed again (`3 + 4`, `counter value`,
%% an up-arrow re-run) in the same session.
%%
%% Why: compiling, purging and loading a tiny module costs about a
%% millisecond, most of the REPL's round trip, and purge and load both go
%% through the code server.  The input is still compiled by compile:forms
%% the first time (DESIGN: never evaluated outside it); what is reused is
%% the module that compile made, and only when it came from exactly the
%% same forms: each compiled input carries the MD5 of its forms as the
%% attribute `beamtalk_input`, and a module whose attribute matches is run
%% as it is.  Any difference (another binding set, a class the compiler
%% saw differently, another module name) gives other forms, so a compile.
-module(beamtalk_input_cache).
-export([key/1, is_loaded/2, mark/2]).

-define(ATTR, beamtalk_input).

%% @doc The key of an input's forms.
key(Forms) ->
    erlang:md5(term_to_binary(Forms)).

%% @doc True when Mod is loaded and was compiled from the forms of Key.
is_loaded(Mod, Key) ->
    erlang:module_loaded(Mod) andalso
        lists:member({?ATTR, [Key]}, Mod:module_info(attributes)).

%% @doc The forms with their key as an attribute (after the module attribute).
mark([{attribute, A, module, _} = M | Rest], Key) ->
    [M, {attribute, A, ?ATTR, Key} | Rest];
mark(Forms, _Key) ->
    Forms.
