"""Submissions for ps5_kernel_pca: correct ones written differently, and classic mistakes.

Each entry replaces the listed answer cells of the source notebook; the other answer cells
keep the reference solution. ``lost`` gives, per test cell, the points the submission must
lose: a visible check that fails costs the whole cell, otherwise the hidden grading gives
``points * (case groups passed) / (case groups)`` (rounded to 2 decimals), and each exact
answer of a cell earns its own points.
"""

# ---------------------------------------------------------------------------- correct, loops
LOOPS_FIT = '''
def kpca_fit(Kc, l):
    Kc = np.asarray(Kc, dtype=float)
    n = Kc.shape[0]
    if Kc.ndim != 2 or Kc.shape[1] != n:
        raise ValueError("Kc must be square")
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError("l must be a positive integer")
    top = max(abs(Kc[i, j]) for i in range(n) for j in range(n))
    for i in range(n):
        for j in range(i):
            if abs(Kc[i, j] - Kc[j, i]) > 1e-10 * max(1.0, top):
                raise ValueError("Kc must be symmetric")
    values, vectors = np.linalg.eigh(Kc)
    pairs = sorted(range(n), key=lambda k: values[k], reverse=True)
    scale = max(abs(v) for v in values)
    if min(values) < -1e-8 * scale:
        raise ValueError("Kc is not positive semidefinite")
    if sum(1 for v in values if v > 1e-10 * scale) < l:
        raise ValueError("fewer than l positive eigenvalues")
    mu = np.zeros(l)
    alpha = np.zeros((n, l))
    for j in range(l):
        k = pairs[j]
        mu[j] = values[k]
        for i in range(n):
            alpha[i, j] = vectors[i, k] / mu[j] ** 0.5
    return mu, alpha
'''

LOOPS_SCORES = '''
def kpca_scores(Kc, alpha):
    Kc, alpha = np.asarray(Kc, dtype=float), np.asarray(alpha, dtype=float)
    n, l = alpha.shape
    if Kc.shape != (n, n):
        raise ValueError("shapes do not fit")
    Z = np.zeros((n, l))
    for i in range(n):
        for j in range(l):
            Z[i, j] = sum(Kc[i, k] * alpha[k, j] for k in range(n))
    return Z
'''

LOOPS_RATIO = '''
def explained_ratio(mu):
    mu = [float(v) for v in mu]
    if not mu or min(mu) < 0 or sum(mu) <= 0:
        raise ValueError("mu must be non-negative with a positive sum")
    total = sum(mu)
    return np.array([v / total for v in mu])
'''

LOOPS_VARIANCES = '''
def feature_variances(mu, n, ddof=0):
    if n - ddof <= 0:
        raise ValueError("n - ddof must be positive")
    return np.array([float(v) / (n - ddof) for v in mu])
'''

LOOPS_RECON = '''
def reconstruction_error(Kc, l):
    Kc = np.asarray(Kc, dtype=float)
    n = Kc.shape[0]
    if Kc.ndim != 2 or Kc.shape[1] != n or not 1 <= l <= n:
        raise ValueError("bad input")
    values = sorted(np.linalg.eigvalsh(Kc), reverse=True)
    trace = sum(Kc[i, i] for i in range(n))
    return float(trace - sum(values[:l]))
'''

LOOPS_TRANSFORM = '''
def kpca_transform(K_new, K_train, alpha):
    K_new = np.asarray(K_new, dtype=float)
    K_train = np.asarray(K_train, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    n, l = alpha.shape
    m = K_new.shape[0]
    if K_train.shape != (n, n) or K_new.ndim != 2 or K_new.shape[1] != n:
        raise ValueError("shapes do not fit")
    row_means = [sum(K_train[i, k] for k in range(n)) / n for i in range(n)]
    grand = sum(row_means) / n
    Z = np.zeros((m, l))
    for r in range(m):
        own = sum(K_new[r, k] for k in range(n)) / n
        centred = [K_new[r, i] - row_means[i] - own + grand for i in range(n)]
        for j in range(l):
            Z[r, j] = sum(centred[i] * alpha[i, j] for i in range(n))
    return Z
'''

# ------------------------------------------- correct, np.linalg.eig and signs flipped by hand
EIG_FIT = '''
def kpca_fit(Kc, l):
    Kc = np.asarray(Kc, dtype=float)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError("Kc must be square")
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError("l must be a positive integer")
    if not np.allclose(Kc, Kc.T, rtol=0, atol=1e-10 * max(1.0, np.abs(Kc).max())):
        raise ValueError("Kc must be symmetric")
    values, vectors = np.linalg.eig(Kc)          # general solver: unsorted, maybe complex
    values, vectors = values.real, vectors.real
    order = np.argsort(-values)
    values, vectors = values[order], vectors[:, order]
    scale = np.abs(values).max()
    if values.min() < -1e-8 * scale:
        raise ValueError("Kc is not positive semidefinite")
    if np.count_nonzero(values > 1e-10 * scale) < l:
        raise ValueError("fewer than l positive eigenvalues")
    # eig does not orthogonalise eigenvectors of a repeated eigenvalue: Gram-Schmidt (QR)
    # keeps every direction of a simple eigenvalue and orthonormalises within repeated ones
    q, _ = np.linalg.qr(vectors[:, :l])
    return values[:l], -q / np.sqrt(values[:l])   # and the opposite signs, for good measure
'''

FLIPPED_3PT = '''
eig_3pt = Matrix([8, 6, 0])
alpha_3pt = Matrix([[Rational(-1, 4), Rational(1, 6)],
                    [Rational(1, 4), Rational(1, 6)],
                    [0, Rational(-1, 3)]])
Z_3pt = Matrix([[-2, 1], [2, 1], [0, -2]])
'''

FLIPPED_NEW = '''
mu_poly = Matrix([2, Rational(2, 3)])
z_star = Matrix([[-2, Rational(10, 3)]])
recon_err_poly = Rational(24, 9) - 2
'''

# ------------------------------------------------------------ correct, float32 throughout
# Inputs are turned into float32 at once and every step runs in single precision (eigh of a
# float32 matrix calls LAPACK's single-precision solver). The cut-offs for "zero" and
# "clearly negative" eigenvalues are float32-sized (1e-5 of the largest, about 80 float32
# round-offs): a float32 solver returns the zero eigenvalues of a singular matrix as noise
# of about 1e-7 of the largest, which the float64 cut-offs would count as positive or
# negative. The grading tolerances (kpca_ref.tolerances) accept float32 round-off.
FLOAT32_FIT = '''
def kpca_fit(Kc, l):
    Kc = np.asarray(Kc, dtype=np.float32)        # single precision from here on
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError(f"Kc must be square, got shape {Kc.shape}")
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError(f"l must be a positive integer, got {l!r}")
    if not np.all(np.isfinite(Kc)):
        raise ValueError("Kc contains NaN or inf")
    cut = np.float32(1e-5)                       # float32-sized "zero", relative to the largest
    if np.abs(Kc - Kc.T).max() > cut * np.abs(Kc).max():
        raise ValueError("Kc must be symmetric")
    mu, a = np.linalg.eigh(Kc)
    mu, a = mu[::-1], a[:, ::-1]
    scale = np.abs(mu).max()
    if mu[-1] < -cut * scale:
        raise ValueError(f"Kc is not positive semidefinite: eigenvalue {mu[-1]:.3g}")
    positive = int(np.sum(mu > cut * scale))
    if positive < l:
        raise ValueError(f"only {positive} positive eigenvalues, {l} components requested")
    mu, a = mu[:l], a[:, :l]
    return mu, a / np.sqrt(mu)
'''

FLOAT32_SCORES = '''
def kpca_scores(Kc, alpha):
    Kc = np.asarray(Kc, dtype=np.float32)
    alpha = np.asarray(alpha, dtype=np.float32)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError(f"Kc must be square, got shape {Kc.shape}")
    if alpha.ndim != 2 or alpha.shape[0] != Kc.shape[0]:
        raise ValueError(f"alpha must have shape ({Kc.shape[0]}, l), got {alpha.shape}")
    return Kc @ alpha
'''

FLOAT32_RATIO = '''
def explained_ratio(mu):
    mu = np.asarray(mu, dtype=np.float32)
    if mu.ndim != 1 or mu.size == 0:
        raise ValueError(f"mu must be a non-empty 1-D array, got shape {mu.shape}")
    if np.any(mu < 0) or mu.sum() <= 0:
        raise ValueError("mu must be non-negative with a positive sum")
    return mu / mu.sum(dtype=np.float32)
'''

FLOAT32_VARIANCES = '''
def feature_variances(mu, n, ddof=0):
    if n - ddof <= 0:
        raise ValueError(f"n - ddof must be positive, got n={n}, ddof={ddof}")
    return np.asarray(mu, dtype=np.float32) / np.float32(n - ddof)
'''

FLOAT32_RECON = '''
def reconstruction_error(Kc, l):
    Kc = np.asarray(Kc, dtype=np.float32)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError(f"Kc must be square, got shape {Kc.shape}")
    n = Kc.shape[0]
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or not 1 <= l <= n:
        raise ValueError(f"l must be an integer between 1 and {n}, got {l!r}")
    mu = np.linalg.eigvalsh(Kc)[::-1]
    return np.trace(Kc, dtype=np.float32) - mu[:l].sum(dtype=np.float32)
'''

FLOAT32_TRANSFORM = '''
def kpca_transform(K_new, K_train, alpha):
    K_new = np.asarray(K_new, dtype=np.float32)
    K_train = np.asarray(K_train, dtype=np.float32)
    alpha = np.asarray(alpha, dtype=np.float32)
    if K_train.ndim != 2 or K_train.shape[0] != K_train.shape[1]:
        raise ValueError(f"K_train must be square, got shape {K_train.shape}")
    n = K_train.shape[0]
    if K_new.ndim != 2 or K_new.shape[1] != n:
        raise ValueError(f"K_new must have shape (m, {n}), got {K_new.shape}")
    if alpha.ndim != 2 or alpha.shape[0] != n:
        raise ValueError(f"alpha must have shape ({n}, l), got {alpha.shape}")
    Kc_new = (K_new - K_train.mean(axis=1, dtype=np.float32)[None, :]
              - K_new.mean(axis=1, keepdims=True, dtype=np.float32)
              + K_train.mean(dtype=np.float32))
    return Kc_new @ alpha
'''

# ------------------------------------------------------------------------------ mistakes
NOT_SCALED = '''
def kpca_fit(Kc, l):
    # returns the unit eigenvectors as coefficients (forgets to divide by sqrt(mu))
    Kc = np.asarray(Kc, dtype=float)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError("Kc must be square")
    mu, a = np.linalg.eigh(Kc)
    mu, a = mu[::-1], a[:, ::-1]
    scale = np.abs(mu).max()
    if mu[-1] < -1e-8 * scale or np.sum(mu > 1e-10 * scale) < l:
        raise ValueError("impossible request")
    return mu[:l], a[:, :l]
'''

ASCENDING = '''
def kpca_fit(Kc, l):
    # keeps eigh's increasing order: the largest l eigenvalues, smallest first
    Kc = np.asarray(Kc, dtype=float)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError("Kc must be square")
    mu, a = np.linalg.eigh(Kc)
    scale = np.abs(mu).max()
    if mu[0] < -1e-8 * scale or np.sum(mu > 1e-10 * scale) < l:
        raise ValueError("impossible request")
    mu, a = mu[-l:], a[:, -l:]
    return mu, a / np.sqrt(mu)
'''

SAMPLE_ALWAYS = '''
def feature_variances(mu, n, ddof=0):
    # always divides by n - 1 (the textbook's sample variance), whatever ddof says
    return np.asarray(mu, dtype=float) / (n - 1)
'''

TRANSFORM_OWN_MEAN = '''
def kpca_transform(K_new, K_train, alpha):
    # centres each new row with its own average only, not with the training means
    K_new = np.asarray(K_new, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    if K_new.ndim != 2 or K_new.shape[1] != alpha.shape[0]:
        raise ValueError("shapes do not fit")
    return (K_new - K_new.mean(axis=1, keepdims=True)) @ alpha
'''

TRANSFORM_NOT_CENTRED = '''
def kpca_transform(K_new, K_train, alpha):
    # uses the raw kernel values of the new points (no centring at all)
    K_new = np.asarray(K_new, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    if K_new.ndim != 2 or K_new.shape[1] != alpha.shape[0]:
        raise ValueError("shapes do not fit")
    return K_new @ alpha
'''

UNSCALED_BY_HAND = '''
eig_3pt = Matrix([8, 6, 0])
# unit eigenvectors given as the coefficient vectors
alpha_3pt = Matrix([[1 / sqrt(2), 1 / sqrt(6)],
                    [-1 / sqrt(2), 1 / sqrt(6)],
                    [0, -2 / sqrt(6)]])
Z_3pt = Matrix([[2, 1], [-2, 1], [0, -2]])
'''

DIVISOR_BY_HAND = '''
var_pop_3pt = Matrix([4, 3])          # divided by n - 1 although eta / n was asked
var_sample_3pt = Matrix([4, 3])
ratio_3pt = Matrix([Rational(4, 7), Rational(3, 7)])
'''

FLOAT_RATIOS = '''
var_pop_3pt = Matrix([Rational(8, 3), 2])
var_sample_3pt = Matrix([4, 3])
ratio_3pt = Matrix([0.5714, 0.4286])
'''

VARIANTS = {
    "loops": {
        "description": "correct, every function written with explicit Python loops "
        "(eigh for the eigen-decomposition, sorted by hand)",
        "cells": {
            "kpca_fit_answer": LOOPS_FIT,
            "kpca_scores_answer": LOOPS_SCORES,
            "explained_ratio_answer": LOOPS_RATIO,
            "feature_variances_answer": LOOPS_VARIANCES,
            "reconstruction_error_answer": LOOPS_RECON,
            "kpca_transform_answer": LOOPS_TRANSFORM,
        },
        "lost": {},
    },
    "eig_flipped_signs": {
        "description": "correct, np.linalg.eig instead of eigh (sorted, orthonormalised "
        "within repeated eigenvalues) with every coefficient vector's sign flipped; exact "
        "answers with other signs per component",
        "cells": {
            "kpca_fit_answer": EIG_FIT,
            "exact_3pt_answer": FLIPPED_3PT,
            "exact_new_point_answer": FLIPPED_NEW,
        },
        "lost": {},
    },
    "float32": {
        "description": "correct, every function computes in float32 (inputs converted at once, "
        "eigh in single precision, float32-sized cut-offs for zero and negative eigenvalues)",
        "cells": {
            "kpca_fit_answer": FLOAT32_FIT,
            "kpca_scores_answer": FLOAT32_SCORES,
            "explained_ratio_answer": FLOAT32_RATIO,
            "feature_variances_answer": FLOAT32_VARIANCES,
            "reconstruction_error_answer": FLOAT32_RECON,
            "kpca_transform_answer": FLOAT32_TRANSFORM,
        },
        # Every hidden group passes, and the visible checks judge round-off relative to
        # the scale of the scores and of the trace (float32 column sums are about 1e-6).
        "lost": {},
    },
    "alpha_not_scaled": {
        "description": "kpca_fit returns the unit eigenvectors a_j as coefficients (notes "
        "10-12 Q6, textbook common mistakes); only the ValueError group passes",
        "cells": {"kpca_fit_answer": NOT_SCALED},
        "lost": {"test_kpca_fit": 5.0},
    },
    "ascending_order": {
        "description": "kpca_fit keeps eigh's increasing order; only the ValueError group passes",
        "cells": {"kpca_fit_answer": ASCENDING},
        "lost": {"test_kpca_fit": 5.0},
    },
    "variance_divisor": {
        "description": "feature_variances always divides by n - 1; only the ddof = 1 group "
        "passes (1 of 4)",
        "cells": {"feature_variances_answer": SAMPLE_ALWAYS},
        "lost": {"test_feature_variances": 1.5},
    },
    "new_point_own_mean": {
        "description": "kpca_transform centres the new rows with their own average only "
        "(textbook, common mistakes); the coefficient vectors sum to zero, so that average "
        "drops out and the result equals the uncentred one: diagnosed as "
        "new_point_not_centred",
        "cells": {"kpca_transform_answer": TRANSFORM_OWN_MEAN},
        "lost": {"test_kpca_transform": 4.0},
    },
    "new_point_not_centred": {
        "description": "kpca_transform projects the raw kernel values (the derivation of "
        "note 004 skips centring the new sample)",
        "cells": {"kpca_transform_answer": TRANSFORM_NOT_CENTRED},
        "lost": {"test_kpca_transform": 4.0},
    },
    "alpha_not_scaled_by_hand": {
        "description": "by hand, the unit eigenvectors are given as coefficient vectors: "
        "only that answer of the cell is lost",
        "cells": {"exact_3pt_answer": UNSCALED_BY_HAND},
        "lost": {"test_exact_3pt": 2.0},
    },
    "variance_divisor_by_hand": {
        "description": "by hand, the population variances are divided by n - 1",
        "cells": {"exact_variance_answer": DIVISOR_BY_HAND},
        "lost": {"test_exact_variance": 1.0},
    },
    "float_answers": {
        "description": "decimals where exact fractions are asked; the visible exactness "
        "check fails, so the cell earns nothing",
        "cells": {"exact_variance_answer": FLOAT_RATIOS},
        "lost": {"test_exact_variance": 3.0},
    },
}
