"""An eval's value as outputs in Jupyter's shape: MIME bundles (issue 52).

Each output is `{"output_type", "data": {mime: value}, "metadata"}`, as nbformat has it. What
goes in `data`, in order:
- known types first, in bounded forms, found by their type's module and name so nothing is
  imported that the program has not imported: a pandas DataFrame or Series and a list of dicts
  are a table (Breakroom's own JSON, shown as an escaped table); a numpy array is a summary and a
  small PNG (`png.py`); a matplotlib figure and a PIL image are a PNG;
- then the display protocol every data library implements: `_repr_mimebundle_`, then the
  `_repr_*_` methods.
`text/plain` is always there (the bounded repr). Each output, and the whole answer, has a size
bound; past one, the form falls back to `text/plain` and the metadata says why.

`display(x)` in the REPL adds a `display_data` output to the eval that calls it.
"""

import base64
import io
import sys
import threading

from ..protocol.constants import (
    MAX_ANSWER_BYTES,
    MAX_HTML_BYTES,
    MAX_IMAGE_BYTES,
    MIME_HTML,
    MIME_JPEG,
    MIME_JSON,
    MIME_LATEX,
    MIME_MARKDOWN,
    MIME_PLAIN,
    MIME_PNG,
    MIME_SVG,
    MIME_TABLE,
    OUTPUT_DISPLAY_DATA,
    OUTPUT_EXECUTE_RESULT,
)
from .. import redaction
from . import png, variables
from .bounded import bounded_repr

TABLE_ROWS = 100  # rows a table shows at first
TABLE_COLUMNS = 50
CELL_CHARS = 200

_IMAGES = (MIME_PNG, MIME_JPEG)
_TEXT_FORMS = {MIME_HTML: "_repr_html_", MIME_SVG: "_repr_svg_", MIME_MARKDOWN: "_repr_markdown_",
               MIME_LATEX: "_repr_latex_"}


def outputs_for(value, output_type=OUTPUT_EXECUTE_RESULT, plain=None, tables=None):
    """The value's outputs: [] when it has no form but its repr (the answer's `output` is that).
    A table's object is kept in `tables` (the pause's), under a handle its metadata names."""
    data, notes = {}, []
    try:
        _known_forms(value, data)
        if not data:
            _display_protocol(value, data)
    except Exception as exc:  # a broken _repr_*_ costs the rich form, never the answer
        notes.append(f"its rich form failed: {exc.__class__.__name__}: {exc}")
    if not data and not notes:
        return []
    data[MIME_PLAIN] = plain if plain is not None else bounded_repr(value)
    _bound(data, notes)
    breakroom = {"notes": notes} if notes else {}
    table = data.get(MIME_TABLE)
    # Every table keeps its object: its next pages, and any sorting, are read from it.
    if tables is not None and table is not None:
        handle = f"t{len(tables) + 1}"
        tables[handle] = value
        breakroom["table"] = {"handle": handle, "rows": table["row_count"]}
    metadata = {"breakroom": breakroom} if breakroom else {}
    return [{"output_type": output_type, "data": data, "metadata": metadata}]



def is_data(value):
    """Whether `value` has a data form `data_outputs` draws: cheap, it runs nothing."""
    module, name = _kind(value)
    return (
        (_of(module, "pandas") and name in ("DataFrame", "Series"))
        or (module == "numpy" and name == "ndarray")
        or (type(value) is list and bool(value) and type(value[0]) is dict)
    )


def data_outputs(value, plain, rows, cells):
    """A snapshot's rich forms of `value` (issue 52): data only, smaller than the REPL's:
    tables of the first `rows` rows, an array's summary and its picture of at most `cells`
    cells a side. Never a figure or an image (drawing a figure sets its dpi while it draws, and
    an image may read its file: a snapshot does neither to a running program), and never the
    display protocol (the program's own code). [] when `value` has no such form."""
    data = {}
    _known_forms(value, data, rows=rows, cells=cells, drawn=False)
    if not data:
        return []
    data[MIME_PLAIN] = plain
    notes = []
    _bound(data, notes)
    metadata = {"breakroom": {"notes": notes}} if notes else {}
    return [{"output_type": OUTPUT_EXECUTE_RESULT, "data": data, "metadata": metadata}]


def redacted(outputs, known=()):
    """The outputs with secrets replaced (issue 50): value rules on every text form and table
    cell; a table's columns named like a secret have every cell replaced. Images cannot be
    scanned and are left as they are (the book says so)."""
    rules = redaction.rules()
    for output in outputs:
        data = output.get("data") or {}
        for mime, form in list(data.items()):
            if isinstance(form, str) and mime not in _IMAGES:
                data[mime] = rules.text(form, known)[0]
            elif mime == MIME_TABLE and isinstance(form, dict):
                redacted_table(form, known)
    return outputs


MASK_ROWS = 1_000  # past this, only the rows a repr shows are copied to be masked


class _MaskedText:
    """The text of a large pandas object with secret columns: its first and last rows masked,
    then its shape, as pandas' own repr ends; so the mask copies 20 rows, not millions."""

    def __init__(self, head, shape):
        self.head, self.shape = head, shape

    def __repr__(self):
        size = f"{self.shape[0]} rows x {self.shape[1]} columns" if len(self.shape) == 2 else f"{self.shape[0]} rows"
        return f"{self.head!r}\n\n[{size}; the first and last 10 shown]"


def masked(value):
    """For a pandas object with columns named like a secret: a copy with those columns'
    values replaced, for its text (which the value rules cannot read by column). Else `value`."""
    module, name = _kind(value)
    if not (_of(module, "pandas") and name in ("DataFrame", "Series")):
        return value
    rules = redaction.rules()
    try:
        if name == "Series":
            secret = rules.name_matches(str(value.name))
        else:
            secret = [c for c in value.columns if rules.name_matches(str(c))]
        if not secret:
            return value
        pandas = sys.modules.get("pandas")
        big = len(value) > MASK_ROWS and pandas is not None
        shown = pandas.concat([value.iloc[:10], value.iloc[-10:]]) if big else value
        if name == "Series":
            shown = shown.map(lambda _: redaction.REDACTED)
        else:
            shown = shown.assign(**{str(c): redaction.REDACTED for c in secret})
        return _MaskedText(shown, value.shape) if big else shown
    except Exception:  # an odd frame (duplicate or non-text column names): its text stays as is
        return value


def redacted_table(table, known=()):
    """A table (its first page or a later one) with secrets replaced, in place; returns it."""
    rules = redaction.rules()
    secret_columns = [rules.name_matches(c) for c in table.get("columns", [])]
    for row in table.get("rows", []):
        for i, cell in enumerate(row):
            if i < len(secret_columns) and secret_columns[i]:
                row[i] = redaction.REDACTED
            elif isinstance(cell, str):
                row[i] = rules.text(cell, known)[0]
    table["index"] = [rules.text(label, known)[0] if isinstance(label, str) else label for label in table.get("index", [])]
    return table


def bound_answer(outputs):
    """Drops the rich forms of the last outputs while the whole passes MAX_ANSWER_BYTES."""
    total = sum(size_of(o["data"]) for o in outputs)
    for output in reversed(outputs):
        if total <= MAX_ANSWER_BYTES:
            break
        before = size_of(output["data"])
        plain = output["data"].get(MIME_PLAIN, "")
        output["data"] = {MIME_PLAIN: plain}
        output.setdefault("metadata", {}).setdefault("breakroom", {}).setdefault("notes", []).append(
            f"shown as text: the answer's outputs pass {MAX_ANSWER_BYTES // 1024} KB"
        )
        total -= before - size_of(output["data"])
    return outputs


def size_of(data):
    """The bytes an output's forms take, as the bounds count them."""
    return sum(len(v) if isinstance(v, str) else len(repr(v)) for v in data.values())


def _bound(data, notes):
    for mime in list(data):
        value = data[mime]
        limit = MAX_IMAGE_BYTES if mime in _IMAGES else MAX_HTML_BYTES if mime != MIME_PLAIN else None
        size = len(value) if isinstance(value, str) else len(repr(value))
        if limit is not None and size > limit:
            del data[mime]
            notes.append(f"{mime} left out: {size // 1024} KB, past its {limit // 1024} KB bound")


def _kind(value):
    kind = type(value)
    return getattr(kind, "__module__", "") or "", kind.__name__


def _of(module, package):
    return module == package or module.startswith(package + ".")


def _known_forms(value, data, rows=TABLE_ROWS, cells=png.MAX_CELLS, drawn=True):
    """`rows`: a table's first rows; `cells`: a heatmap's cells a side; `drawn`: figures and
    images too (not in snapshots, see `data_outputs`)."""
    module, name = _kind(value)
    if _of(module, "pandas") and name in ("DataFrame", "Series"):
        data[MIME_TABLE] = _pandas_table(value if name == "DataFrame" else value.to_frame(), rows)
    elif module == "numpy" and name == "ndarray":
        _numpy_forms(value, data, rows, cells)
    elif not drawn:
        if type(value) is list and value and all(type(row) is dict for row in value[:rows]):
            data[MIME_TABLE] = _dicts_table(value, rows)
    elif _of(module, "matplotlib") and hasattr(value, "savefig"):
        data[MIME_PNG] = _savefig(value)
    elif module.startswith("matplotlib.axes") and hasattr(getattr(value, "figure", None), "savefig"):
        data[MIME_PNG] = _savefig(value.figure)
    elif _of(module, "PIL") and hasattr(value, "save") and hasattr(value, "size"):
        data[MIME_PNG] = _pil_png(value)
    elif type(value) is list and value and all(type(row) is dict for row in value[:rows]):
        data[MIME_TABLE] = _dicts_table(value, rows)


def _display_protocol(value, data):
    method = getattr(type(value), "_repr_mimebundle_", None)
    if method is not None:
        bundle = method(value, include=None, exclude=None)
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        if isinstance(bundle, dict):
            for mime, form in bundle.items():
                if isinstance(mime, str) and mime != MIME_PLAIN:
                    _put(data, mime, form)
        if data:
            return
    for mime, name in _TEXT_FORMS.items():
        _put(data, mime, _call(value, name))
    _put(data, MIME_PNG, _call(value, "_repr_png_"))
    _put(data, MIME_JPEG, _call(value, "_repr_jpeg_"))
    _put(data, MIME_JSON, _call(value, "_repr_json_"))


def _call(value, name):
    method = getattr(type(value), name, None)
    if method is None:
        return None
    form = method(value)
    return form[0] if isinstance(form, tuple) else form


def _put(data, mime, form):
    """One MIME form as nbformat keeps it: text as str, images as bare base64, JSON as is."""
    if form is None:
        return
    if mime in _IMAGES:
        data[mime] = base64.b64encode(form).decode("ascii") if isinstance(form, bytes) else str(form)
    elif mime == MIME_JSON or mime.endswith("+json"):
        data[mime] = form
    elif isinstance(form, bytes):
        data[mime] = form.decode("utf-8", "replace")
    else:
        data[mime] = str(form)


# ---- known types ------------------------------------------------------------------------


_PLAIN_CELLS = (int, float, bool, type(None))


def _cell(value):
    if type(value) in _PLAIN_CELLS:  # most cells of most tables: no bounding machinery needed
        return repr(value)
    text = value if isinstance(value, str) else bounded_repr(value, CELL_CHARS)
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS] + "…"


def _pandas_table(frame, rows=TABLE_ROWS):
    head = frame.iloc[:rows, :TABLE_COLUMNS]
    return {
        "columns": [_cell(c) if not isinstance(c, str) else c for c in head.columns],
        "index": [_cell(i) if not isinstance(i, str) else i for i in head.index],
        "rows": [[_cell(v) for v in row] for row in head.itertuples(index=False, name=None)],
        "row_count": int(frame.shape[0]),
        "column_count": int(frame.shape[1]),
        "dtypes": {str(c): str(t) for c, t in list(frame.dtypes.items())[:TABLE_COLUMNS]},
    }


def _dicts_table(rows, shown=TABLE_ROWS):
    columns = []
    for row in rows[:shown]:
        for key in row:
            if key not in columns and len(columns) < TABLE_COLUMNS:
                columns.append(key)
    return {
        "columns": [k if isinstance(k, str) else _cell(k) for k in columns],
        "index": [str(i) for i in range(min(len(rows), shown))],
        "rows": [[_cell(row[k]) if k in row else "" for k in columns] for row in rows[:shown]],
        "row_count": len(rows),
        "column_count": len(columns),
    }


def _numpy_forms(array, data, rows=TABLE_ROWS, cells=png.MAX_CELLS):
    np = sys.modules.get("numpy")
    summary = f"array of shape {array.shape}, dtype {array.dtype}"
    numeric = array.dtype.kind in "biuf" and array.size > 0
    if numeric and np is not None:
        with np.errstate(all="ignore"):
            low, high, mean = np.nanmin(array), np.nanmax(array), np.nanmean(array)
        summary += f"\nmin {low:.6g}, max {high:.6g}, mean {mean:.6g}"
    data[MIME_MARKDOWN] = summary
    if not numeric or np is None:
        return
    if array.ndim == 1:
        step = max(1, -(-array.size // png.MAX_POINTS))
        data[MIME_PNG] = _b64(png.line_plot(np, array[::step]))
    elif array.ndim == 2:
        rs = max(1, -(-array.shape[0] // cells))
        cs = max(1, -(-array.shape[1] // cells))
        data[MIME_PNG] = _b64(png.heatmap(np, array[::rs, ::cs]))
        head = array[:rows, :TABLE_COLUMNS]
        data[MIME_TABLE] = {
            "columns": [str(c) for c in range(head.shape[1])],
            "index": [str(r) for r in range(head.shape[0])],
            "rows": [[_cell(v) for v in row] for row in head.tolist()],
            "row_count": int(array.shape[0]),
            "column_count": int(array.shape[1]),
        }


def _savefig(figure):
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=80)
    return _b64(buf.getvalue())


def _pil_png(image):
    picture = image
    if max(image.size) > 1024:
        picture = image.copy()
        picture.thumbnail((1024, 1024))
    buf = io.BytesIO()
    try:
        picture.save(buf, format="PNG")
    except (OSError, ValueError):  # a mode PNG cannot hold (CMYK, float)
        buf = io.BytesIO()
        picture.convert("RGB").save(buf, format="PNG")
    return _b64(buf.getvalue())


def _b64(raw):
    return base64.b64encode(raw).decode("ascii")


# ---- the variables panel's "view" -----------------------------------------------------------


def view(path, frame_locals, namespace, tables):
    """A panel row's value (at `path`) as {"text", "outputs"}: its rich forms, its table kept
    for its pages. The value is reached by its path, as the panel reaches it: no code is run
    but the value's own display methods."""
    if not isinstance(path, list) or not all(isinstance(step, list) and len(step) == 2 for step in path):
        return {"error": "invalid_path", "message": "path must be a list of [kind, key] steps"}
    try:
        value = variables.resolve(path, frame_locals, namespace)
    except variables.PathError as exc:
        return {"error": "invalid_path", "message": str(exc)}
    if redaction.path_is_secret(None, path):  # under a secret's name: nothing of it is shown
        return {"text": redaction.REDACTED, "outputs": []}
    known = redaction.known_secrets(frame_locals, namespace)
    text = redaction.rules().text(bounded_repr(masked(value)), known)[0]
    outputs = outputs_for(value, OUTPUT_DISPLAY_DATA, plain=text, tables=tables)
    return {"text": text, "outputs": redacted(bound_answer(outputs), known)}


# ---- pages of a table, from its live object ---------------------------------------------------


def table_page(tables, args):
    """The rows `offset .. offset + limit` of a kept table, sorted by a column first when asked:
    the same shape as the table's first page."""
    value = tables.get(args.get("handle"))
    if value is None:
        return {"error": "table_gone", "message": "that table is gone: the pause that showed it ended or moved on"}
    offset, limit = int(args.get("offset") or 0), int(args.get("limit") or TABLE_ROWS)
    sort, descending = args.get("sort"), bool(args.get("descending"))
    module, name = _kind(value)
    if _of(module, "pandas"):
        frame = value if name == "DataFrame" else value.to_frame()
        if sort is not None:
            matches = [c for c in frame.columns if str(c) == sort]
            if not matches:
                return _no_column(sort, [str(c) for c in frame.columns])
            frame = frame.sort_values(by=matches[0], ascending=not descending, kind="stable")
        page = _pandas_table(frame.iloc[offset : offset + limit], rows=limit)
        page["row_count"] = int(frame.shape[0])
        return page
    if module == "numpy":
        array, positions = value, range(value.shape[0])
        if sort is not None:
            if not (sort.isdigit() and int(sort) < array.shape[1]):
                return _no_column(sort, [str(c) for c in range(array.shape[1])])
            order = array[:, int(sort)].argsort(kind="stable")
            positions = (order[::-1] if descending else order).tolist()
            array = array[positions]
        rows = array[offset : offset + limit, :TABLE_COLUMNS]
        return {
            "columns": [str(c) for c in range(min(array.shape[1], TABLE_COLUMNS))],
            "index": [str(r) for r in positions[offset : offset + rows.shape[0]]],
            "rows": [[_cell(v) for v in row] for row in rows.tolist()],
            "row_count": int(array.shape[0]),
        }
    rows = list(range(len(value)))
    columns = _dicts_table(value)["columns"]
    if sort is not None:
        if sort not in columns:
            return _no_column(sort, columns)
        rows.sort(key=lambda i: _order_key(value[i].get(sort)), reverse=descending)
    shown = rows[offset : offset + limit]
    return {
        "columns": columns,
        "index": [str(i) for i in shown],
        "rows": [[_cell(value[i][k]) if k in value[i] else "" for k in columns] for i in shown],
        "row_count": len(value),
    }


def _no_column(sort, columns):
    return {"error": "invalid_sort", "message": f"no column {sort!r} to sort by; the columns: {', '.join(columns[:20])}"}


def _order_key(cell):
    """Numbers by value, everything else by its text, missing cells last."""
    if cell is None:
        return (2, 0, "")
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        return (0, cell, "")
    return (1, 0, str(cell))


# ---- display() ----------------------------------------------------------------------------

_collecting = {}  # eval thread id -> the outputs its eval has displayed so far
_lock = threading.Lock()


def start_collecting():
    with _lock:
        _collecting[threading.get_ident()] = []


def stop_collecting():
    with _lock:
        return _collecting.pop(threading.get_ident(), [])


def display(*values):
    """Shows each value as an output of the eval that calls it (IPython's `display`)."""
    with _lock:
        outputs = _collecting.get(threading.get_ident())
    for value in values:
        shown = outputs_for(value, OUTPUT_DISPLAY_DATA) or [
            {"output_type": OUTPUT_DISPLAY_DATA, "data": {MIME_PLAIN: bounded_repr(value)}, "metadata": {}}
        ]
        if outputs is None:  # called outside an eval (a thread of the program): printed instead
            print(shown[0]["data"][MIME_PLAIN])
        else:
            outputs.extend(shown)
