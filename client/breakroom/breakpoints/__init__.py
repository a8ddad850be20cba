"""Breakpoints: their kinds and how a hit is decided, the server's breakpoints reaching this
program, and error breakpoints for uncaught exceptions."""
