"""Which messages to `Erlang` and to its module proxies are not Erlang calls
(seed ADR 0028).  Shared by the compiler (what `Erlang m f: x` compiles to)
and the REPL's completion (what it offers after `Erlang x `), which must
read the text the same way; kept apart so the REPL need not import the
compiler to know it.
"""

#: Messages an ErlangModule proxy answers itself instead of forwarding them
#: (stdlib/erlang_module.bt and the Object protocol it keeps, seed ADR 0028
#: "Proxy selector collision"): `Erlang lists class` is ErlangModule.
PROXY_OWN_SELECTORS = frozenset({
    "class", "==", "/=", "=", "~=", "call:args:", "methods", "module", "printString", "displayString",
    "respondsTo:", "perform:", "perform:withArguments:", "yourself", "hash", "isNil", "notNil",
})

#: Unary messages the `Erlang` class itself answers: `Erlang class` is its
#: metaclass, not the module `class`.
ERLANG_CLASS_SELECTORS = frozenset({
    "class", "printString", "displayString", "name", "yourself", "hash", "isNil", "notNil", "asString",
    "superclass", "allSuperclasses", "subclasses", "allSubclasses", "methods", "localMethods",
    "classMethods", "doc", "isClass", "isMeta", "sourceFile", "new", "spawn",
})
