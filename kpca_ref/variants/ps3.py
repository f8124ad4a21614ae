"""ps3_mercer: each student's two points, negative-gamma RBF and ten candidate functions.

The lecture's self-test (notes 10-12, Q5): two points at squared distance ``c`` give the
Gram matrix ``[[0, c], [c, 0]]`` of ``||x - x'||^2``, with eigenvalues ``c`` and ``-c``;
the problem set's worked example takes the points (1, 2) and (3, -1) of Q3 (``c = 13``).
The notes' RBF kernel has ``sigma > 0`` (``gamma > 0``): the notebook's own example,
``gamma = -1`` on the scalars 0 and 1, gives the least eigenvalue ``1 - e``. Part 7 asks
for a witness or a certificate on each of ten candidate functions.

Families:

``pair``
    two lattice points ``N.x1, N.x2`` (1 x d rows: d = 2 when ``c`` is a sum of two
    squares, else 3, else 4) at squared distance ``c``; one pair per ``c`` from 2 to 105
    (13 left out, and 1, where the distance is its own square and the unsquared distance
    would earn the items), so no two candidates share an answer (103 candidates). The
    answers are ``[[0, c], [c, 0]]`` and ``(c, -c)``: integers, no radicals, as in the
    lecture.
``exp_plus``
    a scale ``N.s`` (2 to 16), a negative ``N.gamma`` and two integer scalars ``N.t1, N.t2``
    with ``|t1 - t2|`` 2 or 3, for ``k(t, t') = s exp(-gamma (t - t')^2)``; the least
    eigenvalue ``s (1 - e^m)`` with ``m = -gamma (t1 - t2)^2`` in 4, 8, 12, 16, 9, 18, 27,
    one candidate per ``(s, m)`` (105 candidates). A scale of 1 (the lecture's) would let a
    dropped scale earn the item, and ``|t1 - t2| = 1`` an exponent with ``|t - t'|`` for
    its square.
``verdicts``
    ten candidate functions ``N.k1 ... N.k10`` (plain text, see
    :mod:`kpca_ref.variants.ps3_pool`): two of each kind of trap (:data:`ps3_pool.KINDS`:
    one-point, asymmetric and eigenvalue non-kernels, kernels with and without negative
    values), the two of a kind from two groups, in their own order; no two lists share
    their pattern of kinds, and none has the pattern of the notebook's examples (150
    candidates). Each item is answered by a witness or a certificate
    (:mod:`kpca_ref.variants.ps3_certify`) and judged by :func:`judge`; its key in
    :func:`answers` is the verdict (valid or not) the grader never compares with.
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import sympy as sp

from kpca_ref.exact import eigvals_exact
from kpca_ref.mercer import find_counterexample
from kpca_ref.mercer import gram as gram_float
from kpca_ref.variants.ps3_certify import judge_answer
from kpca_ref.variants.ps3_pool import EXAMPLE_TEXTS, KINDS, POOL, pool

PS = "ps3_mercer"
FAMILIES = {"pair": 100, "exp_plus": 100, "verdicts": 100}
SLOTS = 10
LECTURE = {
    "pair": {"x1": [[1, 2]], "x2": [[3, -1]]},
    "exp_plus": {"s": 1, "gamma": -1, "t1": 0, "t2": 1},
    "verdicts": {f"k{i + 1}": text for i, text in enumerate(EXAMPLE_TEXTS)},
}
ITEMS = {
    "ps3_dist_gram": ("pair",),
    "ps3_dist_eigenvalues": ("pair",),
    "ps3_exp_plus_min_eigenvalue": ("exp_plus",),
    **{f"ps3_verdict_{i + 1}": ("verdicts",) for i in range(SLOTS)},
}
#: the items judged by :func:`judge` (a witness or a certificate), not by comparison
CHECKED = frozenset(f"ps3_verdict_{i + 1}" for i in range(SLOTS))
#: the feedback on a Part 7 item shows that item's candidate only
SHOWN = {f"ps3_verdict_{i + 1}": (f"k{i + 1}",) for i in range(SLOTS)}
UP_TO_SIGN = frozenset()
NICE = {"denominator": 1}

_LARGEST_C = 105
_VERDICT_LISTS = 150


def _key(*parts) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest(), "big")


def _difference(c: int) -> list[int] | None:
    """The shortest integer vector (2-D if it can be, else 3-D, else 4-D) of squared length c."""
    for d in (2, 3, 4):
        found = [v for v in itertools.product(range(10), repeat=d)
                 if sum(a * a for a in v) == c and list(v) == sorted(v, reverse=True)]
        if found:
            return list(min(found, key=max))
    return None


def _pairs() -> list[dict]:
    found = []
    for c in range(2, _LARGEST_C + 1):
        diff = _difference(c)
        if c == 13 or diff is None:
            continue
        d = len(diff)
        turn = _key("pair", c)
        diff = [v if (turn >> i) & 1 else -v for i, v in enumerate(diff)]  # signs
        diff = diff[turn % d:] + diff[:turn % d]  # which coordinate comes first
        start = [((turn >> (8 + 4 * i)) % 7) - 3 for i in range(d)]
        found.append({"x1": [start], "x2": [[a + b for a, b in zip(start, diff)]]})
    return found


#: ``(|t1 - t2|, -gamma)``: m = 4, 8, 12, 16 and 9, 18, 27 (sympy's exact eigenvalues of
#: ``s [[1, e^m], [e^m, 1]]`` take a second or more from m = 36 on, at every grading)
_STEPS_AND_SCALES = ((2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3))


def _exp_plus() -> list[dict]:
    found = []
    for s, (delta, g) in itertools.product(range(2, 17), _STEPS_AND_SCALES):
        m = g * delta * delta
        t1 = _key("t1", s, m) % 7 - 3
        t2 = t1 + delta if _key("t2", s, m) % 2 else t1 - delta
        found.append({"s": s, "gamma": -g, "t1": t1, "t2": t2})
    return found


def _pick(i: int, kind: str) -> list:
    """Two candidates of ``kind`` from two different groups."""
    chosen, groups = [], set()
    for c in sorted((c for c in pool() if c.kind == kind),
                    key=lambda c: _key("verdicts", i, c.text)):
        if c.group not in groups and len(chosen) < SLOTS // len(KINDS):
            chosen.append(c)
            groups.add(c.group)
    return chosen


def _verdict_lists() -> list[dict]:
    example = tuple(POOL[text].kind for text in EXAMPLE_TEXTS)
    example_valid = tuple(POOL[text].valid for text in EXAMPLE_TEXTS)
    found, seen = [], set()
    for i in itertools.count():
        if len(found) == _VERDICT_LISTS:
            return found
        chosen = [c for kind in KINDS for c in _pick(i, kind)]
        chosen.sort(key=lambda c: _key("order", i, c.text))
        kinds = tuple(c.kind for c in chosen)
        # one list per pattern of kinds, never the examples' pattern of kinds or verdicts
        valid = tuple(c.valid for c in chosen)
        if len(chosen) == SLOTS and kinds not in seen and kinds != example and valid != example_valid:
            seen.add(kinds)
            found.append({f"k{j + 1}": c.text for j, c in enumerate(chosen)})
    raise AssertionError("unreachable")  # pragma: no cover


def candidates() -> dict[str, list[dict]]:
    """The candidates of the three families, in draw order."""
    return {"pair": _pairs(), "exp_plus": _exp_plus(), "verdicts": _verdict_lists()}


def texts(n) -> list[str]:
    """The ten candidate texts of one student's numbers ``n``, in order."""
    return [getattr(n, f"k{i + 1}") for i in range(SLOTS)]


def _lookup(text: str):
    if text not in POOL:
        raise KeyError(f"{text!r} is not a candidate function of {PS}")
    return POOL[text]


def answers(n) -> dict:
    """The exact answers of one student's numbers ``n``."""
    diff = n.x1 - n.x2
    c = (diff * diff.T)[0, 0]
    K = sp.Matrix([[0, c], [c, 0]])
    m = -n.gamma * (n.t1 - n.t2) ** 2
    K_exp = n.s * sp.Matrix([[1, sp.exp(m)], [sp.exp(m), 1]])
    # [[a, b], [b, a]] has the eigenvalues a + b and a - b, eigenvectors (1, 1) and (1, -1):
    # sympy's eigenvals factored the characteristic polynomial over exp(m), 0.1 CPU s a
    # student at every grading, for the same values on every candidate
    a, b = K_exp[0, 0], K_exp[0, 1]
    return {
        "ps3_dist_gram": K,
        "ps3_dist_eigenvalues": eigvals_exact(K),
        "ps3_exp_plus_min_eigenvalue": sp.expand(min((a + b, a - b), key=lambda v: sp.N(v, 30))),
        **{f"ps3_verdict_{i + 1}": _lookup(text).valid for i, text in enumerate(texts(n))},
    }


def judge(name: str, value, n, student_id: str, salt: tuple[int, ...] = ()):
    """The verdict on a Part 7 answer: a witness or a certificate for the item's function.

    ``salt`` is the submission's salt (:func:`kit.secret.salt_words`: HMAC of the grader's
    secret, the problem set and the student), which the judge sets around all judging: it
    draws the points a certificate is compared on where it cannot be compared exactly, so
    no student can predict them. Without one (outside grading) they are fresh random points.
    """
    text = texts(n)[int(name.rsplit("_", 1)[1]) - 1]
    _lookup(text)
    secret = ",".join(str(int(w)) for w in salt).encode() if salt else None
    return judge_answer(value, text, f"{student_id}\x1f{name}", secret)


def float_answers(n) -> dict:
    """The same answers by floating point: numpy eigenvalues and the reference search."""
    X = np.array([[float(v) for v in n.x1], [float(v) for v in n.x2]])
    K = gram_float(lambda x, y: float(np.sum((x - y) ** 2)), X)
    s, gamma = float(n.s), float(n.gamma)
    T = np.array([[float(n.t1)], [float(n.t2)]])
    K_exp = gram_float(lambda x, y: s * float(np.exp(-gamma * np.sum((x - y) ** 2))), T)
    found = {}
    with np.errstate(all="ignore"):  # exp overflows to inf: the search skips those matrices
        for i, text in enumerate(texts(n)):
            candidate = _lookup(text)
            found[f"ps3_verdict_{i + 1}"] = find_counterexample(candidate.k, candidate.d) is None
    return {
        "ps3_dist_gram": K,
        "ps3_dist_eigenvalues": np.sort(np.linalg.eigvalsh(K))[::-1],
        "ps3_exp_plus_min_eigenvalue": float(np.linalg.eigvalsh(K_exp)[0]),
        **found,
    }


def mistakes(n) -> dict:
    """Values the lecture's classic mistakes give on these numbers."""
    diff = n.x1 - n.x2
    c = (diff * diff.T)[0, 0]
    root = sp.sqrt(c)
    m = -n.gamma * (n.t1 - n.t2) ** 2
    wrong = {
        "ps3_dist_gram": [
            ("distance_not_squared", ("these entries are distances ||x - x'||; the kernel is "
                                      "the squared distance"), sp.Matrix([[0, root], [root, 0]])),
        ],
        "ps3_dist_eigenvalues": [
            ("distance_not_squared", ("these are the eigenvalues for the distance ||x - x'||; "
                                      "the kernel is the squared distance"),
             sp.Matrix([root, -root])),
        ],
        "ps3_exp_plus_min_eigenvalue": [
            ("gamma_sign", ("this is the eigenvalue of exp(-|gamma| (t - t')^2), the RBF kernel "
                            "with the usual sign; here gamma < 0, so the exponent is positive"),
             sp.expand(n.s * (1 - sp.exp(-m)))),
            ("largest_eigenvalue", "this is the largest eigenvalue; the smallest is asked",
             sp.expand(n.s * (1 + sp.exp(m)))),
            ("scale_dropped", "the scale s multiplies every entry, so every eigenvalue",
             1 - sp.exp(m)),
            ("difference_not_squared", "the exponent uses (t - t')^2, not t - t'",
             sp.expand(n.s * (1 - sp.exp(-n.gamma * abs(n.t1 - n.t2))))),
        ],
    }
    return wrong
