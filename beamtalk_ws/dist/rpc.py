"""`rpc:call/4` from the Python node, through the target's `rex` server.

Only for bootstrapping a node that has no Beamtalk yet (DESIGN D3): loading
the runtime, starting it, asking what is there, unloading it.  Everything
else goes through the workspace server.
"""

from __future__ import annotations

from typing import Any

from .errors import DistError
from .node import Node
from .terms import Atom, erl_repr

__all__ = ["RpcError", "call"]

REX = Atom("rex")
BADRPC = Atom("badrpc")
# The node's own `user` process is the group leader of the call, so output of
# the called function goes to the node's console, never back to us (we do not
# answer io requests).
GROUP_LEADER = Atom("user")


class RpcError(DistError):
    """The called function crashed or does not exist on the node (`{badrpc, Reason}`)."""

    def __init__(self, mfa: str, node: str, reason: Any) -> None:
        self.reason = reason
        self.undefined = _is_undef(reason)
        super().__init__(f"{mfa} failed on node {node}: {erl_repr(reason)}")


def _is_undef(reason: Any) -> bool:
    # {'EXIT', {undef, [...]}}
    return (isinstance(reason, tuple) and len(reason) == 2 and reason[0] == Atom("EXIT")
            and isinstance(reason[1], tuple) and len(reason[1]) >= 1 and reason[1][0] == Atom("undef"))


async def call(node: Node, module: str, function: str, args: list, timeout: float = 30.0) -> Any:
    """`rpc:call(Node, Module, Function, Args)`; raises RpcError for a badrpc answer."""
    reply = await node.call(REX, (Atom("call"), Atom(module), Atom(function), list(args), GROUP_LEADER),
                            timeout=timeout)
    if isinstance(reply, tuple) and len(reply) == 2 and reply[0] == BADRPC:
        raise RpcError(f"{module}:{function}/{len(args)}", str(node.remote), reply[1])
    return reply
