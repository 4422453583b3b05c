"""The MCP tools, declared to the official SDK (`mcp.server.mcpserver`) and
served over stdio.

The SDK derives each tool's JSON schema from the function's annotations
(the `Field` descriptions are what an agent reads); every tool answers a
`CallToolResult` built from live.py's `ToolAnswer`, so an error is a tool
error (`isError`) carrying the REPL's own text, never a protocol failure.
Nothing here writes to stdout: that is the protocol's channel.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from beamtalk_ws import __version__

from .live import LiveWorkspace, ToolAnswer, unquote

INSTRUCTIONS = """\
Beamtalk is a Smalltalk on the Erlang BEAM. These tools drive one session of a
live workspace: bindings, classes and actors persist between calls (and for
people attached with `beamtalk repl`). Evaluate expressions with `eval`
(e.g. `x := 3 + 4`, `Counter spawn`), define classes by loading .bt files
(`load`, `reload`) or method by method (`compile_method`), look around with
`classes`, `class_info`, `method_source`, `bindings`, `complete`, run BUnit
tests with `test`, and stop a runaway evaluation with `interrupt`."""

ClassName = Annotated[str, Field(description="A class name, e.g. Counter or Integer")]
Selector = Annotated[str, Field(description="A method selector: increment, at:put:, + (no leading #)")]
ClassSide = Annotated[bool, Field(description="true for a class-side method (Counter class >> new)")]


def _result(answer: ToolAnswer) -> CallToolResult:
    text = answer.full_text()
    data = answer.data
    if data is not None and answer.output and "output" not in data:
        data = {**data, "output": "".join(answer.output)}
    if data is not None and not answer.error:
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=answer.error)


_KINDS = {"string": "a string", "integer": "an integer", "boolean": "true or false",
          "number": "a number", "null": "null"}


def _kind(schema: dict) -> str:
    kinds = [_KINDS.get(s.get("type"), str(s.get("type"))) for s in schema.get("anyOf", [schema])
             if s.get("type") not in (None, "null")]
    return " or ".join(kinds) or "a value"


def arguments_text(tool: str, schema: dict | None, error: ValidationError) -> str:
    """What was wrong with a call's arguments, in words an agent acts on (the
    SDK's text is pydantic's, with its error codes and a web link)."""
    props = (schema or {}).get("properties", {})
    required = set((schema or {}).get("required", []))
    parts = []
    for err in error.errors():
        name = ".".join(str(p) for p in err["loc"])
        if err["type"] == "missing":
            parts.append(f"the argument `{name}` is missing")
        elif err["type"].endswith(("_type", "_parsing")) and name in props:
            parts.append(f"`{name}` must be {_kind(props[name])}, not {err.get('input')!r}")
        else:
            parts.append(f"`{name}`: {err['msg']}")
    takes = ", ".join(f"{n} ({_kind(p)}{', required' if n in required else ''})" for n, p in props.items())
    return f"{tool}: " + "; ".join(parts) + (f"; {tool} takes {takes}" if takes else f"; {tool} takes no arguments")


class BeamtalkMCPServer(MCPServer):
    async def call_tool(self, name, arguments, context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if isinstance(e.__cause__, ValidationError):
                tool = self._tool_manager.get_tool(name)
                raise ToolError(arguments_text(name, tool.parameters if tool else None, e.__cause__)) \
                    from e.__cause__
            raise


def _report(answer: ToolAnswer) -> ToolAnswer:
    """A report the node answers as a String (`Workspace changesReport`, `flush`):
    its text, not its printString in quotes."""
    if not answer.error and answer.data is not None and isinstance(answer.data.get("value"), str):
        text = unquote(answer.data["value"])
        return ToolAnswer(text, data={**answer.data, "value": text}, output=answer.output)
    return answer


def build_server(live: LiveWorkspace) -> MCPServer:
    server = BeamtalkMCPServer("beamtalk", version=__version__, instructions=INSTRUCTIONS)
    reads = ToolAnnotations(read_only_hint=True)

    @server.tool(description=(
        "Evaluate Beamtalk code in the live workspace session and answer the value's printString. "
        "Several statements separated by `.` answer the last one's value; `x := …` keeps x for later "
        "calls. Output written while it runs (Transcript show:, io:format) comes first in the answer. "
        "A syntax, compile or runtime error is a tool error with the REPL's text (file:line:col and a "
        "caret for syntax errors). REPL commands such as `:help Integer` work too."))
    async def eval(code: Annotated[str, Field(description="Beamtalk source, e.g. `3 + 4` or "
                                                         "`Transcript show: \"hi\"; cr`")]) -> CallToolResult:
        return _result(await live.guarded(live.evaluate, code))

    @server.tool(description=(
        "Compile and load a .bt file (one class per file) or every .bt file of a directory into the "
        "workspace. Running actors keep their state and run the new code. A file that does not compile "
        "changes nothing; its errors come back as a tool error."))
    async def load(path: Annotated[str, Field(description="Path of a .bt file or a directory, relative to "
                                                         "the directory `beamtalk mcp` runs in")]) -> CallToolResult:
        return _result(await live.guarded(live.load, path))

    @server.tool(description=(
        "Hot-reload: load the last `load`ed path again, or, given a class name, that class's source file."))
    async def reload(class_name: Annotated[str | None, Field(description="Reload only this class's file")]
                     = None) -> CallToolResult:
        return _result(await live.guarded(live.reload, class_name))

    @server.tool(description=(
        "Completion candidates for the word before `cursor` in `code`, as the REPL's Tab offers them: "
        "bindings, class names, selectors of a receiver whose class the text tells (`3 pri`, "
        "`Counter ne`, `x siz` for a binding x), Erlang modules and their functions (`Erlang lists re`)."),
        annotations=reads)
    async def complete(code: Annotated[str, Field(description="The text being typed")],
                       cursor: Annotated[int | None, Field(description="Offset of the cursor in code "
                                                                       "(default: the end)")] = None
                       ) -> CallToolResult:
        return _result(await live.guarded(live.complete, code, cursor))

    @server.tool(description="This session's variables and the printString of their values.", annotations=reads)
    async def bindings() -> CallToolResult:
        return _result(await live.guarded(live.bindings))

    @server.tool(description=(
        "The names of the classes the workspace knows: every class, or with loaded_only only those "
        "loaded from your files (`Workspace classes`)."), annotations=reads)
    async def classes(loaded_only: Annotated[bool, Field(description="Only classes loaded from files")] = False
                      ) -> CallToolResult:
        return _result(await live.guarded(live.classes, loaded_only))

    @server.tool(description=(
        "What a class is: superclass, kind (object, value, actor), fields, its doc comment, its "
        "instance and class methods with their doc comments and the class defining each, and its "
        "source file (null for a class typed at the REPL or built at run time)."), annotations=reads)
    async def class_info(class_name: ClassName) -> CallToolResult:
        return _result(await live.guarded(live.class_info, class_name))

    @server.tool(description="The source text of one method, as it was compiled.", annotations=reads)
    async def method_source(class_name: ClassName, selector: Selector, class_side: ClassSide = False
                            ) -> CallToolResult:
        return _result(await live.guarded(live.method_source, class_name, selector, class_side))

    @server.tool(description=(
        "Add or replace one method of a class in the live workspace (`Counter compile: \"…\"`): the "
        "source is a whole method definition such as `increment => self.n := self.n + 1`, written as "
        "in a class body. Instances and actors use it on their next message."))
    async def compile_method(class_name: ClassName,
                             source: Annotated[str, Field(description="One method: `selector => body`, "
                                                                      "e.g. `double: x => x * 2`")],
                             class_side: ClassSide = False) -> CallToolResult:
        return _result(await live.guarded(live.compile_method, class_name, source, class_side))

    @server.tool(description="Remove one method from a class in the live workspace (`Counter removeSelector: #sel`).")
    async def remove_method(class_name: ClassName, selector: Selector, class_side: ClassSide = False
                            ) -> CallToolResult:
        return _result(await live.guarded(live.remove_method, class_name, selector, class_side))

    @server.tool(description=(
        "Run BUnit tests in the workspace: every TestCase subclass, or one class. Answers structured "
        "results (passed, failed, errors, total, and per test: class, test, status pass|fail|error, "
        "message); failing tests are a normal answer, not a tool error."))
    async def test(class_name: Annotated[str | None, Field(description="Run only this TestCase subclass")]
                   = None) -> CallToolResult:
        return _result(await live.guarded(live.test, class_name))

    @server.tool(description=(
        "In a package: the pending changes of src/ files that REPL edits made (a class typed at the "
        "REPL, compile_method, remove_method, ClassBuilder), one per line with its id, class, kind and "
        "target file. Nothing is pending outside a package."), annotations=reads)
    async def changes() -> CallToolResult:
        return _result(_report(await live.guarded(live.evaluate, "Workspace changesReport")))

    @server.tool(description=(
        "Write every pending change into its src/ file, keeping the rest of each file (comments, order "
        "of methods) as it was. A file changed on disk since it was loaded is refused (tool error) and "
        "its changes stay pending."))
    async def flush() -> CallToolResult:
        return _result(_report(await live.guarded(live.evaluate, "Workspace flush")))

    @server.tool(description=(
        "Drop one pending change (by the id `changes` lists) without writing it; the live class keeps "
        "the method until it is reloaded from its file."))
    async def revert(change_id: Annotated[int, Field(description="The id of a pending change", ge=1)]
                     ) -> CallToolResult:
        return _result(await live.guarded(live.evaluate, f"Workspace revert: {int(change_id)}"))

    @server.tool(description=(
        "Stop the evaluation this session is running (an endless loop, a long wait). The session's "
        "bindings stay as they were before it."))
    async def interrupt() -> CallToolResult:
        return _result(await live.guarded(live.interrupt))

    return server


async def serve(ws, session: str = "mcp", idle_timeout: int | None = None, connect=None) -> int:
    live = LiveWorkspace(ws, session, idle_timeout, connect)
    server = build_server(live)
    try:
        await server.run_stdio_async()
    finally:
        await live.close()
    return 0

