"""`python -m beamtalk_ws.peer --node N --cookie-file F --workspace-dir D`."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from .service import serve


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="beamtalk_ws.peer", description="The compiler peer of a workspace node")
    p.add_argument("--node", required=True, help="the workspace node (name@host)")
    p.add_argument("--cookie-file", required=True, help="the workspace's private (mode 0600) cookie file")
    p.add_argument("--workspace-dir", required=True, help="the workspace's state directory")
    args = p.parse_args(argv)
    try:
        status = asyncio.run(serve(args.node, args.cookie_file, args.workspace_dir))
    except KeyboardInterrupt:
        status = 0
    except Exception as e:  # noqa: BLE001 - reported on the node's log, one line
        print(f"stopped: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    # Not a plain return: a watch thread or the stdin reader must not keep
    # the process alive once the node has gone.
    os._exit(status)


if __name__ == "__main__":
    main()
