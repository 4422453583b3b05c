"""The node's own compiler service (DESIGN D11).

Every workspace node starts this package as a port program
(`python -m beamtalk_ws.peer`, see erl_support/beamtalk_compiler_peer.erl);
it connects back to the node as a hidden distribution peer and compiles
for it with the same compiler the REPL uses: `beamtalk:eval/1`,
`beamtalk:load/1`, `Workspace load:`, `Class reload`, `Class compile:`, and
the node's file watches (`Workspace watch:`).  Python compiles, the node
runs: the node still never parses Beamtalk.

This sits at the top of the layers, beside `repl` and `cli`: it uses the
compiler, the distribution client and the REPL's file loader, and nothing
imports it.
"""
