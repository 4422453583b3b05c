"""Erlang distribution for beamtalk_ws: the external term format and a hidden-node client.

Layers, bottom up: ``terms`` (Python types for Erlang terms), ``codec``
(term_to_binary / binary_to_term, iterative), ``epmd`` (find a node's port),
``handshake`` (version-6 handshake, cookie digest), ``connection`` (framing,
ticks, control messages) and ``node`` (mailboxes, links, monitors, call).
Everything the package raises on purpose is a :class:`DistError` with a
message fit for the user.
"""

from .codec import decode, decode_body, decode_from, encode, encode_body
from .connection import UndecodableMessage
from .epmd import names, port_please
from .errors import (
    AuthenticationFailed,
    CallTimeout,
    ConnectionLost,
    DecodeError,
    DistError,
    EpmdUnreachable,
    HandshakeError,
    NodeNotRegistered,
    ProcessDown,
)
from .node import Mailbox, Node
from .terms import (
    Atom,
    BitBinary,
    ExportFun,
    FrozenList,
    FrozenMap,
    ImproperList,
    LocalFun,
    Pid,
    Port,
    Reference,
    erl_repr,
)

__all__ = [
    "Atom",
    "AuthenticationFailed",
    "BitBinary",
    "CallTimeout",
    "ConnectionLost",
    "DecodeError",
    "DistError",
    "EpmdUnreachable",
    "ExportFun",
    "FrozenList",
    "FrozenMap",
    "HandshakeError",
    "ImproperList",
    "LocalFun",
    "Mailbox",
    "Node",
    "NodeNotRegistered",
    "Pid",
    "Port",
    "ProcessDown",
    "Reference",
    "UndecodableMessage",
    "decode",
    "decode_body",
    "decode_from",
    "encode",
    "encode_body",
    "erl_repr",
    "names",
    "port_please",
]
