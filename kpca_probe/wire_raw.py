"""Numeric arrays on the wire as their bytes (:mod:`kpca_probe.wire`'s ``"raw"`` form).

A numeric array (integers, floats or complex numbers) of :data:`RAW_MIN` entries or more
travels as ``{"nd": dtype, "shape": [...], "raw": text}``, the text being its little-endian
bytes in base64. As a list of JSON numbers, ps2's and ps4's kernel matrices came to megabytes
a notebook, which the kernel printed and the grader parsed, sized and rebuilt number by number.

The text comes from the student's kernel: :func:`decode_raw` checks the dtype, the number of
dimensions, each extent and the text's exact length before it decodes anything, and builds
nothing unless the bytes are exactly the array's.

>>> import numpy as np
>>> a = np.arange(20.0).reshape(4, 5)
>>> bool((decode_raw(a.dtype, a.shape, encode_raw(a)) == a).all())
True
>>> decode_raw(a.dtype, (4, 6), encode_raw(a)) is None  # one row more than the bytes hold
True
"""

from __future__ import annotations

import base64
import binascii
import math

import numpy as np

__all__ = ["RAW_MIN", "decode_raw", "encode_raw"]

#: numeric arrays of at least this many entries travel as bytes; smaller ones as lists
RAW_MIN = 16
#: integer, unsigned, float and complex dtypes (booleans stay lists: any byte would be one)
KINDS = "iufc"
#: most dimensions an array may claim (numpy's own limit is 64)
MAX_DIMS = 32


def encode_raw(arr: np.ndarray) -> str:
    """The base64 text of ``arr``'s little-endian bytes, in C order (runs in the kernel)."""
    little = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
    return base64.b64encode(little.tobytes()).decode("ascii")


def decode_raw(dtype: np.dtype, shape: tuple, text) -> np.ndarray | None:
    """The array of ``dtype`` and ``shape`` whose bytes ``text`` holds (runs in the grader).

    None unless ``dtype`` is numeric, ``shape`` has at most :data:`MAX_DIMS` extents, none
    negative, and ``text`` is the base64 of exactly ``prod(shape) * itemsize`` bytes. The
    array is the grader's own (a native-order copy, writable).
    """
    if (dtype.kind not in KINDS or not isinstance(text, str) or len(shape) > MAX_DIMS
            or any(s < 0 for s in shape)):
        return None
    size = math.prod(shape) * dtype.itemsize
    if len(text) != 4 * ((size + 2) // 3):  # checked before anything is decoded
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != size:
        return None
    return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)
