"""How values travel from the student's kernel to the judge: plain JSON-safe data.

:func:`encode` runs in the kernel and turns whatever the student returned into nested
dicts and lists of strings, numbers and booleans; :func:`decode` runs in the grader's own
process and rebuilds plain Python, numpy and sympy values from that data, so nothing the
student defined (an ndarray subclass, a patched ``__eq__``) reaches the comparison.
sympy expressions travel as a tree of whitelisted node types; anything else becomes an
:class:`Unreadable` that every comparison rejects.

A numeric array of :data:`~kpca_probe.wire_raw.RAW_MIN` entries or more travels as its
bytes (:mod:`kpca_probe.wire_raw`); bytes that are not exactly the array's are an
:class:`Unreadable`.

>>> import numpy as np, sympy as sp
>>> decode(encode([np.arange(3.0), sp.Rational(1, 3), (True, None)]))
[array([0., 1., 2.]), 1/3, (True, None)]
"""

from __future__ import annotations

import math

import numpy as np

from kpca_probe.wire_limits import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_MAGNITUDE,
    MAX_NODES,
    Budget,
    TooLarge,
    checked_integer,
    magnitude,
)
from kpca_probe.wire_raw import KINDS as RAW_KINDS
from kpca_probe.wire_raw import RAW_MIN, decode_raw, encode_raw

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "MAX_MAGNITUDE", "MAX_NODES", "TooLarge", "Unreadable",
           "decode", "encode", "encode_error"]


_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"}
_SYMPY_FUNCS = ("exp", "log", "sin", "cos", "tan", "Abs", "sqrt")


class Unreadable:
    """Stands for a value the wire could not carry; it equals nothing and converts to nothing."""

    __slots__ = ("what",)

    def __init__(self, what: str):
        self.what = what

    def __repr__(self):
        return f"<unreadable {self.what}>"

    def __array__(self, *args, **kwargs):
        raise TypeError(f"an unreadable {self.what} value")

    def __float__(self):
        raise TypeError(f"an unreadable {self.what} value")

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


def _num(x: float):
    return x if math.isfinite(x) else repr(x)  # 'nan', 'inf', '-inf'


def _unnum(x):
    return float(x)  # also reads 'nan', 'inf', '-inf'



def _encode_sympy(value, depth):
    import sympy as sp

    if depth > MAX_DEPTH:
        return {"u": "too deep"}
    if isinstance(value, sp.MatrixBase):
        return {"M": [int(value.rows), int(value.cols)],
                "d": [_encode_sympy(v, depth + 1) for v in list(value)]}
    if isinstance(value, sp.Integer):
        return {"Z": str(int(value))}
    if isinstance(value, sp.Rational):
        return {"Q": [str(int(value.p)), str(int(value.q))]}
    if isinstance(value, sp.Float):
        return {"F": _num(float(value))}
    for const, obj in (("pi", sp.pi), ("E", sp.E), ("I", sp.I), ("oo", sp.oo),
                       ("-oo", sp.S.NegativeInfinity), ("zoo", sp.zoo), ("nan", sp.nan),
                       ("true", sp.true), ("false", sp.false)):
        if value is obj:
            return {"c": const}
    if isinstance(value, (sp.Add, sp.Mul, sp.Pow)):
        return {"op": type(value).__name__,
                "a": [_encode_sympy(a, depth + 1) for a in value.args]}
    if isinstance(value, sp.Function) and type(value).__name__ in _SYMPY_FUNCS:
        return {"f": type(value).__name__, "a": [_encode_sympy(a, depth + 1) for a in value.args]}
    if isinstance(value, sp.Symbol):
        return {"s": str(value.name)[:40]}
    return {"u": f"sympy {type(value).__name__}"}


def encode(value, depth: int = 0):
    """JSON-safe data standing for ``value`` (runs in the student's kernel)."""
    if depth > MAX_DEPTH:
        return {"u": "too deep"}
    try:
        import sympy as sp
    except ImportError:  # pragma: no cover - sympy is a dependency
        sp = None
    if value is None:
        return {"none": True}
    if type(value) is bool or isinstance(value, np.bool_):
        return {"b": bool(value)}
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return {"i": str(int(value))}
    if isinstance(value, (float, np.floating)):
        return {"f": _num(float(value)), "t": np.dtype(type(value)).name
                if isinstance(value, np.floating) else "float"}
    if isinstance(value, (complex, np.complexfloating)):
        return {"z": [_num(float(value.real)), _num(float(value.imag))]}
    if isinstance(value, str):
        return {"str": value[:200]}
    if sp is not None and isinstance(value, (sp.Basic, sp.MatrixBase)):
        return _encode_sympy(value, depth)
    if isinstance(value, np.ndarray):
        arr = np.asarray(value).view(np.ndarray)
        dtype = arr.dtype.name
        if dtype in _DTYPES and arr.dtype.kind in RAW_KINDS and arr.size >= RAW_MIN:
            return {"nd": dtype, "shape": [int(s) for s in arr.shape], "raw": encode_raw(arr)}
        if dtype in _DTYPES:
            flat = arr.ravel().tolist()
            if arr.dtype.kind == "c":
                flat = [[_num(v.real), _num(v.imag)] for v in flat]
            elif arr.dtype.kind == "f":
                flat = [_num(v) for v in flat]
            return {"nd": dtype, "shape": [int(s) for s in arr.shape], "d": flat}
        if arr.dtype.kind == "O":
            return {"nd": "object", "shape": [int(s) for s in arr.shape],
                    "d": [encode(v, depth + 1) for v in arr.ravel().tolist()]}
        return {"u": f"array of {dtype}"}
    if isinstance(value, (list, tuple)):
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [encode(v, depth + 1) for v in list(value)[:100_000]]}
    if hasattr(value, "__array__"):
        try:
            return encode(np.asarray(value).view(np.ndarray), depth + 1)
        except Exception:  # noqa: BLE001, S110 - the student's own conversion failed
            pass
    return {"u": type(value).__name__[:60]}


def encode_error(exc: BaseException) -> dict:
    """An exception raised by the student's function, as data (its builtin base classes)."""
    import builtins

    bases = [k.__name__ for k in type(exc).__mro__
             if isinstance(getattr(builtins, k.__name__, None), type)
             and getattr(builtins, k.__name__) is k]
    message = " ".join(str(exc).split())[:300] if _safe_str(exc) else ""
    return {"raised": type(exc).__name__[:60], "bases": bases[:8], "message": message}


def _safe_str(exc) -> bool:
    try:
        str(exc)
        return True
    except Exception:  # noqa: BLE001
        return False


# ------------------------------------------------------------------ decoding (the judge's side)
def _decode_sympy(data, depth=0):
    """The sympy value of ``data``, rebuilt unevaluated (no arithmetic on the student's tree)."""
    import sympy as sp

    if depth > MAX_DEPTH or not isinstance(data, dict):
        raise ValueError("bad sympy tree")
    if "M" in data:
        rows, cols = (int(v) for v in data["M"])
        entries = [_decode_sympy(v, depth + 1) for v in data["d"]]
        if rows * cols != len(entries):
            raise ValueError("bad matrix")
        return sp.Matrix(rows, cols, entries)
    if "Z" in data:
        return sp.Integer(checked_integer(data["Z"]))
    if "Q" in data:
        return sp.Rational(checked_integer(data["Q"][0]), checked_integer(data["Q"][1]))
    if "F" in data:
        return sp.Float(_unnum(data["F"]))
    if "c" in data:
        table = {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo, "-oo": sp.S.NegativeInfinity,
                 "zoo": sp.zoo, "nan": sp.nan, "true": sp.true, "false": sp.false}
        return table[data["c"]]
    if "op" in data:
        op = {"Add": sp.Add, "Mul": sp.Mul, "Pow": sp.Pow}[data["op"]]
        return op(*[_decode_sympy(a, depth + 1) for a in data["a"]], evaluate=False)
    if "f" in data:
        if data["f"] not in _SYMPY_FUNCS:
            raise ValueError("function not allowed")
        return getattr(sp, data["f"])(*[_decode_sympy(a, depth + 1) for a in data["a"]],
                                      evaluate=False)
    if "s" in data:
        return sp.Symbol(str(data["s"]))
    return Unreadable(str(data.get("u", "sympy value")))


def _decode_exact(data, depth, budget):
    """Size checks first, then the unevaluated rebuild; over a limit: an Unreadable."""
    from sympy.core.parameters import evaluate

    try:
        magnitude(data, depth, budget)
    except TooLarge as exc:
        return Unreadable(f"value too large to grade ({exc})")
    with evaluate(False):
        return _decode_sympy(data, depth)


def decode(data, depth: int = 0, budget: Budget | None = None):
    """The plain value that ``data`` (from :func:`encode`) stands for (runs in the grader).

    Exact (sympy) values are size-checked (:data:`MAX_NODES`, :data:`MAX_DIGITS`,
    :data:`MAX_MAGNITUDE`, :data:`MAX_DEPTH`) and then rebuilt unevaluated; a value over a
    limit decodes to an :class:`Unreadable` saying so, which earns nothing.
    """
    budget = budget or Budget()
    if depth > MAX_DEPTH or not isinstance(data, dict):
        return Unreadable("value")
    try:
        if "none" in data:
            return None
        if "b" in data:
            return bool(data["b"])
        if "i" in data:
            text = str(data["i"])
            if len(text) > 4000:
                return Unreadable("huge int")
            return int(text)
        if "f" in data and "a" not in data:  # a float ({"f": "exp", "a": ...} is sympy's exp)
            value = _unnum(data["f"])
            kind = data.get("t", "float")
            return np.dtype(kind).type(value) if kind in _DTYPES and kind != "float" else value
        if "z" in data:
            return complex(_unnum(data["z"][0]), _unnum(data["z"][1]))
        if "str" in data:
            return str(data["str"])
        if "list" in data:
            return [decode(v, depth + 1, budget) for v in data["list"]]
        if "tuple" in data:
            return tuple(decode(v, depth + 1, budget) for v in data["tuple"])
        if "nd" in data:
            shape = tuple(int(s) for s in data["shape"])
            if data["nd"] == "object":
                items = [decode(v, depth + 1, budget) for v in data["d"]]
                arr = np.empty(len(items), dtype=object)
                arr[:] = items
                return arr.reshape(shape)
            if data["nd"] not in _DTYPES:
                return Unreadable("array")
            dtype = np.dtype(data["nd"])
            if "raw" in data:
                arr = decode_raw(dtype, shape, data["raw"])
                return Unreadable("array") if arr is None else arr
            if dtype.kind == "c":
                flat = [complex(_unnum(a), _unnum(b)) for a, b in data["d"]]
            elif dtype.kind == "f":
                flat = [_unnum(v) for v in data["d"]]
            else:
                flat = list(data["d"])
            return np.array(flat, dtype=dtype).reshape(shape)
        if "u" in data:
            return Unreadable(str(data["u"])[:60])
        return _decode_exact(data, depth, budget)
    except TooLarge as exc:
        return Unreadable(f"value too large to grade ({exc})")
    except Exception:  # noqa: BLE001 - malformed data: unreadable, never a pass
        return Unreadable("value")


def decode_error(data: dict) -> BaseException:
    """An exception of the first builtin class the student's exception derived from."""
    import builtins

    for name in data.get("bases", []):
        kind = getattr(builtins, str(name), None)
        if isinstance(kind, type) and issubclass(kind, BaseException) and kind not in (
                BaseException, KeyboardInterrupt, GeneratorExit):
            try:
                return kind(str(data.get("message", "")))
            except Exception:  # noqa: BLE001, S112 - a constructor that wants other arguments
                continue
    return Exception(str(data.get("message", "")))
