"""Input checks shared by every public function.

Each check raises ``ValueError`` or ``TypeError`` with a message that names the
argument, the problem and what was received, e.g.
``ValueError: K must be square, got shape (3, 4)``.
"""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

__all__ = [
    "as_exact_matrix",
    "as_exact_param",
    "as_exact_scalar",
    "as_float_array",
    "as_float_matrix",
    "as_points",
    "as_square_float",
    "check_exact_finite",
    "check_int",
    "check_positive",
    "is_exact",
]


def _contains_sympy(value) -> bool:
    if isinstance(value, (sp.MatrixBase, sp.Basic)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype == object and any(isinstance(v, sp.Basic) for v in value.flat)
    if isinstance(value, (list, tuple)):
        return any(_contains_sympy(v) for v in value)
    return False


def is_exact(*values) -> bool:
    """True when any argument is a sympy object (or a list/array holding one).

    The exact route is chosen by the input: sympy in, sympy out.

    >>> import sympy as sp
    >>> is_exact([[1, 2]]), is_exact(sp.Matrix([[1, 2]])), is_exact(sp.Rational(1, 2))
    (False, True, True)
    """
    return any(_contains_sympy(v) for v in values)


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def as_float_array(value, name: str, *, ndim: int | None = None) -> np.ndarray:
    """Convert ``value`` to a finite float64 ndarray, checking its number of dimensions."""
    if isinstance(value, (sp.MatrixBase, sp.Basic)):
        raise TypeError(f"{name} is a sympy object; this route needs numbers (got {type(value).__name__})")
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers, got {type(value).__name__}: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {_shape_text(arr.shape)}")
    if arr.size and not np.all(np.isfinite(arr)):
        bad = "NaN" if np.isnan(arr).any() else "inf"
        raise ValueError(f"{name} contains {bad}; every entry must be finite")
    return arr


def as_float_matrix(value, name: str, *, min_rows: int = 1, cols: int | None = None) -> np.ndarray:
    """A finite 2-D float64 array with at least ``min_rows`` rows (and ``cols`` columns if given)."""
    arr = as_float_array(value, name, ndim=2)
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} needs at least {min_rows} rows, got shape {_shape_text(arr.shape)}")
    if cols is not None and arr.shape[1] != cols:
        raise ValueError(f"{name} must have {cols} columns, got shape {_shape_text(arr.shape)}")
    return arr


def as_square_float(value, name: str, *, min_size: int = 1) -> np.ndarray:
    """A finite square float64 matrix of size at least ``min_size``.

    >>> as_square_float([[1, 2, 3], [4, 5, 6]], "K")
    Traceback (most recent call last):
    ...
    ValueError: K must be square, got shape (2, 3)
    """
    arr = as_float_array(value, name, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {_shape_text(arr.shape)}")
    if arr.shape[0] < min_size:
        raise ValueError(f"{name} needs n >= {min_size}, got shape {_shape_text(arr.shape)}")
    return arr


def _reject_float(entry, name: str):
    if isinstance(entry, (float, np.floating)) or (isinstance(entry, sp.Basic) and entry.has(sp.Float)):
        raise TypeError(
            f"{name} contains the float {entry!r}; exact routes take sympy Integer/Rational "
            "(or radicals) only. Pass a numpy float array to use the numeric route instead."
        )


def as_exact_scalar(value, name: str) -> sp.Expr:
    """Sympify an exact scalar, refusing floats."""
    _reject_float(value, name)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got bool")
    if isinstance(value, (numbers.Integral, np.integer)):
        return sp.Integer(int(value))
    expr = sp.sympify(value)
    if not isinstance(expr, sp.Expr) or expr.free_symbols:
        raise TypeError(f"{name} must be an exact number, got {value!r}")
    return expr


def as_exact_matrix(value, name: str, *, square: bool = False, min_size: int = 1) -> sp.Matrix:
    """A sympy Matrix of exact entries (no Float anywhere); 1-D input becomes a row."""
    if isinstance(value, sp.MatrixBase):
        mat = sp.Matrix(value)
    else:
        arr = np.array(value, dtype=object)
        if arr.ndim == 1:
            arr = arr.reshape(1, -1)
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got shape {_shape_text(arr.shape)}")
        mat = sp.Matrix(arr.tolist())
    for entry in mat:
        _reject_float(entry, name)
        if isinstance(entry, sp.Basic) and entry.free_symbols:
            raise TypeError(f"{name} must hold numbers, got the symbolic entry {entry}")
    mat = mat.applyfunc(lambda e: as_exact_scalar(e, name))
    if square and mat.rows != mat.cols:
        raise ValueError(f"{name} must be square, got shape ({mat.rows}, {mat.cols})")
    if mat.rows < min_size:
        raise ValueError(f"{name} needs n >= {min_size}, got shape ({mat.rows}, {mat.cols})")
    return mat


def check_exact_finite(mat: sp.Matrix, name: str) -> sp.Matrix:
    """Refuse ``oo``, ``-oo``, ``zoo`` and ``nan`` in an exact matrix; returns ``mat``.

    >>> check_exact_finite(sp.Matrix([[1, sp.oo]]), "K")
    Traceback (most recent call last):
    ...
    ValueError: K contains oo; every entry must be finite
    """
    for entry in mat:
        if entry.has(sp.nan):
            raise ValueError(f"{name} contains nan; every entry must be finite")
        if entry.has(sp.oo, -sp.oo, sp.zoo) or entry.is_finite is False:
            raise ValueError(f"{name} contains {entry}; every entry must be finite")
    return mat


def check_int(value, name: str, *, minimum: int = 0) -> int:
    """A Python int >= ``minimum``; floats such as 2.0 and bools are refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, sp.Integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_positive(value, name: str) -> float:
    """A finite real number > 0 (exact values are kept exact by the caller)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a number, got bool")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}") from None
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return number


def as_exact_param(value, name: str, default):
    """Exact twin of a keyword argument whose default is a float (``c=1.0``, ``gamma=0.5``).

    The default itself is read as the exact binary value it stands for (1.0 -> 1,
    0.5 -> 1/2); any other float is refused like every float on an exact route.

    >>> as_exact_param(0.5, "gamma", 0.5), as_exact_param(sp.Rational(1, 3), "gamma", 0.5)
    (1/2, 1/3)
    """
    if isinstance(value, float) and value == default:
        return sp.Rational(value)
    return as_exact_scalar(value, name)


def as_points(value, name: str, *, cols: int | None = None):
    """Points as rows (float64 array or exact sympy Matrix) and whether one point was given.

    A 1-D input (or a sympy column Matrix) is a single point; a 2-D input holds one
    point per row. Returns ``(points, single)`` with ``points`` of shape (n, d).

    >>> as_points([1, 2], "x")
    (array([[1., 2.]]), True)
    >>> as_points([[1, 2, 3]], "X", cols=2)
    Traceback (most recent call last):
    ...
    ValueError: X must have 2 coordinates per point, got shape (1, 3)
    """
    if is_exact(value):
        if isinstance(value, sp.MatrixBase):
            single = value.cols == 1 and value.rows > 1 and (cols is None or value.rows == cols)
            mat = as_exact_matrix(value.T if single else value, name)
        else:
            ndim = np.array(value, dtype=object).ndim
            if ndim not in (1, 2):
                raise ValueError(f"{name} must be 1-D (one point) or 2-D (one point per row), "
                                 f"got {ndim}-D input")
            single = ndim == 1
            mat = as_exact_matrix(value, name)
        shape = (mat.rows, mat.cols)
        points = check_exact_finite(mat, name)
    else:
        arr = as_float_array(value, name)
        if arr.ndim not in (1, 2):
            raise ValueError(f"{name} must be 1-D (one point) or 2-D (one point per row), "
                             f"got shape {_shape_text(arr.shape)}")
        single = arr.ndim == 1
        points = arr.reshape(1, -1) if single else arr
        shape = points.shape
    if cols is not None and shape[1] != cols:
        raise ValueError(f"{name} must have {cols} coordinates per point, "
                         f"got shape {_shape_text((shape[1],) if single else shape)}")
    if shape[0] < 1 or shape[1] < 1:
        raise ValueError(f"{name} must hold at least one point, got shape {_shape_text(shape)}")
    return points, single
