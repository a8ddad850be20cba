"""Debugged from an editor over DAP: a frame holding a ten-million-item list."""


def inspect():
    big = list(range(10_000_000))
    return len(big)


print("length", inspect())
