"""The remembering reference of the grading tests answers only calls it has truly seen."""

from __future__ import annotations

import functools

import numpy as np

from tests.grading.reference_memory import Unkeyable, key, remember


def _poly(degree):
    return lambda x, y: (x * y + 1) ** degree


def test_kernels_of_one_lambda_with_different_closures_differ():
    assert key(_poly(2)) != key(_poly(3))
    assert key(_poly(2)) == key(_poly(2))
    assert key(functools.partial(_poly(2), 1)) != key(functools.partial(_poly(2), 2))


def test_arrays_differ_by_dtype_shape_and_content():
    a = np.arange(4.0)
    assert key(a) != key(a.astype(np.float32))
    assert key(a) != key(a.reshape(2, 2))
    assert key(a) != key(a + 1e-12)


def test_a_remembered_answer_is_a_copy_and_unknown_objects_are_computed_each_time():
    calls = []

    def ref(x):
        calls.append(x)
        return np.zeros(2)

    remembered = remember(ref)
    first = remembered(np.ones(2))
    first += 5  # whoever changes an answer changes only their copy
    assert np.array_equal(remembered(np.ones(2)), np.zeros(2)) and len(calls) == 1

    class Opaque:
        pass

    try:
        key(Opaque())
    except Unkeyable:
        pass
    else:
        raise AssertionError("an unknown object got a fingerprint")
    remembered(Opaque())
    remembered(Opaque())
    assert len(calls) == 3
