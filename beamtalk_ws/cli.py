"""The `beamtalk` command line.

Each subcommand is a small function; errors a user can cause are printed as
one clear message (exit status 1), never as a Python traceback.  Set
BEAMTALK_DEBUG=1 to see tracebacks of internal errors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from beamtalk_ws import __version__
from beamtalk_ws.stdio_text import use_utf8_stdio
from beamtalk_ws.workspace import launcher, paths
from beamtalk_ws.dist.errors import DistError
from beamtalk_ws.package.manifest import PackageError
from beamtalk_ws.workspace.errors import WorkspaceError


def _add_workspace_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", metavar="NAME", help="use the named workspace instead of the project's")
    p.add_argument("--timeout", type=int, metavar="SECS",
                   help="idle timeout of a workspace started now (default 14400)")
    p.add_argument("--persistent", action="store_true", help="a workspace started now never idles out")


def _add_remote_opts(p: argparse.ArgumentParser, detach: bool = False) -> None:
    """Flags for a node beamtalk did not start (beamtalk_ws/repl/remote_cmd.py)."""
    from beamtalk_ws.repl.remote_cmd import add_target_opts

    add_target_opts(p, required=False)
    if detach:
        p.add_argument("--unload", action="store_true", help="remove everything Beamtalk added to the node")
    else:
        p.add_argument("--upgrade", action="store_true",
                       help="replace another beamtalk version's runtime on the node (its state is lost)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="beamtalk", description="Beamtalk live workspace")
    parser.add_argument("--version", action="version", version=f"beamtalk {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    repl = sub.add_parser("repl", help="interactive REPL attached to the project's workspace")
    _add_workspace_opts(repl)
    repl.add_argument("--session", default="default", metavar="NAME", help="session to resume (default: default)")
    repl.add_argument("--json", action="store_true", help="JSON lines protocol on stdin/stdout")
    repl.add_argument("--ephemeral", action="store_true", help="stop the workspace when the REPL exits")
    repl.add_argument("--no-start", action="store_true", help="attach only; do not start a workspace")
    _add_remote_opts(repl)

    ws = sub.add_parser("workspace", help="manage workspaces")
    wsub = ws.add_subparsers(dest="ws_command", metavar="ACTION")
    for name, text in (("start", "start a workspace node (restoring its stored state)"),
                       ("status", "show a workspace"), ("stop", "stop a workspace node"),
                       ("restart", "stop and start a workspace node; its state is restored"),
                       ("reset", "stop a workspace and drop its stored state (starts empty)")):
        p = wsub.add_parser(name, help=text)
        p.add_argument("name", nargs="?", help="workspace name or id (default: this project's)")
        if name in ("start", "restart", "reset"):
            p.add_argument("--timeout", type=int, metavar="SECS", help="idle timeout (default 14400)")
            p.add_argument("--persistent", action="store_true", help="never idle out")
        if name == "start":
            p.add_argument("--watch", action="store_true",
                           help="in a package: load it and hot-reload src/ on every save")
            p.add_argument("--tls", action="store_true",
                           help="TLS distribution with mutual certificates (a CA of the workspace's own)")
            p.add_argument("--listen", metavar="ADDR",
                           help="listen for distribution on ADDR instead of 127.0.0.1 (needs --tls)")
            p.add_argument("--port", type=int, metavar="N", help="fixed distribution port of a TLS workspace")
        if name in ("stop", "restart", "reset"):
            p.add_argument("--force", action="store_true", help="kill the node if it does not answer")
        if name == "reset":
            p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    wsub.add_parser("list", help="list workspaces")
    exp = wsub.add_parser("export-credentials", help="write what another host needs to attach (mode 0600)")
    exp.add_argument("name", nargs="?", help="workspace name or id (default: this project's)")
    exp.add_argument("-o", "--output", metavar="FILE", help="default: beamtalk-<id>.credentials")
    exp.add_argument("--address", metavar="ADDR", help="the address other hosts reach this one at")

    test = sub.add_parser("test", help="run BUnit tests in a fresh workspace",
                          description="Compile and load the .bt files (a directory means every .bt file "
                                      "below it; fixtures/ directories are loaded first) into a fresh "
                                      "workspace and run every test method of every TestCase subclass.")
    test.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: test/)")
    test.add_argument("--format", choices=("text", "json"), default="text",
                      help="json: one JSON object per line per test")

    tr = sub.add_parser("transcript", help="follow a workspace's Transcript (Ctrl-C to stop)")
    tr.add_argument("--workspace", metavar="NAME", help="use the named workspace instead of the project's")
    tr.add_argument("--no-follow", action="store_true", help="print the buffered text and exit")

    new = sub.add_parser("new", help="create a package (beamtalk.toml, src/, test/)")
    new.add_argument("name", help="package name: lowercase letters, digits and underscores")

    bld = sub.add_parser("build", help="compile the package's src/ into _build/dev/ebin/",
                         description="In a package (a directory with beamtalk.toml, or below one): compile "
                                     "src/ into _build/dev/ebin/ with an OTP .app file.  Outside a package: "
                                     "compile the given FILE into build/; given a package directory, build that package.")
    bld.add_argument("file", nargs="?", metavar="PATH", help="a package directory to build, or a single .bt file (outside a package)")
    bld.add_argument("--force", action="store_true", help="rebuild even when nothing changed")

    run = sub.add_parser("run", help="build the package and send start to its start class (or run FILE)",
                         description="Build the package, load it into the project's workspace (starting "
                                     "it if needed) and send `start` to the class of the manifest's start "
                                     "file.  The workspace keeps running: attach with beamtalk repl.  "
                                     "Given a FILE: run its statements (or send start to its class) in "
                                     "the workspace of the current directory.")
    run.add_argument("file", nargs="?", metavar="FILE", help="a .bt file to run instead of the package")
    _add_workspace_opts(run)
    run.add_argument("--watch", action="store_true", help="and have the workspace hot-reload src/ on every save")

    watch = sub.add_parser("watch", help="hot-reload .bt files into the workspace on every save",
                           description="Attach to the project's workspace (starting it if needed), load "
                                       "PATH (default: the package's src/) and reload it whenever a .bt file "
                                       "below it is saved, until Ctrl-C.  Actors keep running.")
    watch.add_argument("path", nargs="?", metavar="PATH", help="a .bt file or a directory")
    _add_workspace_opts(watch)

    mcp = sub.add_parser("mcp", help="Model Context Protocol server (stdio) on the project's workspace")
    _add_workspace_opts(mcp)
    mcp.add_argument("--session", default="mcp", metavar="NAME", help="session to use (default: mcp)")
    _add_remote_opts(mcp)
    lsp = sub.add_parser("lsp", help="Language Server Protocol server (stdio) for editors")
    lsp.add_argument("--workspace", metavar="NAME", help="complete from this workspace (if running) instead of the project's")
    det = sub.add_parser("detach", help="leave a node attached with `repl --node` (--unload removes Beamtalk)",
                         description="Beamtalk loaded into a node by `beamtalk repl --node` stays there when "
                                     "the REPL quits; --unload stops its processes and removes its modules.")
    _add_remote_opts(det, detach=True)

    check = sub.add_parser("check", help="check .bt files for errors", add_help=False)
    check.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    use_utf8_stdio()
    try:
        if argv and argv[0] == "check":
            return cmd_check(argv[1:])
        if len(argv) == 2 and argv[0] == "new" and argv[1].startswith("-") and argv[1] not in ("-h", "--help"):
            argv = ["new", "--", argv[1]]  # `beamtalk new -dashes-` is a (bad) name, not an option
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command == "repl":
            return asyncio.run(cmd_repl(args))
        if args.command == "detach":
            from beamtalk_ws.repl.remote_cmd import cmd_detach
            return asyncio.run(cmd_detach(args))
        if args.command == "workspace":
            return cmd_workspace(args, parser)
        if args.command == "transcript":
            return asyncio.run(cmd_transcript(args))
        if args.command == "new":
            return cmd_new(args)
        if args.command == "build":
            return cmd_build(args)
        if args.command == "run":
            return asyncio.run(cmd_run(args))
        if args.command == "watch":
            return asyncio.run(cmd_watch(args))
        if args.command in ("mcp", "lsp"):
            return cmd_editors(args)
        if args.command == "test":
            from beamtalk_ws.bunit import cmd_test
            return cmd_test(args.paths, args.format)
        parser.print_help()
        return 2
    except PackageError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    except WorkspaceError as e:
        print(f"beamtalk: {e}", file=sys.stderr)
        return 1
    except DistError as e:
        # The node went away or refused us while we talked to it (it was
        # stopped, killed, or restarted under us): say so, no traceback.
        print(f"beamtalk: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`beamtalk check --emit forms x.bt | head`): not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except Exception as e:  # noqa: BLE001 - last line of defence against tracebacks
        if os.environ.get("BEAMTALK_DEBUG"):
            raise
        print(f"beamtalk: internal error: {type(e).__name__}: {e} (set BEAMTALK_DEBUG=1 for details)",
              file=sys.stderr)
        return 1


def cmd_check(argv: list[str]) -> int:
    from beamtalk_ws.compiler.check import emit_forms, semantic_pass
    from beamtalk_ws.syntax.check import check_main

    if not [a for a in argv if not a.startswith("-")]:
        # no PATH: inside a package, its sources and tests (as `build` and
        # `test` find them); outside one, check_main says a PATH is needed
        from beamtalk_ws.package.manifest import find_root

        root = find_root()
        if root is not None:
            argv = [*argv, *(os.path.relpath(d) for d in (root / "src", root / "test") if d.is_dir())]
    return check_main(argv, extra_passes=(semantic_pass,), emit_forms=emit_forms)


# ---------------------------------------------------------------------------
# packages

def cmd_new(args) -> int:
    from pathlib import Path

    from beamtalk_ws.package.scaffold import new

    root = new(args.name, Path.cwd())
    print(f"Created package '{args.name}'\n\nNext steps:\n  cd {os.path.relpath(root)}\n"
          f"  beamtalk build\n  beamtalk repl")
    return 0


def _warn(warnings, to=sys.stderr) -> None:
    for w in warnings:
        print(f"\u26a0 {w}", file=to)


def _manifest_or_error():
    from beamtalk_ws.package import manifest

    m = manifest.find()
    if m is None:
        raise PackageError(f"no {manifest.MANIFEST} in {os.getcwd()} or any directory above it "
                           f"(beamtalk new NAME creates a package)")
    _warn(m.warnings, sys.stderr)
    return m


def _report_build(result) -> int:
    _warn(result.warnings, sys.stderr)
    if result.ok:
        return 0
    for _f, text in result.errors:
        print(text, file=sys.stderr)
    n = len(result.errors)
    print(f"Build failed: {n} file{'s' if n != 1 else ''} did not compile", file=sys.stderr)
    return 1


def cmd_build(args) -> int:
    from pathlib import Path

    from beamtalk_ws.package import build, manifest

    if args.file and Path(args.file).is_dir():
        # `beamtalk build pkgs/app` from a repository root builds that package
        # (it said "no such file"); a directory outside any package is refused
        m = manifest.find(Path(args.file))
        if m is None:
            raise PackageError(f"{args.file} is a directory without a beamtalk.toml in it or above it: "
                               "beamtalk build builds the package it is given or run in, or one .bt file")
        _warn(m.warnings, sys.stderr)
        return _report_build(build.build(m, force=args.force, log=print))
    where = Path(args.file).resolve().parent if args.file else None
    if args.file and not Path(args.file).is_file():
        raise PackageError(f"{args.file}: no such file")
    m = manifest.find(where)
    if m is None:
        if not args.file:
            _manifest_or_error()  # raises: not in a package
        return _report_build(build.build_file(Path(args.file), Path("build"), log=print))
    _warn(m.warnings, sys.stderr)
    return _report_build(build.build(m, force=args.force, log=print))


async def cmd_run(args) -> int:
    from beamtalk_ws.package.live import build_and_load, start_class, supervisor_start_code
    from beamtalk_ws.repl.attach import idle_timeout_from, open_client
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.repl.run_file import console, run_file

    if args.file:
        if args.watch:
            raise PackageError("--watch reloads a package's src/: run FILE without it "
                               "(or `beamtalk watch FILE` to reload the file on every save)")
        return await run_file(args, open_client, idle_timeout_from(args))
    m = _manifest_or_error()
    if not m.start:
        start_class(m, None)  # the library error
    if not m.start_file.is_file():
        raise PackageError(f"start = \"{m.start}\" in beamtalk.toml names {m.start_file}, which does not exist")
    ws = paths.resolve(args.workspace, m.root)
    client = await open_client(ws, "run", start="auto", idle_timeout=idle_timeout_from(args))
    try:
        # `start` may read stdin (io:get_line) and its actors write in the background
        output = await console(client)
        loaded = await build_and_load(client, m, on_output=output)
        if not loaded.ok:
            print(loaded.text, file=sys.stderr)
            return 1
        cls = start_class(m, loaded.build)
        for code in (supervisor_start_code(m, loaded.build), f"{cls} start"):
            if code is None:
                continue
            outcome = await Repl(client).evaluate_code(code, on_output=output)
            if not outcome.ok:
                # say which step failed, as the OTP application does
                # ("app: Main start failed: ..."), then the error itself
                print(f"{m.name}: `{code}` failed:\n{outcome.text}", file=sys.stderr)
                return 1
        print(f"Started {m.name} v{m.version} in workspace '{ws.id}' ({ws.node_name}): "
              f"beamtalk repl attaches to it, beamtalk workspace stop stops it.")
        if args.watch:
            await watch_package(ws, m)
        return 0
    finally:
        await client.close()


async def cmd_watch(args) -> int:
    """`beamtalk watch`: load PATH (or the package), have the workspace watch it
    (the watch stays after this command ends), and follow the reload reports
    on the Transcript until Ctrl-C."""
    from beamtalk_ws.repl.attach import idle_timeout_from, open_client
    from beamtalk_ws.repl.commands import watch
    from beamtalk_ws.repl.core import Repl, print_outcome

    from pathlib import Path

    m = None if args.path else _manifest_or_error()
    if args.path and not Path(args.path).expanduser().exists():
        raise PackageError(f"{args.path}: no such file or directory")
    ws = paths.resolve(args.workspace, m.root if m else None)
    # Every `beamtalk watch` works in the session 'watch', which holds no
    # bindings of the user's: a second one is not told it shares them.
    client = await open_client(ws, "watch", start="auto", idle_timeout=idle_timeout_from(args),
                               note_shared=False)
    try:
        repl = Repl(client)
        repl.package = m
        if m is not None:
            print_outcome(await repl.load_package())
        started = await watch(repl, args.path or "", stop_hint="Workspace unwatch: stops it; Ctrl-C stops "
                                                                "following")
        print_outcome(started)
        if not started.ok:
            return 1
        await client.subscribe_transcript()
        return await _follow_transcript(client, ws, "its watches are kept and resume when it starts again.")
    finally:
        await client.close()


async def watch_package(ws, m) -> None:
    """`--watch`: build and load the package, and have the workspace watch src/."""
    from beamtalk_ws.repl.commands import watch
    from beamtalk_ws.repl.core import Repl, print_outcome
    from beamtalk_ws.workspace.client import WorkspaceClient

    client = await WorkspaceClient.connect(ws, session="watch")
    try:
        repl = Repl(client)
        repl.package = m
        loaded = await repl.load_package()
        if not loaded.ok:
            print_outcome(loaded)
        outcome = await watch(repl, "", stop_hint="Workspace unwatch: stops it")
        print(outcome.text, file=sys.stdout if outcome.ok else sys.stderr)
    finally:
        await client.close()


# ---------------------------------------------------------------------------
# editors and agents (stdio servers: nothing else may write to stdout)

def cmd_editors(args) -> int:
    if args.command == "lsp":
        from beamtalk_ws.lsp.server import serve as serve_lsp
        return serve_lsp(args.workspace)
    from beamtalk_ws.mcp.server import serve
    from beamtalk_ws.repl.attach import idle_timeout_from

    if args.node or args.credentials:
        # A node beamtalk did not start, as `beamtalk repl --node` attaches to it.
        from beamtalk_ws.repl.remote_cmd import target_from
        from beamtalk_ws.workspace import remote

        target = target_from(args)

        async def connect(say):
            client = await remote.attach(target, args.session, upgrade=args.upgrade, say=say)
            say(client.attach_note)
            return client

        return asyncio.run(serve(None, args.session, None, connect))
    return asyncio.run(serve(paths.resolve(args.workspace), args.session, idle_timeout_from(args)))


# ---------------------------------------------------------------------------
# repl

async def cmd_repl(args) -> int:
    from beamtalk_ws.repl.attach import idle_timeout_from, open_client
    from beamtalk_ws.repl.core import Repl

    interactive = sys.stdin.isatty() and not args.json
    attached = bool(args.node or args.credentials)
    if attached:
        from beamtalk_ws.repl.remote_cmd import open_remote_client
        client = await open_remote_client(args)
        ws = client.ws
    else:
        ws = paths.resolve(args.workspace)
        start = "never" if args.no_start else ("ask" if interactive else "auto")
        client = await open_client(ws, args.session, start=start, idle_timeout=idle_timeout_from(args),
                                   ask=_ask_yes if interactive else None)
    if not interactive and not attached:
        _warn_if_stale_runtime(client)
    repl = Repl(client)
    try:
        if not attached:
            await _open_package(repl, ws, args, to=sys.stderr if args.json else sys.stdout)
        if args.json:
            from beamtalk_ws.repl.json_mode import JsonRepl
            if attached:
                return await JsonRepl(repl, revive=False).run()
            return await JsonRepl(repl, reopen=lambda: open_client(
                ws, args.session, start=start, idle_timeout=idle_timeout_from(args))).run()
        if interactive:
            from beamtalk_ws.repl import interactive as terminal
            # The staleness check imports the compiler: done once the prompt shows.
            return await terminal.run(repl, history_path=ws.history,
                                      notes=lambda: None if attached else _stale_runtime_note(client))
        from beamtalk_ws.repl import plain
        return await plain.run(repl, False)
    finally:
        if args.ephemeral and not attached:
            try:
                await repl.client.stop_workspace()    # a node started after the first died
            except WorkspaceError:
                pass
        await client.close()
        if repl.client is not client:
            await repl.client.close()


async def _open_package(repl, ws, args, to) -> None:
    """In a package (spec/repl.md §2): build it and load its classes; a package
    that does not build leaves the REPL usable without its classes."""
    from beamtalk_ws.package import manifest
    from beamtalk_ws.package.live import build_and_load, supervisor_start_code

    try:
        m = manifest.find(ws.project)     # the current directory with --workspace
    except PackageError as e:
        print(f"Error: {e}", file=to)
        return
    if m is None or (ws.project is not None and m.root != ws.project):
        return
    repl.package = m
    _warn(m.warnings, to)
    done = await build_and_load(repl.client, m)
    if done.build:
        _warn(done.build.warnings, to)
    if done.ok:
        print(done.text, file=to)
        if m.run_entry and repl.client.started_node:
            sup = supervisor_start_code(m, done.build)
            if sup is not None:     # the entry finds the top supervisor running, as under `beamtalk run`
                started = await repl.evaluate_code(sup)
                if not started.ok:
                    print(started.text, file=to)
            print(f"> {m.run_entry}", file=to)
            to.flush()
            ran = await repl.evaluate(m.run_entry, on_output=lambda text: (to.write(text), to.flush()))
            _warn(ran.warnings, to)
            print(ran.text, file=to)
    else:
        print(done.text + "\nThe REPL starts without the package's classes: fix the errors, then :reload.",
              file=to)
    to.flush()


async def cmd_transcript(args) -> int:
    """`beamtalk transcript`: the buffered Transcript text, then every new chunk as it
    is written (like `tail -f`), from a workspace that is already running."""
    from beamtalk_ws.workspace.client import WorkspaceClient

    ws = paths.resolve(args.workspace)
    client = await WorkspaceClient.connect(ws, session="transcript-" + str(os.getpid()))
    try:
        if not args.no_follow:
            await client.subscribe_transcript()
        for chunk in await client.transcript_recent():
            sys.stdout.write(chunk)
        sys.stdout.flush()
        if args.no_follow:
            return 0
        return await _follow_transcript(client, ws, "there is no more Transcript text to follow.")
    finally:
        await client.close()


async def _follow_transcript(client, ws, after_stop: str) -> int:
    """Print every Transcript chunk until the connection ends (`beamtalk
    transcript`, `beamtalk watch`).  A node stopped on purpose from another
    terminal (or by its idle timeout) is said to be stopped, and why, as a
    REPL says it, rather than reported as a lost connection to a node."""
    from beamtalk_ws.dist.errors import ConnectionLost

    info = launcher.read_node_info(ws)
    try:
        while True:
            sys.stdout.write(await client.next_transcript())
            sys.stdout.flush()
    except ConnectionLost:
        why = launcher.stop_reason(ws, info.os_pid) if info else None
        if why is None:
            raise
        print(f"Workspace '{ws.id}' was stopped ({why}); {after_stop}", file=sys.stderr)
        return 1


def _warn_if_stale_runtime(client) -> None:
    note = _stale_runtime_note(client)
    if note:
        print(note, file=sys.stderr)


def _stale_runtime_note(client) -> str | None:
    """A workspace keeps the Erlang runtime it was started with; say so when
    this beamtalk would build a different one."""
    from pathlib import Path

    from beamtalk_ws.workspace import erlbuild

    from beamtalk_ws.workspace import stdlibbuild

    running = client.info.get("runtime")
    if not isinstance(running, (bytes, bytearray)):
        return None
    try:
        current = erlbuild.ensure_built()
        stdlib = stdlibbuild.ensure_built(current)
    except WorkspaceError:
        return None
    running_stdlib = client.info.get("stdlib")
    stale = [what for what, now, then in (("Erlang runtime", current, running),
                                          ("standard library", stdlib, running_stdlib))
             if isinstance(then, (bytes, bytearray)) and then and now is not None
             and Path(then.decode()).resolve() != now.resolve()]
    if not stale:
        return None
    return (f"beamtalk: note: workspace '{client.ws.id}' runs an older {' and '.join(stale)} than this "
            f"beamtalk; restart it (`beamtalk workspace stop {client.ws.id}`) to use the new one.")


def _ask_yes(question: str, default: bool = True) -> bool:
    try:
        answer = input(question).strip().lower()
    except EOFError:
        return False
    return answer in (("", "y", "yes") if default else ("y", "yes"))


# ---------------------------------------------------------------------------
# workspace

def cmd_workspace(args, parser) -> int:
    action = args.ws_command
    if action == "list":
        rows = paths.all_workspaces()
        if not rows:
            print("No workspaces.")
            return 0
        for ws in rows:
            info = launcher.running_info(ws)
            state = f"running  {info.node}" if info else "stopped"
            print(f"{ws.id:<14} {state}")
        return 0
    if action is None:
        try:
            parser.parse_args(["workspace", "--help"])   # prints the usage, then exits 0
        except SystemExit:
            pass
        return 2
    ws = paths.resolve(args.name)
    if action == "export-credentials":
        from pathlib import Path

        from beamtalk_ws.workspace import tlsfiles
        out = tlsfiles.export(ws, Path(args.output or f"beamtalk-{ws.id}.credentials"), args.address)
        print(f"Wrote {out} (mode 0600): node, address, cookie and a client certificate of workspace "
              f"'{ws.id}'. Whoever holds it can run any code on that node.")
        return 0
    if action == "start":
        from beamtalk_ws.workspace import tlsfiles
        tlsfiles.configure(ws, tls=args.tls, listen=args.listen, port=args.port,
                           running=launcher.running_info(ws) is not None)
        idle = None if args.persistent else (args.timeout if args.timeout is not None else launcher.DEFAULT_IDLE_TIMEOUT)
        info, started = launcher.start(ws, idle_timeout=idle)
        print(("Started" if started else "Already running:") + f" workspace '{ws.id}' on {info.node} (OS pid {info.os_pid})")
        if started and info.restored:
            print(info.restored)
        if args.watch:
            from pathlib import Path

            from beamtalk_ws.package.manifest import find_root, load

            root = find_root(ws.project or Path.cwd())
            if root is None:
                raise PackageError("--watch needs a package: no beamtalk.toml here or above")
            asyncio.run(watch_package(ws, load(root)))
        return 0
    if action in ("status", "stop") and args.name and not ws.dir.is_dir():
        # A typo must not read as "stopped" / "not running": the real workspace
        # may be running, and a script would carry on believing otherwise.
        print(f"beamtalk: No workspace named '{ws.id}' under {paths.beamtalk_home() / 'workspaces'}; "
              "`beamtalk workspace list` shows the known ones.", file=sys.stderr)
        return 1
    if action == "status":
        return asyncio.run(_status(ws))
    if action == "stop":
        return asyncio.run(_stop(ws, args.force))
    if action in ("restart", "reset"):
        return _restart(ws, args, reset=action == "reset")
    return 2


def _restart(ws, args, *, reset: bool) -> int:
    """`workspace restart`: stop (if running) and start again, which restores
    the stored state; `workspace reset`: the same with the store dropped first."""
    if reset and not args.yes and sys.stdin.isatty():
        if not _ask_yes(f"Drop everything workspace '{ws.id}' keeps (bindings, classes, globals, "
                        f"watches, pending changes)? [y/N] ", default=False):
            print("Nothing was reset.")
            return 1
    if launcher.running_info(ws) is not None:
        asyncio.run(_stop(ws, args.force))
    if reset:
        dropped = launcher.reset_store(ws)
        print(f"Dropped the stored state of workspace '{ws.id}'." if dropped
              else f"Workspace '{ws.id}' had no stored state.")
    idle = None if args.persistent else (args.timeout if args.timeout is not None else launcher.DEFAULT_IDLE_TIMEOUT)
    info, _ = launcher.start(ws, idle_timeout=idle)
    print(f"Started workspace '{ws.id}' on {info.node} (OS pid {info.os_pid})")
    if info.restored:
        print(info.restored)
    return 0


async def _status(ws) -> int:
    from beamtalk_ws.dist.terms import Atom
    from beamtalk_ws.workspace.client import WorkspaceClient

    info = launcher.running_info(ws)
    print(f"Workspace: {ws.id}")
    if info is None and not ws.dir.exists():
        # A mistyped name: not "stopped", which would say it had been there.
        print(f"Status:    no such workspace (nothing was ever started as '{ws.id}'; "
              f"`beamtalk workspace list` shows the workspaces)")
        return 3
    print(f"Directory: {ws.dir}")
    print(f"Storage:   {_size_text(launcher.store_size(ws))} in {launcher.store_dir(ws)}")
    if info is None:
        print("Status:    stopped")
        return 3
    client = await WorkspaceClient.connect(ws, session="default")
    try:
        details = await client.workspace_info()
        compiler = await client.call(Atom("compiler_status"))
    finally:
        await client.close()
    uptime = int(details.get("uptime_ms", 0)) // 1000
    sessions = ", ".join(s.decode() if isinstance(s, bytes) else str(s) for s in details.get("sessions", []))
    print("Status:    running")
    print(f"Node:      {info.node}")
    print(f"OS pid:    {info.os_pid}")
    print(f"Uptime:    {uptime // 3600}h {uptime % 3600 // 60}m {uptime % 60}s")
    print(f"Sessions:  {sessions or '-'}")
    for line in compiler_lines(compiler):
        print(line)
    return 0


def _size_text(n: int) -> str:
    for unit in ("bytes", "KB", "MB"):
        if n < 1024 or unit == "MB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def compiler_lines(reply) -> list[str]:
    """The compiler peer and the watches with their unresolved errors (the
    file, line and caret of each save that did not compile)."""
    if not (isinstance(reply, tuple) and len(reply) == 2 and isinstance(reply[1], dict)):
        return []

    def get(m, k, default=None):
        return {str(key): v for key, v in m.items()}.get(k, default) if isinstance(m, dict) else default

    def text(v) -> str:
        return bytes(v).decode("utf-8", "replace") if isinstance(v, (bytes, bytearray)) else str(v)

    peer = get(reply[1], "peer", {})
    state = str(get(peer, "state", "not running"))
    os_pid = get(peer, "os_pid")
    lines = [f"Compiler:  {state}" + (f" (OS pid {os_pid})" if isinstance(os_pid, int) else "")]
    for w in get(reply[1], "watches", []) or []:
        errors = get(w, "errors", []) or []
        lines.append(f"Watching:  {text(get(w, 'path'))} ({get(w, 'reloads', 0)} reloads, "
                     f"{len(errors)} file{'s' if len(errors) != 1 else ''} not compiling)")
        for e in errors:
            lines.extend("  " + ln for ln in text(e).splitlines())
    return lines


async def _stop(ws, force: bool) -> int:
    from beamtalk_ws.workspace.client import WorkspaceClient

    if launcher.running_info(ws) is None:
        if not ws.dir.exists():
            print(f"No workspace '{ws.id}': nothing was ever started under that name "
                  f"(`beamtalk workspace list` shows the workspaces).")
        else:
            print(f"Workspace '{ws.id}' is not running.")
        return 0
    try:
        client = await WorkspaceClient.connect(ws, session="default", timeout=3.0)
        await client.stop_workspace()
        await client.close()
    except WorkspaceError as e:
        if not force:
            raise WorkspaceError(f"{e} Use `beamtalk workspace stop --force` to kill the node.") from None
        launcher.kill(ws)
    if not launcher.wait_stopped(ws, timeout=10.0):
        launcher.kill(ws)
    print(f"Stopped workspace '{ws.id}'.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
