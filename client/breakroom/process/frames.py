"""Which frames are the program's: a pause's stack, a step's caller and a step-into's target
leave out this package's own frames (the wrappers, the waiting loop) and runpy's."""

import os
import runpy
import sysconfig

# The whole `breakroom` package (this file is in its `process/`).
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# runpy's frames under `python -m breakroom` (a frozen module since 3.11).
_HIDDEN_FILES = (_PACKAGE_DIR + os.sep, os.path.abspath(runpy.__file__))
_HIDDEN_NAMES = ("<frozen runpy>",)


def is_hidden(filename, _cache={}):
    hidden = _cache.get(filename)
    if hidden is None:
        hidden = filename in _HIDDEN_NAMES or os.path.abspath(filename).startswith(_HIDDEN_FILES)
        _cache[filename] = hidden
    return hidden


_LIBRARY_DIRS = tuple(
    {os.path.join(os.path.abspath(p), "") for key in ("stdlib", "platstdlib", "purelib", "platlib") if (p := sysconfig.get_paths().get(key))}
)


def is_library(filename, _cache={}):
    """The standard library, installed packages and frozen modules: code a pause "at the next
    line of the program" goes past (as an editor's "just my code" does)."""
    library = _cache.get(filename)
    if library is None:
        library = is_hidden(filename) or filename.startswith("<frozen") or os.path.abspath(filename).startswith(_LIBRARY_DIRS)
        _cache[filename] = library
    return library


def visible(frame):
    """`frame` or the nearest caller of it that is the program's (None: none is)."""
    while frame is not None and is_hidden(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def visible_stack(frame, limit=64):
    """The program's frames from `frame` outwards, innermost first."""
    frames = []
    frame = visible(frame)
    while frame is not None and len(frames) < limit:
        frames.append(frame)
        frame = visible(frame.f_back)
    return frames


def caller(frame):
    """The program's frame that called `frame` (None at the top)."""
    return visible(frame.f_back)
