"""Pauses: the client that reports calls and waits at pauses, a wrapped call's moments,
set_trace and post-mortem."""
