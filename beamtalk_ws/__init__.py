"""beamtalk_ws: the live workspace for Beamtalk on the Erlang BEAM."""

__version__ = "0.1.0"
