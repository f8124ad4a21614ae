"""grading.grade: the reference earns everything, other correct codes too, wrong ones less."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

from kpca_ref import grading
from kpca_ref.grading.cases import groups, names
from tests.grading.alternatives import ALTERNATIVES
from tests.grading.conftest import reference, run_grade
from tests.grading.mistaken import WRONG

NAMES = names()


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line]


def test_every_contract_name_has_an_alternative_and_a_wrong_version():
    assert len(NAMES) == len(set(NAMES)) == 42
    assert set(NAMES) == set(ALTERNATIVES) == set(WRONG)


@pytest.mark.parametrize("name", NAMES)
def test_reference_earns_full_points(name, capsys):
    fn = reference(name)
    assert run_grade(name, fn, 3) == 3.0
    out = capsys.readouterr()
    lines = _lines(out.out)
    assert out.err == ""
    assert all(line.startswith("✓ ") for line in lines[:-1]), lines
    assert lines[-1].startswith(f"{name}: ") and "3 of 3 points" in lines[-1]
    assert len(lines) == len(groups(name)) + 1


@pytest.mark.parametrize("name", NAMES)
def test_alternative_implementation_earns_full_points(name, capsys):
    assert run_grade(name, ALTERNATIVES[name], 2) == 2.0, capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_wrong_implementation_loses_points(name, capsys):
    earned = run_grade(name, WRONG[name], 2)
    out = capsys.readouterr().out
    assert earned < 2.0
    failed = [line for line in _lines(out) if line.startswith("✗ ")]
    assert failed and all(": " in line for line in failed)


def test_partial_credit_is_rounded_to_cents(capsys):
    def small_only(n):
        if n > 40:
            raise NotImplementedError("only small n")
        return np.eye(n) - 1.0 / n

    # 3 of its 5 groups pass (it never raises the errors the notebook asks for)
    assert run_grade("centring_matrix", small_only, 1.37) == 0.82  # 0.822 rounded
    assert run_grade("centring_matrix", small_only, 3) == 1.8
    out = capsys.readouterr().out
    assert "✗ n up to 300: case 1 of 2: raised NotImplementedError: only small n" in out
    assert "centring_matrix: 3 of 5 case groups passed, 1.8 of 3 points" in out


def test_not_callable_earns_nothing(capsys):
    assert grading.grade("centre_kernel", None, 3) == 0.0
    assert capsys.readouterr().out == "✗ centre_kernel: expected a function, got NoneType\n"


def test_unknown_name_is_an_authoring_error():
    with pytest.raises(KeyError, match="not a contract function"):
        grading.grade("centre_kernal", lambda K: K, 3)


def test_exceptions_are_reported_briefly(capsys):
    def crash(K):
        raise ValueError("first line\nsecond line " + "x" * 500)

    def leave(K):
        sys.exit(3)

    # always raising ValueError passes the group that asks for one, which is then not
    # counted: no value group passed (kpca_ref.grading.error_groups)
    assert run_grade("centre_kernel", crash, 2) == 0.0
    assert run_grade("centre_kernel", leave, 2) == 0.0
    out = capsys.readouterr().out
    assert "Traceback" not in out and "x" * 200 not in out
    assert "raised ValueError: first line second line xxx" in out
    assert "raised SystemExit: 3" in out
    assert "error group not counted: no value group of centre_kernel passed" in out


def test_nothing_reaches_stderr(capfd, recwarn):
    def noisy(K):
        print("debug output", file=sys.stderr)
        print("student print")
        warnings.warn("careful", RuntimeWarning)
        np.log(np.zeros(1))  # numpy's own RuntimeWarning
        return reference("centre_kernel")(K)

    assert run_grade("centre_kernel", noisy, 2) == 2.0
    out, err = capfd.readouterr()
    assert err == "" and "student print" not in out and "debug output" not in out
    assert len(recwarn) == 0


def test_warnings_as_errors_set_by_a_notebook_do_not_break_grading(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.seterr(all="raise")
        try:
            assert run_grade("rbf_kernel", reference("rbf_kernel"), 1) == 1.0
        finally:
            np.seterr(all="warn")


def test_inputs_mutated_by_the_student_do_not_leak():
    ref = reference("centre_kernel")

    def in_place(K):
        result = ref(K)
        if isinstance(K, np.ndarray):
            K[...] = 0.0
        return result

    assert run_grade("centre_kernel", in_place, 1) == 1.0


def test_nan_and_shape_messages(capsys):
    assert run_grade("centre_kernel", lambda K: np.full(np.shape(K), np.nan), 1) == 0.0
    assert run_grade("centre_kernel", lambda K: np.zeros((len(K), 1)), 1) == 0.0
    out = capsys.readouterr().out
    assert "result contains NaN or inf" in out
    assert "result has shape (2, 1), expected (2, 2)" in out


def test_lying_result_objects_are_judged_by_their_values(capsys):
    class Liar(np.ndarray):
        def __eq__(self, other):
            return True

        def __array_ufunc__(self, *args, **kwargs):
            return True

    def liar(K):
        return np.zeros(np.shape(K)).view(Liar)

    assert run_grade("centre_kernel", liar, 1) == 0.0


def test_expected_errors_are_a_group_of_their_own(capsys):
    ref = reference("kpca_fit")

    def never_raises(Kc, l):
        try:
            return ref(Kc, l)
        except ValueError:
            w, V = np.linalg.eigh(Kc)
            return w[::-1][:l], V[:, ::-1][:, :l]

    earned = run_grade("kpca_fit", never_raises, 6)
    out = capsys.readouterr().out
    assert earned == round(6 * 5 / 7, 2)  # the impossible requests and invalid input groups
    assert "✗ impossible requests raise ValueError: case 1 of 2: should raise ValueError" in out


def test_sign_flips_are_never_penalised():
    ref = reference("kpca_fit")

    def flipped(Kc, l):
        mu, alpha = ref(Kc, l)
        return mu, -np.asarray(alpha)[:, ::1] * np.where(np.arange(l) % 2, 1.0, -1.0)

    assert run_grade("kpca_fit", flipped, 1) == 1.0


def test_a_result_that_crashes_the_grader_earns_nothing(capsys):
    ref = reference("kpca_fit")

    class Treacherous(tuple):
        def __len__(self):
            raise RuntimeError("boom")

    assert run_grade("kpca_fit", lambda Kc, l: Treacherous(ref(Kc, l)), 1) < 1.0
    assert "could not be graded (RuntimeError in the grader)" in capsys.readouterr().out


def test_counterexamples_are_checked_by_their_property(capsys):
    ref = reference("find_counterexample")

    def too_many(k, d, max_points=6, seed=0):
        X = ref(k, d, max_points, seed)
        return None if X is None else np.vstack([X] * (max_points + 1))

    def always_points(k, d, max_points=6, seed=0):
        return np.random.default_rng(seed).standard_normal((2, d))

    # every group holds a function that is not a kernel: too many points fail each one
    assert run_grade("find_counterexample", too_many, 5) == 0.0
    assert run_grade("find_counterexample", always_points, 5) < 5.0
    out = capsys.readouterr().out
    assert "1 <= n <= max_points" in out
    assert ("✗ valid kernels (no counterexample exists), beside a function that is not: case 1 "
            "of 5: the points returned are no counterexample") in out


def test_importing_grading_leaves_the_answer_modules_alone():
    import subprocess

    code = ("import sys, kpca_ref.grading as g; "
            "print('kpca_ref.grading.answers' in sys.modules, callable(g.register_answer))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "True"]
