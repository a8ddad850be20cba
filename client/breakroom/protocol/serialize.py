"""Values to the wire: pickled (with dill when installed), base64-encoded, named by SHA-512."""

import base64
import hashlib
import pickle
from collections import OrderedDict

try:  # dill pickles far more (lambdas, closures, classes defined in __main__)
    import dill as _pickler

    HAVE_DILL = True
except ImportError:  # pragma: no cover - depends on the environment
    _pickler = pickle
    HAVE_DILL = False

REPR_LIMIT = 2000


def dumps(value):
    if HAVE_DILL:
        return _pickler.dumps(value, protocol=4, recurse=True)
    return pickle.dumps(value, protocol=4)


def loads(data):
    return _pickler.loads(data)


def cid_of(data):
    return hashlib.sha512(data).hexdigest()


def safe_repr(value, limit=REPR_LIMIT):
    """repr() that never raises and never returns more than `limit` characters plus a marker."""
    try:
        text = repr(value)
    except BaseException as exc:  # a broken __repr__ must not break the debugger
        text = f"<unprintable {type(value).__name__} object: {exc.__class__.__name__}: {exc}>"
    if len(text) > limit:
        text = text[:limit] + f"… [truncated, {len(text)} characters in all]"
    return text


def serialize(value):
    """(cid, bytes) for a value; unpicklable values become a pickled placeholder."""
    try:
        data = dumps(value)
    except Exception as exc:
        placeholder = {
            "__breakroom_unpicklable__": True,
            "type": f"{type(value).__module__}.{type(value).__qualname__}",
            "repr": safe_repr(value),
            "error": f"{exc.__class__.__name__}: {exc}",
        }
        data = pickle.dumps(placeholder, protocol=4)
    return cid_of(data), data


def try_serialize(value):
    """(cid, base64) or (None, None) when the value cannot be pickled."""
    try:
        data = dumps(value)
    except Exception:
        return None, None
    return cid_of(data), base64.b64encode(data).decode("ascii")


class SentCids:
    """CIDs this process already sent with data, so repeats can leave the data out."""

    def __init__(self, size=10_000):
        self._size = size
        self._seen = OrderedDict()

    def __contains__(self, cid):
        return cid in self._seen

    def add(self, cid):
        self._seen[cid] = True
        self._seen.move_to_end(cid)
        while len(self._seen) > self._size:
            self._seen.popitem(last=False)

    def discard(self, cid):
        self._seen.pop(cid, None)
