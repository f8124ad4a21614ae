"""Submissions for ps6_kernel_regression: correct ones written differently, and classic mistakes.

Each entry replaces the listed answer cells of the source notebook; the other answer cells
keep the reference solution. ``lost`` gives, per test cell, the points the submission must
lose: a visible check that fails costs the whole cell, otherwise the hidden grading gives
``points * (case groups passed) / (case groups)`` (rounded to 2 decimals), and each exact
answer of a cell earns its own points. ``diagnoses`` ({test cell: code}) names the classic
mistake the cell's printed lines must carry. By-hand submissions compute from ``N``, so each
mistake shows on whatever numbers the submission's student id draws.
"""

import inspect

from tests.grading import float32_alternatives as _f32alt

# ---------------------------------------------------------------------------- correct, loops
LOOPS_KERNEL = '''
def cubic_kernel(X, Z):
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise ValueError("X and Z need the same number of columns")
    K = np.zeros((len(X), len(Z)))
    for i in range(len(X)):
        for j in range(len(Z)):
            s = sum(a * b for a, b in zip(X[i], Z[j]))
            K[i, j] = 1 + s + s * s + s * s * s
    return K
'''

LOOPS_FEATURES = '''
def cubic_features(X):
    X = np.asarray(X, dtype=float)
    rows = []
    for x in X:
        d = len(x)
        row = [1.0] + list(x)
        row += [x[a] * x[b] for a in range(d) for b in range(d)]
        row += [x[a] * x[b] * x[c] for a in range(d) for b in range(d) for c in range(d)]
        rows.append(row)
    return np.array(rows)
'''

LOOPS_DUAL = '''
def gd_dual_fit(K, y, alpha, steps):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    n = len(y)
    if K.ndim != 2 or K.shape != (n, n):
        raise ValueError("K must be square with one row per target")
    if alpha <= 0 or steps < 0:
        raise ValueError("alpha must be positive and steps >= 0")
    beta = [0.0] * n
    for _ in range(steps):
        residual = [y[i] - sum(beta[j] * K[i, j] for j in range(n)) for i in range(n)]
        beta = [beta[i] + alpha * residual[i] for i in range(n)]
    return np.array(beta)
'''

LOOPS_PREDICT = '''
def kernel_predict(K_new, beta):
    K_new = np.asarray(K_new, dtype=float)
    if K_new.ndim != 2 or K_new.shape[1] != len(beta):
        raise ValueError("K_new needs one column per coefficient")
    return np.array([sum(K_new[r, i] * beta[i] for i in range(len(beta)))
                     for r in range(len(K_new))])
'''

LOOPS_PRIMAL = '''
def gd_primal_fit(Phi, y, alpha, steps):
    Phi, y = np.asarray(Phi, dtype=float), np.asarray(y, dtype=float)
    n, p = Phi.shape
    if len(y) != n or alpha <= 0 or steps < 0:
        raise ValueError("bad input")
    theta = np.zeros(p)
    for _ in range(steps):
        gradient = np.zeros(p)
        for i in range(n):
            gradient += (y[i] - Phi[i] @ theta) * Phi[i]
        theta = theta + alpha * gradient
    return theta
'''

# ------------------------------------------------ correct, other routes to the same numbers
OTHER_FEATURES = '''
def cubic_features(X):
    # another coordinate order (highest degree first), built with np.kron
    X = np.asarray(X, dtype=float)
    rows = []
    for x in X:
        two = np.kron(x, x)
        rows.append(np.concatenate([np.kron(two, x), two, x, [1.0]]))
    return np.array(rows)
'''

OTHER_DUAL = '''
def gd_dual_fit(K, y, alpha, steps):
    # the closed form of the iteration, beta_t = (I - (I - alpha K)^t) K^+ y, would need
    # an inverse: the residual r = y - K beta is updated instead, r <- (I - alpha K) r
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape != (len(y), len(y)) or alpha <= 0 or steps < 0:
        raise ValueError("bad input")
    beta, r = np.zeros(len(y)), y.copy()
    for _ in range(steps):
        beta += alpha * r
        r -= alpha * (K @ r)
    return beta
'''

OTHER_STEP = '''
def max_step_size(K):
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    if not np.allclose(K, K.T, rtol=0, atol=1e-10 * max(1.0, np.abs(K).max())):
        raise ValueError("K must be symmetric")
    values = np.linalg.eig(K)[0].real               # general solver, unsorted
    if values.max() <= 0 or values.min() < -1e-8 * values.max():
        raise ValueError("K is not positive semidefinite (or zero)")
    return 2 / values.max()
'''

OTHER_RIDGE = '''
def kernel_ridge(K, y, lam):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape != (len(y), len(y)) or lam < 0:
        raise ValueError("bad input")
    values, vectors = np.linalg.eigh(K)            # (K + lam I)^-1 through the spectrum
    shifted = values + lam
    if np.abs(shifted).min() <= 1e-12 * max(1.0, np.abs(shifted).max()):
        raise ValueError("K + lam I is singular")
    return vectors @ ((vectors.T @ y) / shifted)
'''

OTHER_STEPS_BY_HAND = '''
products = N.x * N.x.T
K_own = sp.ones(3, 3) + products + products.applyfunc(lambda v: v**2 + v**3)
beta_one = N.alpha * N.y
beta_two = beta_one + N.alpha * (N.y - N.K * beta_one)
'''

OTHER_FIXED_BY_HAND = '''
beta_limit = N.K.inv() * N.y
pred_new = N.k_new.dot(beta_limit)
beta_ridge = (N.K + N.lam * sp.eye(3)).inv() * N.y
'''

# ---------------------------------------------------------------------------- classic mistakes
SEQUENTIAL_DUAL = '''
def gd_dual_fit(K, y, alpha, steps):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape != (len(y), len(y)) or alpha <= 0 or steps < 0:
        raise ValueError("bad input")
    beta = np.zeros(len(y))
    for _ in range(steps):
        for i in range(len(y)):                    # each beta_i from the newest values
            beta[i] = beta[i] + alpha * (y[i] - K[i] @ beta)
    return beta
'''

SEQUENTIAL_BY_HAND = '''
xs_own = list(N.x)
K_own = Matrix(3, 3, lambda i, j: sum((xs_own[i] * xs_own[j]) ** t for t in range(4)))
beta_two = sp.zeros(3, 1)
for _ in range(2):
    for i in range(3):
        beta_two[i] = beta_two[i] + N.alpha * (N.y[i] - (N.K[i, :] * beta_two)[0])
'''

NOT_DOUBLED = '''
def max_step_size(K):
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or np.abs(K - K.T).max() > 1e-10 * max(
            1.0, np.abs(K).max()):
        raise ValueError("K must be square and symmetric")
    values = np.linalg.eigvalsh(K)
    if values[-1] <= 0 or values[0] < -1e-8 * values[-1]:
        raise ValueError("K is not positive semidefinite")
    return 1.0 / values[-1]
'''

RIDGE_NO_LAMBDA = '''
def kernel_ridge(K, y, lam):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    if K.ndim != 2 or K.shape != (len(y), len(y)):
        raise ValueError("bad input")
    return np.linalg.solve(K, y)
'''

RIDGE_NO_LAMBDA_BY_HAND = '''
beta_limit = N.K.LUsolve(N.y)
pred_new = (N.k_new.T * beta_limit)[0]
beta_ridge = N.K.LUsolve(N.y)
'''

NO_CONSTANT_BY_HAND = '''
xs_own = list(N.x)
K_own = Matrix(3, 3, lambda i, j: sum((xs_own[i] * xs_own[j]) ** t for t in range(1, 4)))
beta_two = sp.zeros(3, 1)
for _ in range(2):
    beta_two = beta_two + N.alpha * (N.y - N.K * beta_two)
'''

FLOAT_FIXED = '''
beta_limit = Matrix(np.linalg.solve(np.array(N.K, dtype=float), np.array(N.y, dtype=float)))
pred_new = (N.k_new.T * beta_limit)[0]
beta_ridge = (N.K + N.lam * sp.eye(3)).LUsolve(N.y)
'''


# ------------------------------------------------------------ correct, float32 throughout
# The ps6 functions of tests/grading/float32_alternatives.py, typed into the notebook as they
# stand there: inputs turned into float32 at once, every product and solve in single precision.
def _typed(*functions, head: str = "") -> str:
    return head + "\n\n".join(inspect.getsource(f) for f in functions)


FLOAT32_CELLS = {
    "cubic_kernel_answer": _typed(_f32alt._f32, _f32alt.cubic_kernel, head=(
        f"F32 = np.float32\nCUT32 = {_f32alt.CUT32!r}\n\n\n")),
    "cubic_features_answer": _typed(_f32alt.cubic_features),
    "gd_dual_fit_answer": _typed(_f32alt._rate_steps, _f32alt.gd_dual_fit),
    "kernel_predict_answer": _typed(_f32alt.kernel_predict),
    "gd_primal_fit_answer": _typed(_f32alt.gd_primal_fit),
    "max_step_size_answer": _typed(_f32alt.max_step_size),
    "kernel_ridge_answer": _typed(_f32alt.kernel_ridge),
}

VARIANTS = {
    "loops": {
        "description": "correct, every function written with explicit Python loops",
        "cells": {
            "cubic_kernel_answer": LOOPS_KERNEL,
            "cubic_features_answer": LOOPS_FEATURES,
            "gd_dual_fit_answer": LOOPS_DUAL,
            "kernel_predict_answer": LOOPS_PREDICT,
            "gd_primal_fit_answer": LOOPS_PRIMAL,
        },
        "lost": {},
    },
    "other_routes": {
        "description": "correct, other routes: features in another order (np.kron), the "
        "residual updated instead of beta, np.linalg.eig for the bound, ridge through the "
        "spectrum; by hand, the kernel matrix from x x^T, one explicit step, inverses",
        "cells": {
            "cubic_features_answer": OTHER_FEATURES,
            "gd_dual_fit_answer": OTHER_DUAL,
            "max_step_size_answer": OTHER_STEP,
            "kernel_ridge_answer": OTHER_RIDGE,
            "exact_steps_answer": OTHER_STEPS_BY_HAND,
            "exact_fixed_point_answer": OTHER_FIXED_BY_HAND,
        },
        "lost": {},
    },
    "float32": {
        "description": "correct, every function computes in float32 (inputs converted at "
        "once, products, eigvalsh and solve in single precision)",
        "cells": FLOAT32_CELLS,
        "lost": {},
    },
    "sequential_update": {
        "description": "the update read one coefficient at a time, each beta_i from the newest "
        "values (a coordinate sweep, not the gradient step), in code and by hand: gd_dual_fit "
        "passes no value group (zero steps stand beside a few steps in one group, as the "
        "zeros of code that computes nothing would pass them alone), so its error group does "
        "not count either, and the two steps by hand are lost",
        "cells": {"gd_dual_fit_answer": SEQUENTIAL_DUAL,
                  "exact_steps_answer": SEQUENTIAL_BY_HAND},
        "lost": {"test_gd_dual_fit": 4.0, "test_exact_steps": 2.0},
        "diagnoses": {"test_gd_dual_fit": "sequential_update",
                      "test_exact_steps": "sequential_update"},
    },
    "bound_not_doubled": {
        "description": "max_step_size returns 1 / lambda_max (the bound of a step that never "
        "overshoots, not the bound of convergence): the visible check on [[3, 1], [1, 3]] "
        "fails, so the cell earns nothing",
        "cells": {"max_step_size_answer": NOT_DOUBLED},
        "lost": {"test_max_step_size": 3.0},
    },
    "ridge_without_lambda": {
        "description": "kernel ridge ignores lambda (solves K beta = y), in code and by hand: "
        "the visible check with lambda = 1 fails (the whole cell), and the ridge answer by "
        "hand is the fixed point, diagnosed",
        "cells": {"kernel_ridge_answer": RIDGE_NO_LAMBDA,
                  "exact_fixed_point_answer": RIDGE_NO_LAMBDA_BY_HAND},
        "lost": {"test_kernel_ridge": 3.0, "test_exact_fixed_point": 2.0},
        "diagnoses": {"test_exact_fixed_point": "ridge_without_lambda"},
    },
    "kernel_without_constant_by_hand": {
        "description": "by hand, the kernel matrix without the constant term 1",
        "cells": {"exact_steps_answer": NO_CONSTANT_BY_HAND},
        "lost": {"test_exact_steps": 1.0},
        "diagnoses": {"test_exact_steps": "kernel_without_constant"},
    },
    "float_answers": {
        "description": "the fixed point by floating point: the visible exactness check fails, "
        "so the cell earns nothing",
        "cells": {"exact_fixed_point_answer": FLOAT_FIXED},
        "lost": {"test_exact_fixed_point": 5.0},
    },
}
