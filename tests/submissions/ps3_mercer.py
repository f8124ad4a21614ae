"""Submissions for ps3_mercer: correct ones written differently, and classic mistakes."""

# ---------------------------------------------------------------- correct, written differently

GRAM_LOOPS = '''
def gram(k, X):
    X = np.asarray(X, dtype=float)
    n = len(X)
    K = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = k(X[i], X[j])
    return K
'''

IS_SYMMETRIC_ELEMENTWISE = '''
def is_symmetric(K, tol=1e-10):
    K = np.array(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("a Gram matrix is square")
    scale = max(1.0, np.abs(K).max()) if K.size else 1.0
    return bool(np.all(np.abs(K - K.T) <= tol * scale))
'''

IS_PSD_EIG = '''
def is_psd(K, tol=1e-10):
    K = np.array(K, dtype=float)
    if not is_symmetric(K, tol):
        return False
    lam = np.linalg.eig(K)[0].real          # general solver: complex dtype, take real parts
    return bool(lam.min() >= -tol * max(1.0, np.abs(lam).max()))
'''

IS_PSD_EXACT_ALL_MINORS = '''
def is_psd_exact(K):
    K = Matrix(K)
    n = K.rows
    if K.cols != n or K != K.T:
        return False
    for size in range(1, n + 1):
        for S in itertools.combinations(range(n), size):
            if K.extract(list(S), list(S)).det() < 0:
                return False
    return True
'''

IS_PSD_EXACT_SYMPY = '''
def is_psd_exact(K):
    K = Matrix(K)
    return bool(K.is_square and K.is_symmetric() and K.is_positive_semidefinite)
'''

FIND_UNIFORM_SEARCH = '''
def find_counterexample(k, d, max_points=6, seed=0):
    rng = np.random.default_rng(seed)
    for width in (0.05, 0.5, 2.0, 8.0):
        for n in range(1, max_points + 1):
            for _ in range(12):
                X = rng.uniform(-width, width, size=(n, d))
                K = gram(k, X)
                if not np.isfinite(K).all():
                    continue
                top = max(1.0, np.abs(K).max())
                if np.abs(K - K.T).max() > 1e-8 * top:
                    return X
                lam = np.linalg.eigvalsh((K + K.T) / 2)
                if lam[0] < -1e-8 * max(1.0, np.abs(lam).max()):
                    return X
    return None
'''

def _reference_certificates() -> str:
    """The pool's reference certificates as Python source: ``{text: certificate, ...}``."""
    from kpca_ref.variants.ps3_pool import pool

    return "{\n" + "".join(f"    {c.text!r}: {c.certificate},\n" for c in pool() if c.valid) + "}"


# a list, not a tuple; witnesses from another search (seed 3, at most 5 points) turned into
# exact Rationals; each certificate written another way: half of it plus half of it
VERDICTS_AS_LIST = f'''
known = {_reference_certificates()}
verdicts = []
for i in range(1, 11):
    text = getattr(N, f"k{{i}}")
    if text in known:
        verdicts.append(("sum", ("scale", Rational(1, 2), known[text]),
                         ("scale", Rational(1, 2), known[text])))
        continue
    k_i, d_i = candidate(text)
    X_i = find_counterexample(k_i, d_i, max_points=5, seed=3)
    if ">= 0]" in text:
        X_i = np.abs(X_i)
    verdicts.append(("witness", [[Rational(float(v)) for v in row] for row in X_i]))
'''

# ---------------------------------------------------------------- classic mistakes

IS_PSD_EXACT_LEADING_MINORS = '''
def is_psd_exact(K):
    K = Matrix(K)
    if K != K.T:
        return False
    # Sylvester's criterion with ">" relaxed to ">=": only the leading blocks
    return all(K[:m, :m].det() >= 0 for m in range(1, K.rows + 1))
'''

IS_PSD_EXACT_STRICT_MINORS = '''
def is_psd_exact(K):
    K = Matrix(K)
    if K != K.T:
        return False
    # Sylvester's criterion for positive DEFINITE matrices, used for semidefinite ones
    return all(K[:m, :m].det() > 0 for m in range(1, K.rows + 1))
'''

IS_PSD_EXACT_FLOATS = '''
def is_psd_exact(K):
    K = Matrix(K)
    if K != K.T:
        return False
    lam = np.linalg.eigvalsh(np.array(K.tolist(), dtype=float))   # rounds 1 - 10**-20 to 1
    return bool(lam.min() >= -1e-10 * max(1.0, np.abs(lam).max()))
'''

IS_PSD_ABSOLUTE_TOL = '''
def is_psd(K, tol=1e-10):
    K = np.asarray(K, dtype=float)
    if not is_symmetric(K, tol):
        return False
    return bool(np.linalg.eigvalsh(K).min() >= -tol)     # absolute: ignores the scale of K
'''

IS_SYMMETRIC_EXACT = '''
def is_symmetric(K, tol=1e-10):
    K = np.asarray(K, dtype=float)
    return K.ndim == 2 and K.shape[0] == K.shape[1] and bool(np.array_equal(K, K.T))
'''

GRAM_MIRRORED = '''
def gram(k, X):
    X = np.asarray(X, dtype=float)
    n = len(X)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):          # "k is symmetric anyway": half the work
            K[i, j] = K[j, i] = k(X[i], X[j])
    return K
'''

FIND_ZERO_THRESHOLD = '''
def find_counterexample(k, d, max_points=6, seed=0):
    rng = np.random.default_rng(seed)
    for trial in range(300):
        n = 1 + trial % max_points
        X = rng.standard_normal((n, d))
        K = gram(k, X)
        if not np.all(np.isfinite(K)):
            continue
        if np.any(K != K.T) or np.linalg.eigvalsh(K).min() < 0:   # round-off counts as a witness
            return X
    return None
'''

# "a Gram matrix with a negative entry cannot be PSD": answers a witness for every kernel whose
# Gram matrix on a probe has a negative entry. Those are the two kernels of each list that take
# negative values (every list holds two; the probe, 13 points with both signs in each
# coordinate, finds a negative entry for each kernel of the pool that has one, and none for the
# others): their Gram matrices are PSD, so those witnesses earn nothing, 1 point of 5 for
# every student
VERDICTS_NEGATIVE_ENTRIES = f'''
known = {_reference_certificates()}
t_probe = np.linspace(-3.0, 3.0, 13)
X_probe = np.column_stack([t_probe, -0.5 * t_probe[::-1]])   # both signs in each coordinate
verdicts = []
for i in range(1, 11):
    text = getattr(N, f"k{{i}}")
    k_i, d_i = candidate(text)
    X_i = find_counterexample(k_i, d_i)
    if X_i is None and (gram(k_i, X_probe[:, :d_i]) < 0).any():
        X_i = X_probe[:, :d_i]
    if X_i is None:
        verdicts.append(known[text])
    else:
        verdicts.append(("witness", np.abs(X_i) if ">= 0]" in text else X_i))
verdicts = tuple(verdicts)
'''

# A forger: the grader once compared a certificate with the candidate at six pairs of points
# drawn from SHA-256 of the student id and the item only. This hand-in draws those points from
# its own id, evaluates its candidate there exactly, and builds for every candidate a feature
# map of polynomials (Lagrange products along t = x1 + 17 x2, distinct on the quarter grid)
# whose kernel equals the candidate at those points and nowhere else: 5 of 5 on that grader,
# non-kernels "certified". A certificate must equal the candidate as a function: it earns 0.
FORGED_CERTIFICATES = """
import hashlib as _forge_hash
import random as _forge_random


def old_points(key, d, nonneg):
    rng = _forge_random.Random(_forge_hash.sha256(key.encode()).hexdigest())
    low = 0 if nonneg else -8

    def point():
        return [Rational(rng.randint(low, 8), 4) for _ in range(d)]

    return [(point(), point()) for _ in range(6)]


def exact_at(text, a, b):
    formula = text.partition("  [")[0]
    for word, name in _WORDS:
        formula = formula.replace(word, name)
    sqd = sum((p - q) ** 2 for p, q in zip(a, b))
    names = {"dot": sum(p * q for p, q in zip(a, b)), "sqd": sqd, "dist": sqrt(sqd),
             "x": a[0], "y": b[0], "x1": a[0], "y1": b[0], "exp": exp, "cos": sp.cos,
             "sin": sp.sin, "sqrt": sqrt, "min": sp.Min, "max": sp.Max}
    if len(a) > 1:
        names.update(x2=a[1], y2=b[1])
    return sp.sympify(formula, locals=names)


def forged(text, key):
    d = 1 if "[scalars" in text else 2
    pairs = old_points(key, d, ">= 0]" in text)
    t = (lambda p: p[0]) if d == 1 else (lambda p: p[0] + 17 * p[1])
    t_symbol = x if d == 1 else x1 + 17 * x2
    where = sorted({t(p) for pair in pairs for p in pair})

    def delta(p):  # 1 at p, 0 at every other point drawn
        others = [v for v in where if v != t(p)]
        scale = sp.Mul(*[t(p) - v for v in others])
        return sp.Mul(*[t_symbol - v for v in others]) / scale

    return ("map", [delta(a) + exact_at(text, a, b) * delta(b) for a, b in pairs])


texts_mine = [N.k1, N.k2, N.k3, N.k4, N.k5, N.k6, N.k7, N.k8, N.k9, N.k10]
verdicts = tuple(forged(text, f"{VARIANT_ID}\\x1fps3_verdict_{i + 1}")
                 for i, text in enumerate(texts_mine))
"""

FLOAT_ANSWERS = {
    "k_dist_answer": '''
gap = np.array([float(v) for v in N.x1 - N.x2])
K_dist = np.array([[0.0, gap @ gap], [gap @ gap, 0.0]])''',
    "eig_dist_answer": "eig_dist = np.linalg.eigvalsh(K_dist)[::-1]",
    "min_eig_exp_plus_answer": '''
m_float = -float(N.gamma) * float(N.t1 - N.t2) ** 2
min_eig_exp_plus = float(N.s) * (1 - np.exp(m_float))''',
}

# the kernel taken as the distance ||x - x'||, not its square
DISTANCE_NOT_SQUARED = {
    "k_dist_answer": '''
root = sqrt((N.x1 - N.x2).dot(N.x1 - N.x2))
K_dist = Matrix([[0, root], [root, 0]])''',
    "eig_dist_answer": "eig_dist = Matrix(sorted(K_dist.eigenvals(multiple=True), reverse=True))",
}

# the least eigenvalue s (1 - e^m) of s exp(-gamma (t - t')^2), m = -gamma (t1 - t2)^2, got wrong
EXP_PLUS_MISTAKES = {
    "gamma_sign": "min_eig_exp_plus = N.s * (1 - exp(N.gamma * (N.t1 - N.t2) ** 2))",
    "largest_eigenvalue": "min_eig_exp_plus = N.s * (1 + exp(-N.gamma * (N.t1 - N.t2) ** 2))",
    "scale_dropped": "min_eig_exp_plus = 1 - exp(-N.gamma * (N.t1 - N.t2) ** 2)",
    "difference_not_squared": "min_eig_exp_plus = N.s * (1 - exp(-N.gamma * abs(N.t1 - N.t2)))",
}

VARIANTS = {
    "loops_eig_minors": {
        "description": "correct: gram with explicit loops, elementwise symmetry test, np.linalg.eig "
                       "instead of eigvalsh, exact PSD through all principal minors, verdicts as a list",
        "cells": {
            "gram_answer": GRAM_LOOPS,
            "is_symmetric_answer": IS_SYMMETRIC_ELEMENTWISE,
            "is_psd_answer": IS_PSD_EIG,
            "is_psd_exact_answer": IS_PSD_EXACT_ALL_MINORS,
            "verdicts_answer": VERDICTS_AS_LIST,
        },
        "lost": {},
    },
    "sympy_psd_uniform_search": {
        "description": "correct: sympy's own is_positive_semidefinite (after a symmetry check) and a "
                       "different counterexample search (uniform boxes, its own eigenvalue test)",
        "cells": {
            "is_psd_exact_answer": IS_PSD_EXACT_SYMPY,
            "find_counterexample_answer": FIND_UNIFORM_SEARCH,
        },
        "lost": {},
    },
    "leading_minors": {
        "description": "is_psd_exact checks the leading principal minors >= 0 only: accepts "
                       "[[0, 0], [0, -1]]; the visible check on the lesson's example fails",
        "cells": {"is_psd_exact_answer": IS_PSD_EXACT_LEADING_MINORS},
        "lost": {"is_psd_exact_tests": 5.0},
    },
    "strict_leading_minors": {
        "description": "is_psd_exact uses Sylvester's criterion for definiteness (leading minors > 0): "
                       "rejects the singular PSD [[1, 1], [1, 1]]; the visible check fails",
        "cells": {"is_psd_exact_answer": IS_PSD_EXACT_STRICT_MINORS},
        "lost": {"is_psd_exact_tests": 5.0},
    },
    "float_eigenvalues_exact": {
        "description": "is_psd_exact converts to floats and uses eigvalsh: passes the visible checks, "
                       "fails the hidden group 'nearly singular: floats cannot decide' (1 of 5) "
                       "[diagnosis: rounded_to_floats]",
        "cells": {"is_psd_exact_answer": IS_PSD_EXACT_FLOATS},
        "lost": {"is_psd_exact_tests": 1.0},
    },
    "absolute_tolerance": {
        "description": "is_psd compares the least eigenvalue with -tol, not -tol * scale: fails the "
                       "hidden group 'singular PSD with round-off' (1 of 4, its 1e8-scaled case) "
                       "[diagnosis: tolerance_not_relative]",
        "cells": {"is_psd_answer": IS_PSD_ABSOLUTE_TOL},
        "lost": {"is_psd_tests": 1.0},
    },
    "exact_symmetry": {
        "description": "is_symmetric with exact equality, and False for a matrix that is not "
                       "square: fails the hidden groups 'round-off asymmetry at scale 1e8', 'the "
                       "tol argument' and 'a matrix that is not square: ValueError' (3 of 5)",
        "cells": {"is_symmetric_answer": IS_SYMMETRIC_EXACT},
        "lost": {"is_symmetric_tests": 1.2},
    },
    "mirrored_gram": {
        "description": "gram evaluates the upper triangle only and mirrors it: fails the hidden group "
                       "'a function that is not symmetric' (1 of 5) [diagnosis: assumed_symmetric]",
        "cells": {"gram_answer": GRAM_MIRRORED},
        "lost": {"gram_tests": 0.6},
    },
    "zero_threshold_search": {
        "description": "find_counterexample treats any negative eigenvalue (round-off) as a witness: "
                       "'refutes' the linear kernel, failing the hidden group of valid kernels (1 of "
                       "5); the witnesses built on it are checked exactly and hold on this id's list",
        "cells": {"find_counterexample_answer": FIND_ZERO_THRESHOLD},
        "lost": {"find_counterexample_tests": 1.0},
    },
    "dist_not_squared": {
        "description": "Part 2 (a) and (b) with the distance ||x - x'|| in place of its square: "
                       "both exact answers lose [diagnosis: distance_not_squared]",
        "cells": DISTANCE_NOT_SQUARED,
        "lost": {"k_dist_tests": 2.0, "eig_dist_tests": 2.0},
        "diagnoses": {"k_dist_tests": "distance_not_squared",
                      "eig_dist_tests": "distance_not_squared"},
    },
    "exp_gamma_sign": {
        "description": "Part 2 (c) with the usual RBF sign, exponent -m: [diagnosis: gamma_sign]",
        "cells": {"min_eig_exp_plus_answer": EXP_PLUS_MISTAKES["gamma_sign"]},
        "lost": {"min_eig_exp_plus_tests": 2.0},
        "diagnoses": {"min_eig_exp_plus_tests": "gamma_sign"},
    },
    "exp_largest_eigenvalue": {
        "description": "Part 2 (c) answers the largest eigenvalue s (1 + e^m) "
                       "[diagnosis: largest_eigenvalue]",
        "cells": {"min_eig_exp_plus_answer": EXP_PLUS_MISTAKES["largest_eigenvalue"]},
        "lost": {"min_eig_exp_plus_tests": 2.0},
        "diagnoses": {"min_eig_exp_plus_tests": "largest_eigenvalue"},
    },
    "exp_scale_dropped": {
        "description": "Part 2 (c) forgets the scale s (this id has s = 4) [diagnosis: scale_dropped]",
        "cells": {"min_eig_exp_plus_answer": EXP_PLUS_MISTAKES["scale_dropped"]},
        "lost": {"min_eig_exp_plus_tests": 2.0},
        "diagnoses": {"min_eig_exp_plus_tests": "scale_dropped"},
    },
    "exp_not_squared": {
        "description": "Part 2 (c) with |t1 - t2| in the exponent, not its square (every "
                       "student's |t1 - t2| is 2 or 3) [diagnosis: difference_not_squared]",
        "cells": {"min_eig_exp_plus_answer": EXP_PLUS_MISTAKES["difference_not_squared"]},
        "lost": {"min_eig_exp_plus_tests": 2.0},
        "diagnoses": {"min_eig_exp_plus_tests": "difference_not_squared"},
    },
    "floats_not_exact": {
        "description": "the by-hand answers of Part 2 entered as floats: the visible type checks ask "
                       "for exact values",
        "cells": FLOAT_ANSWERS,
        "lost": {"k_dist_tests": 2.0, "eig_dist_tests": 2.0, "min_eig_exp_plus_tests": 2.0},
    },
    "forged_certificates": {
        "description": "answers every candidate with a feature map fitted to the points an older "
                       "grader compared certificates on (drawn from the student id and item): "
                       "no certificate equals its candidate as a function, so all ten earn 0",
        "cells": {"verdicts_answer": FORGED_CERTIFICATES},
        "lost": {"verdicts_tests": 5.0},
    },
    "negative_entries_verdict": {
        "description": "declares a function invalid when its Gram matrix has a negative entry: "
                       "answers a witness for the two kernels of the list that take negative "
                       "values, and their Gram matrices are PSD: 2 items of 10 lost, as on every "
                       "student's list",
        "cells": {"verdicts_answer": VERDICTS_NEGATIVE_ENTRIES},
        "lost": {"verdicts_tests": 1.0},
    },
}
