"""Small PNG pictures of arrays, drawn without matplotlib (issue 52).

An array in a program that never imported matplotlib still gets a picture: a line plot for one
dimension, a heatmap for two. The drawing is done with the program's own numpy (whoever has an
array has numpy imported; this module never imports it), whole arrays at a time: a picture costs
a millisecond or two, not the tens of milliseconds a pixel-by-pixel loop in Python would, which
matters most for snapshots, whose program waits while they are taken. The PNG file itself is
written with the standard library (`zlib` and `struct` are all PNG needs).
"""

import struct
import zlib

MAX_POINTS = 1_000  # a line plot's samples
MAX_CELLS = 256  # a heatmap's rows and columns
WIDTH, HEIGHT = 480, 160
LINE = (31, 119, 180)
MISSING = (200, 200, 200)  # a heatmap's NaN and infinite cells

# A dark-to-bright ramp (blue, teal, green, yellow) for heatmaps: readable without a legend.
_RAMP = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]


def encode(width, height, raw):
    """PNG bytes of an 8-bit RGB image; `raw` is its rows, each a filter byte (0) then
    `3 * width` bytes."""

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def _encode_pixels(np, pixels):
    """PNG bytes of an (height, width, 3) uint8 array."""
    height, width = pixels.shape[0], pixels.shape[1]
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # column 0: filter type 0
    rows[:, 1:] = pixels.reshape(height, 3 * width)
    return encode(width, height, rows.tobytes())


def _colour(t):
    """The ramp's colour at t in [0, 1]."""
    t = min(max(t, 0.0), 1.0) * (len(_RAMP) - 1)
    i = min(int(t), len(_RAMP) - 2)
    f = t - i
    a, b = _RAMP[i], _RAMP[i + 1]
    return tuple(int(a[k] + (b[k] - a[k]) * f) for k in range(3))


_LUT = [_colour(i / 255) for i in range(256)]


def line_plot(np, values, width=WIDTH, height=HEIGHT):
    """A line plot of a 1-D array of at most MAX_POINTS numbers; NaN and infinities break the
    line. Each segment is sampled at least twice per pixel column, and every column is filled
    between the lowest and highest row its samples reach, so steep lines have no gaps."""
    y = np.asarray(values, dtype=float).ravel()
    canvas = np.full((height, width, 3), 255, dtype=np.uint8)
    finite = np.isfinite(y)
    if finite.any():
        low, high = float(y[finite].min()), float(y[finite].max())
        span = (high - low) or 1.0
        n = y.size
        px = np.arange(n) * ((width - 1) / max(n - 1, 1))
        py = (height - 1) - (np.where(finite, y, low) - low) / span * (height - 1)
        xs, ys = [px[finite]], [py[finite]]  # lone points show as dots
        joined = finite[:-1] & finite[1:]
        if joined.any():
            per_segment = int(np.ceil(2 * (width - 1) / max(n - 1, 1))) + 2
            t = np.linspace(0.0, 1.0, per_segment)
            x0, x1 = px[:-1][joined], px[1:][joined]
            y0, y1 = py[:-1][joined], py[1:][joined]
            xs.append((x0[:, None] + (x1 - x0)[:, None] * t).ravel())
            ys.append((y0[:, None] + (y1 - y0)[:, None] * t).ravel())
        columns = np.clip(np.rint(np.concatenate(xs)).astype(np.int64), 0, width - 1)
        rows = np.clip(np.rint(np.concatenate(ys)).astype(np.int64), 0, height - 1)
        top = np.full(width, height, dtype=np.int64)
        bottom = np.full(width, -1, dtype=np.int64)
        np.minimum.at(top, columns, rows)
        np.maximum.at(bottom, columns, rows)
        r = np.arange(height)[:, None]
        canvas[(r >= top[None, :]) & (r <= bottom[None, :])] = LINE
    return _encode_pixels(np, canvas)


def heatmap(np, cells):
    """A heatmap of a 2-D array of at most MAX_CELLS × MAX_CELLS numbers, each cell scaled up to
    a square of pixels (the picture at most 512 pixels a side)."""
    a = np.asarray(cells, dtype=float)
    if a.ndim != 2 or a.size == 0:
        return _encode_pixels(np, np.full((1, 1, 3), 255, dtype=np.uint8))
    height, width = a.shape
    finite = np.isfinite(a)
    low, high = (float(a[finite].min()), float(a[finite].max())) if finite.any() else (0.0, 1.0)
    span = (high - low) or 1.0
    level = np.clip((np.where(finite, a, low) - low) / span, 0.0, 1.0)
    pixels = np.asarray(_LUT, dtype=np.uint8)[np.rint(level * 255).astype(np.int64)]
    pixels[~finite] = MISSING
    scale = max(1, min(4, 512 // max(width, height)))
    return _encode_pixels(np, pixels.repeat(scale, axis=0).repeat(scale, axis=1))
