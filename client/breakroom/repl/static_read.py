"""Reading a paused program's objects without running any of its code: attributes through the
MRO's `__dict__`s and the instance's real `__dict__` (fetched with type's own descriptors, so a
metaclass cannot intercept them), only the interpreter's own slot and C getset readers, no
property getters, no `__getattr__`, no `__dir__`, no `isinstance`. The completer (`complete`) and
the variables panel (`variables`) read objects through this.

Stdlib only and no relative imports: the completion snippet (`complete.completion_snippet`, and
the server's `debugger/src/snippet.rs`) joins this file, `complete` and `variables` into one
module for clients that do not have this package; `__all__` names what the others take from here."""

import builtins
import types

__all__ = ['_CHECK_EVERY', '_type_dict', '_type_mro', '_type_module', '_SAFE_DESCRIPTORS', '_FUNCTION_TYPES', '_Unresolved', '_mro', '_class_lookup', '_has_slot', '_is_class', 'instance_dict', '_read_descriptor', 'static_getattr', 'static_attributes', 'kind_of', '_attribute_kind', '_lookup_name', 'resolve_chain', 'builtins_layer']

_CHECK_EVERY = 256  # items between deadline checks in long loops

_type_dict = type.__dict__["__dict__"].__get__  # a class's own namespace, bypassing metaclasses
_type_mro = type.__dict__["__mro__"].__get__
_type_module = type.__dict__["__module__"].__get__
_SAFE_DESCRIPTORS = (types.MemberDescriptorType, types.GetSetDescriptorType)
_FUNCTION_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
    staticmethod,
    classmethod,
)



class _Unresolved(Exception):
    """A name or attribute that cannot be read without running code (or does not exist)."""



# ---- reading objects statically -------------------------------------------------------------


def _mro(cls):
    try:
        return _type_mro(cls)
    except TypeError:
        return (cls,)


def _class_lookup(cls, name):
    """The raw attribute `name` from the first class of cls's MRO that defines it."""
    for klass in _mro(cls):
        namespace = _type_dict(klass)
        if name in namespace:
            return namespace[name]
    raise _Unresolved(name)


def _has_slot(value, slot):
    """Whether type(value) defines `slot` anywhere in its MRO (a static hasattr)."""
    return any(slot in _type_dict(klass) for klass in _mro(type(value)))


def _is_class(value):
    return issubclass(type(value), type)


def instance_dict(obj):
    """obj's own attribute dict, read with the interpreter's `__dict__` descriptor; None when
    obj has none or a class replaced `__dict__` with something of its own."""
    for klass in _mro(type(obj)):
        descriptor = _type_dict(klass).get("__dict__")
        if descriptor is None:
            continue
        if type(descriptor) not in _SAFE_DESCRIPTORS:
            return None
        try:
            found = descriptor.__get__(obj, type(obj))
        except Exception:
            return None
        return found if type(found) is dict else None
    return None


def _read_descriptor(descriptor, obj):
    """Values of slots and of the interpreter's own C attributes; anything else would run code."""
    if type(descriptor) is types.MemberDescriptorType or (
        type(descriptor) is types.GetSetDescriptorType and _type_module(descriptor.__objclass__) == "builtins"
    ):
        try:
            return descriptor.__get__(obj, type(obj))
        except Exception:
            raise _Unresolved(descriptor) from None
    raise _Unresolved(descriptor)


def static_getattr(obj, name):
    """obj.name as far as it can be read without running user code; raises _Unresolved."""
    if _is_class(obj):
        value = _class_lookup(obj, name)
        if type(value) in (staticmethod, classmethod):
            return value.__func__
        return value
    try:
        class_value = _class_lookup(type(obj), name)
    except _Unresolved:
        class_value = _Unresolved
    if class_value is not _Unresolved and (_has_slot(class_value, "__set__") or _has_slot(class_value, "__delete__")):
        return _read_descriptor(class_value, obj)  # data descriptors win over the instance dict
    own = instance_dict(obj)
    if own is not None and name in own:
        return own[name]
    if class_value is _Unresolved:
        raise _Unresolved(name)
    if type(class_value) in (staticmethod, classmethod):
        return class_value.__func__
    if type(class_value) is types.FunctionType or not _has_slot(class_value, "__get__"):
        return class_value  # a method reads like its function; a plain class attribute as itself
    return _read_descriptor(class_value, obj)


def static_attributes(obj, deadline=None):
    """{name: raw value} of everything obj.name could find, read statically (instance dict first,
    then the MRO's class dicts; properties and descriptors come back unevaluated)."""
    found = {}
    sources = [] if _is_class(obj) else [instance_dict(obj) or {}]
    sources += [_type_dict(klass) for klass in _mro(obj if _is_class(obj) else type(obj))]
    for source in sources:
        for i, name in enumerate(source):
            if deadline is not None and i % _CHECK_EVERY == 0 and deadline.passed():
                return found
            if type(name) is str and name not in found:
                found[name] = source[name]
    return found


def kind_of(value):
    """Jupyter/Jedi completion type of a raw value: module, class, function, property, instance."""
    t = type(value)
    if issubclass(t, types.ModuleType):
        return "module"
    if issubclass(t, type):
        return "class"
    if t in _FUNCTION_TYPES:
        return "function"
    if t is property:
        return "property"
    return "instance"


def _attribute_kind(obj, name, raw):
    """A listed attribute's type: a property on the class stays a property even when the
    instance dict has the same name."""
    if not _is_class(obj):
        try:
            if type(_class_lookup(type(obj), name)) is property:
                return "property"
        except _Unresolved:
            pass
    return kind_of(raw)


def _lookup_name(name, layers):
    for layer in layers:
        try:
            if name in layer:
                return layer[name]
        except Exception:
            continue
    raise _Unresolved(name)


def resolve_chain(chain, layers):
    """The object `a.b.c` names, read statically; raises _Unresolved."""
    parts = [part.strip() for part in chain.split(".")]
    value = _lookup_name(parts[0], layers)
    for part in parts[1:]:
        value = static_getattr(value, part)
    return value


def builtins_layer(layers):
    """The builtins the code would see: the first layer's `__builtins__`, else the module."""
    for layer in layers:
        try:
            found = layer.get("__builtins__") if type(layer) is dict else None
        except Exception:
            found = None
        if type(found) is dict:
            return found
        if issubclass(type(found), types.ModuleType):
            return instance_dict(found) or vars(builtins)
    return vars(builtins)
