"""Breakpoints: their kinds and how one arrival is decided, and error breakpoints for uncaught
exceptions. The server's breakpoints reach the program through `breakroom.breakpoint_channel`."""
