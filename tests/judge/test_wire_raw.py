"""Numeric arrays travel from the kernel as their bytes (kpca_probe/wire_raw.py).

The bytes come from the student's kernel, which the student controls: every way of forging
them (a wrong length, text that is not base64, a shape the bytes do not fill, a huge shape,
a dtype that is not numeric) must decode to an Unreadable, built from nothing, and earn
nothing; honest arrays must decode to the very numbers the list form gave.
"""

from __future__ import annotations

import base64
import json
import time

import numpy as np
import pytest

from kpca_probe import wire, wire_raw
from kpca_probe.wire import Unreadable, decode, encode


def _through_json(value):
    return decode(json.loads(json.dumps(encode(value))))


ARRAYS = {
    "float64": np.linspace(-3.0, 7.0, 60).reshape(6, 10),
    "float32": np.linspace(-1.0, 1.0, 40, dtype=np.float32).reshape(5, 8),
    "float16": np.arange(20, dtype=np.float16),
    "big-endian": np.arange(36, dtype=">f8").reshape(6, 6),
    "not contiguous": np.arange(100.0).reshape(10, 10)[::2, ::3],
    "special values": np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1.7e308] * 3),
    "complex128": (np.arange(20) + 1j * np.arange(20)[::-1]).reshape(4, 5),
    "complex64": np.ones(16, dtype=np.complex64) * (1 - 2j),
    "int64": np.arange(-10, 10, dtype=np.int64),
    "int8": np.arange(-64, 64, 4, dtype=np.int8),
    "uint16": np.arange(0, 60000, 3000, dtype=np.uint16),
    "three dimensions": np.arange(60.0).reshape(3, 4, 5),
}


@pytest.mark.parametrize("name", list(ARRAYS))
def test_an_array_arrives_as_the_same_numbers_in_its_own_dtype(name):
    sent = ARRAYS[name]
    assert "raw" in encode(sent)
    got = _through_json(sent)
    assert got.dtype == sent.dtype.newbyteorder("=") and got.shape == sent.shape
    assert np.array_equal(got, sent, equal_nan=True)
    assert np.array_equal(np.signbit(got.real), np.signbit(sent.real))  # -0.0 stays -0.0
    assert got.flags.writeable and got.flags.c_contiguous and type(got) is np.ndarray


@pytest.mark.parametrize("name", list(ARRAYS))
def test_the_bytes_decode_to_what_the_list_form_decoded_to(name, monkeypatch):
    sent = ARRAYS[name]
    raw = _through_json(sent)
    monkeypatch.setattr(wire, "RAW_MIN", 10**9)  # every array as a list, as before
    assert "raw" not in encode(sent)
    listed = _through_json(sent)
    assert listed.dtype == raw.dtype and np.array_equal(listed, raw, equal_nan=True)


def test_small_and_boolean_arrays_stay_readable_lists():
    for small in (np.arange(3.0), np.eye(3), np.ones(20, dtype=bool), np.zeros((0, 20))):
        data = encode(small)
        assert "raw" not in data and isinstance(data["d"], list)
        assert np.array_equal(_through_json(small), small)


def test_a_kernel_matrix_costs_a_fraction_of_its_list_form(monkeypatch):
    K = np.random.default_rng(0).normal(size=(300, 300))
    as_bytes = len(json.dumps(encode(K)))
    monkeypatch.setattr(wire, "RAW_MIN", 10**9)
    as_list = len(json.dumps(encode(K)))
    assert as_bytes < 0.7 * as_list, (as_bytes, as_list)


def _forged(**changes):
    data = encode(np.arange(20.0).reshape(4, 5))
    data.update(changes)
    return data


GOOD = encode(np.arange(20.0).reshape(4, 5))["raw"]
FORGERIES = {
    "one byte short": _forged(raw=base64.b64encode(b"\0" * 159).decode()),
    "one byte over": _forged(raw=base64.b64encode(b"\0" * 161).decode()),
    "a shape the bytes do not fill": _forged(shape=[4, 6]),
    "a huge shape, short text": _forged(shape=[10**12, 10**12]),
    "a huge shape and a huge length claim": _forged(shape=[2**62, 2**62, 2**62]),
    "a negative extent": _forged(shape=[-4, -5]),
    "too many dimensions": _forged(shape=[1] * 40 + [20]),
    "extents that are not numbers": _forged(shape=["four", "five"]),
    "an extent of 5000 digits": _forged(shape=["9" * 5000, 1]),
    "not base64": _forged(raw="!" * len(GOOD)),
    "base64 with a newline": _forged(raw=GOOD[:-4] + "\nAAA"),
    "padding inside": _forged(raw="====" + GOOD[4:]),
    "text that is a list": _forged(raw=list(GOOD)),
    "text that is a number": _forged(raw=12345),
    "an object dtype": _forged(nd="object"),
    "a dtype not offered": _forged(nd="float128"),
    "a boolean dtype (any byte would be one)": _forged(nd="bool", raw=base64.b64encode(
        bytes(range(20))).decode()),
    "a record dtype": _forged(nd="V8"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_bytes_are_unreadable(name):
    started = time.process_time()
    got = decode(json.loads(json.dumps(FORGERIES[name])))
    assert isinstance(got, Unreadable), got
    assert time.process_time() - started < 0.5  # refused before anything large is built


def test_an_unreadable_array_earns_nothing_and_says_so():
    from kpca_ref.grading import cases
    from kpca_ref.grading.harness import judge_groups

    groups = cases.groups("centring_matrix")
    forged = Unreadable("array")
    earned, lines = judge_groups("centring_matrix", 2, groups, lambda g, c, case: {"ok": forged})
    assert earned == 0 and "0 of 2 points" in lines[-1]


def test_decode_raw_refuses_before_decoding_a_text_of_the_wrong_length(monkeypatch):
    calls = []
    monkeypatch.setattr(wire_raw.base64, "b64decode", lambda *a, **k: calls.append(a))
    assert wire_raw.decode_raw(np.dtype("float64"), (10**6,), "AAAA") is None
    assert calls == []
