"""`beamtalk lsp`: the Language Server Protocol for editors, on pygls.

Everything a file needs (diagnostics, symbols, hover, definition) comes from
the project's parser and compiler checks and a class index read from the
source files (`index.py`), so it works without a node; completion is the
REPL's engine, answered from the index and, when the project's workspace is
running, from the workspace too.
"""
