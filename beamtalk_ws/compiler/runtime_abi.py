"""The contract between generated code and the Erlang runtime (`erl_support/`).

Generated code calls only the functions listed here; the runtime provides
exactly these.  Keeping the list in one place is what lets the code generator
and the runtime change independently.

Values are BEAM terms as DESIGN D6 says.  Class objects are
`{beamtalk_object, 'Name class', Module, ClassPid}`, metaclass objects
`{beamtalk_object, 'Metaclass', Module, ClassPid}` (D8), actors
`{beamtalk_object, 'Name', Module, ActorPid}`.  Value objects are maps with
`'$beamtalk_class' => Name` and one key per field.

Method calling conventions (entries of a method table):

* `{v, Fun}` — value style: `Fun(Self, A1, ..., An) -> Result`.  Used for
  instance methods of value/object classes, for every class-side method
  (Self is the class object) and for Object methods inherited by actors.
* `{a, Fun}` — actor style: `Fun(Self, State, A1, ..., An) -> {Result, State1}`.
  Self is the actor record, State the actor's state map; used for instance
  methods of actor classes.  The actor process stores State1.

Class descriptions (argument of `beamtalk_class:define/1`, built by the
ClassBuilder protocol, seed ADR 0038) are maps:

    #{name => atom(), superclass => atom() | nil,
      module => atom() | undefined,            % undefined for dynamic classes
      fields => [{Name, DefaultFun :: fun(() -> term())}],   % own fields, in order
      methods => #{Selector => {v | a, Fun}},
      class_methods => #{Selector => Fun},       % value style
      class_vars => [{Name, DefaultFun}],
      modifiers => [abstract | sealed | typed],
      sealed_methods => [Selector],
      source => binary() | undefined, source_file => binary() | undefined,
      doc => binary() | nil,
      method_info => #{Selector => #{source => binary(), doc => binary() | nil,
                                     class_side => boolean()}}}

The ClassBuilder conversation the compiler emits for a definition
(`Super classBuilder`, then these messages, each with one argument, then
`register`, which answers the class object):

    name: atom()              fields: [{Name, DefaultFun}]
    methods: #{Sel => {v | a, Fun}}          classMethods: #{Sel => Fun}
    classVars: [{Name, DefaultFun}]          modifiers: [abstract | sealed | typed]
    info: #{doc => binary() | nil, source => binary(),
            methods => #{{Sel, ClassSide :: boolean()} => #{source, doc, sealed}}}

The kind (actor / value / object) follows the superclass chain (spec
semantics §3.2); `define/1` answers the class object, and registering a name
that exists updates that class in place (hot reload, semantics §10).
"""

from __future__ import annotations

# module, function -- the runtime entry points generated code may call
SEND = ("beamtalk_dispatch", "send")              # send(Receiver, Selector, Args) -> Result
SEND_CALLING = ("beamtalk_dispatch", "send")      # send(Receiver, Selector, Args, Function): as send/3,
# and an Erlang module proxy calls Module:Function(Args...) straight away (compiler/proxy_sends.py)
SUPER_SEND = ("beamtalk_send", "super_send")      # super_send(DefiningClass, Self, Selector, Args)
ACTOR_SELF_SEND = ("beamtalk_send", "self_send")  # self_send(Self, State, Selector, Args) -> {Result, State1}
ACTOR_SUPER_SEND = ("beamtalk_send", "super_self_send")
# super_self_send(DefiningClass, Self, State, Selector, Args) -> {Result, State1}
CAST = ("beamtalk_send", "cast")                  # cast(Receiver, Selector, Args) -> ok
CLASS_OF = ("beamtalk_send", "class_of")          # class_of(Value) -> class object
RESPONDS_TO = ("beamtalk_send", "responds_to")    # responds_to(Value, Selector) -> boolean()
GLOBAL = ("beamtalk_class", "global")             # global(Name) -> class object | workspace global
CLASS_INFO = ("beamtalk_class", "info")          # info(Name) -> {ok, #{kind, fields (own), superclass}} | error
DEFINE_CLASS = ("beamtalk_class", "define")       # define(Description) -> class object
ADD_METHOD = ("beamtalk_class", "add_method")     # add_method(ClassObject, Selector, {v|a, Fun}, Info) -> ok
CLASS_VAR = ("beamtalk_class", "class_var")       # class_var(ClassObject, Name) -> Value
SET_CLASS_VAR = ("beamtalk_class", "set_class_var")  # set_class_var(ClassObject, Name, Value) -> Value
BLOCK_VALUE = ("beamtalk_block", "value")         # value(Block, Args) -> Result (arity-checked)
TIMES_COUNT = ("beamtalk_block", "times_count")  # times_count(N) -> N (an Integer) or the send's DNU
LOOP_BOUNDS = ("beamtalk_block", "loop_bounds")  # loop_bounds(Sel, Start, Stop, Step) -> ok (Numbers) or raises
NEW_EXCEPTION_TOKEN = ("erlang", "make_ref")      # per-invocation token of non-local return
ON_DO = ("beamtalk_exception", "on_do")           # on_do(BodyFun, Filter, HandlerFun) -> Result
ENSURE = ("beamtalk_exception", "ensure")         # ensure(BodyFun, CleanupFun) -> Result
IF_CURTAILED = ("beamtalk_exception", "if_curtailed")
ERROR = ("beamtalk_exception", "user_error")      # user_error(Receiver, Message) -> no_return()
FIELD_ERROR = ("beamtalk_exception", "raise")     # raise(Kind, Class, Selector, Message, Hint)
PRINT_STRING = ("beamtalk_print", "print_string")
DISPLAY_STRING = ("beamtalk_print", "display_string")
CONCAT = ("beamtalk_rt", "concat")
ARRAY_FROM_LIST = ("beamtalk_rt", "array_from_list")
ELEMENTS = ("beamtalk_rt", "elements")            # elements(Collection) -> the list `do:` visits
CELL = ("beamtalk_rt", "cell")                    # cell(Key, Default) -> the threaded values of a cell block
STATE_KEPT = ("beamtalk_rt", "state_kept")        # state_kept(Self, State0, State1, Selector): error if they differ
CELL_RUN = ("beamtalk_rt", "cell_run")            # cell_run([{{Ref, Name}, Captured}], Fun) -> Fun()
ASSOCIATION = ("beamtalk_rt", "association")      # association(Key, Value)
MISSING_FIELD = ("beamtalk_object", "missing_field")  # missing_field(Name, Value): a field read that found no key
ERLANG_CALL = ("beamtalk_erlang", "call")         # call(Module, Function, Args) with interop error mapping
ERLANG_INVOKE = ("beamtalk_erlang", "invoke")     # invoke(Module, Function, Args): `Erlang m f: x`, mapped on failure
MATCH_ERROR = ("beamtalk_exception", "no_match")  # no_match(Value): no match: arm matched

# Non-local return: a block's `^v` throws {'$bt_nlr', Token, v}; the method
# that lexically contains the block catches it by Token.
NLR_TAG = "$bt_nlr"
CLASS_KEY = "$beamtalk_class"
