"""Small PNG pictures of arrays, drawn without matplotlib (issue 52).

An array in a program that never imported matplotlib still gets a picture: a line plot for one
dimension, a heatmap for two. The program's own numpy does the downsampling; the pixels are
written here with the standard library (`zlib` and `struct` are all PNG needs).
"""

import struct
import zlib

MAX_POINTS = 1_000  # a line plot's samples
MAX_CELLS = 256  # a heatmap's rows and columns
WIDTH, HEIGHT = 480, 160

# A dark-to-bright ramp (blue, teal, green, yellow) for heatmaps: readable without a legend.
_RAMP = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]


def encode(width, height, rows):
    """PNG bytes of an RGB image; `rows` is `height` bytes objects of `3 * width` bytes."""

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 on every row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def _colour(t):
    """The ramp's colour at t in [0, 1]."""
    t = min(max(t, 0.0), 1.0) * (len(_RAMP) - 1)
    i = min(int(t), len(_RAMP) - 2)
    f = t - i
    a, b = _RAMP[i], _RAMP[i + 1]
    return tuple(int(a[k] + (b[k] - a[k]) * f) for k in range(3))


def line_plot(values):
    """A line plot of at most MAX_POINTS floats (NaN and infinities left out)."""
    points = [v for v in values if v == v and v not in (float("inf"), float("-inf"))]
    canvas = [bytearray(b"\xff" * 3 * WIDTH) for _ in range(HEIGHT)]
    if points:
        low, high = min(points), max(points)
        span = (high - low) or 1.0
        n = len(values)
        previous = None
        for i, v in enumerate(values):
            if not (v == v and low <= v <= high):
                previous = None
                continue
            x = int(i * (WIDTH - 1) / max(n - 1, 1))
            y = HEIGHT - 1 - int((v - low) / span * (HEIGHT - 1))
            if previous is not None:
                _segment(canvas, previous, (x, y))
            else:
                _dot(canvas, x, y)
            previous = (x, y)
    return encode(WIDTH, HEIGHT, canvas)


def _dot(canvas, x, y, colour=(31, 119, 180)):
    if 0 <= y < len(canvas) and 0 <= x < len(canvas[0]) // 3:
        canvas[y][3 * x : 3 * x + 3] = bytes(colour)


def _segment(canvas, start, end):
    (x0, y0), (x1, y1) = start, end
    steps = max(abs(x1 - x0), abs(y1 - y0), 1)
    for s in range(steps + 1):
        _dot(canvas, x0 + (x1 - x0) * s // steps, y0 + (y1 - y0) * s // steps)


def heatmap(rows):
    """A heatmap of a list of rows of floats (at most MAX_CELLS × MAX_CELLS), each cell scaled
    up to a square of pixels."""
    finite = [v for row in rows for v in row if v == v and v not in (float("inf"), float("-inf"))]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    span = (high - low) or 1.0
    height, width = len(rows), max((len(r) for r in rows), default=0)
    scale = max(1, min(4, 512 // max(width, height, 1)))
    canvas = []
    for row in rows:
        line = bytearray()
        for v in row:
            colour = _colour((v - low) / span) if v == v and low <= v <= high else (200, 200, 200)
            line += bytes(colour) * scale
        line += b"\xff\xff\xff" * scale * (width - len(row))
        canvas.extend(bytes(line) for _ in range(scale))
    if not canvas:
        canvas = [b"\xff\xff\xff"]
    return encode(width * scale or 1, len(canvas), canvas)
