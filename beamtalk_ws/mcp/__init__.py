"""`beamtalk mcp`: the live workspace as a Model Context Protocol server.

`live.py` holds what each tool does, on the REPL core and the workspace
client (no protocol in it); `server.py` declares the tools to the official
`mcp` SDK and runs it over stdio.
"""
