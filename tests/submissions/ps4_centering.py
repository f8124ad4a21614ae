"""Submissions for ps4_centering: correct ones written differently, and classic mistakes.

Each entry replaces the listed answer cells of the source notebook; the other answer cells
keep the reference solution. ``lost`` gives, per test cell, the points the submission must
lose: a visible check that fails costs the whole cell, otherwise the hidden grading gives
``points * (case groups passed) / (case groups)``.
"""

# ---------------------------------------------------------------------------- correct, loops
LOOPS_CENTRING_MATRIX = '''
def centring_matrix(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("n must be an integer")
    if n < 2:
        raise ValueError("n must be >= 2")
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            H[i, j] = (1.0 if i == j else 0.0) - 1.0 / n
    return H
'''

LOOPS_CENTRE_KERNEL = '''
def centre_kernel(K):
    exact = isinstance(K, sp.MatrixBase)
    if not exact:
        K = np.asarray(K, dtype=float)
        if K.ndim != 2:
            raise ValueError("K must be 2-D")
    n, n2 = K.shape
    if n != n2:
        raise ValueError(f"K must be square, got shape {K.shape}")
    row = [sum(K[i, l] for l in range(n)) / n for i in range(n)]
    col = [sum(K[l, j] for l in range(n)) / n for j in range(n)]
    grand = sum(row) / n
    out = sp.zeros(n, n) if exact else np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = K[i, j] - row[i] - col[j] + grand
    return out
'''

LOOPS_FEATURE_MEAN = '''
def feature_mean_sq_norm(K):
    exact = isinstance(K, sp.MatrixBase)
    if not exact:
        K = np.asarray(K, dtype=float)
    if len(K.shape) != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    n = K.shape[0]
    total = 0
    for i in range(n):
        for j in range(n):
            total += K[i, j]
    return total / n**2 if exact else float(total) / n**2
'''

LOOPS_DISTANCES = '''
def distances_to_mean(K):
    exact = isinstance(K, sp.MatrixBase)
    if not exact:
        K = np.asarray(K, dtype=float)
    if len(K.shape) != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    n = K.shape[0]
    grand = sum(K[i, j] for i in range(n) for j in range(n)) / n**2
    out = sp.zeros(n, 1) if exact else np.zeros(n)
    for i in range(n):
        row_mean = sum(K[i, j] for j in range(n)) / n
        sq = K[i, i] - 2 * row_mean + grand
        out[i] = sp.sqrt(sq) if exact else max(sq, 0.0) ** 0.5
    return out
'''

LOOPS_CENTRE_NEW = '''
def centre_new(K_new, K_train):
    exact = isinstance(K_new, sp.MatrixBase) or isinstance(K_train, sp.MatrixBase)
    if exact:
        K_new, K_train = sp.Matrix(K_new), sp.Matrix(K_train)
    else:
        K_new = np.asarray(K_new, dtype=float)
        K_train = np.asarray(K_train, dtype=float)
        if K_new.ndim != 2 or K_train.ndim != 2:
            raise ValueError("K_new and K_train must be 2-D")
    n = K_train.shape[0]
    if K_train.shape[1] != n:
        raise ValueError("K_train must be square")
    m = K_new.shape[0]
    if K_new.shape[1] != n:
        raise ValueError("K_new must have one column per training point")
    train_row = [sum(K_train[i, l] for l in range(n)) / n for i in range(n)]
    grand = sum(train_row) / n
    out = sp.zeros(m, n) if exact else np.zeros((m, n))
    for r in range(m):
        new_mean = sum(K_new[r, l] for l in range(n)) / n
        for i in range(n):
            out[r, i] = K_new[r, i] - train_row[i] - new_mean + grand
    return out
'''

# ----------------------------------------------------- correct, other matrix forms, own tools
FORMS_CENTRE_KERNEL = '''
def centre_kernel(K):
    if isinstance(K, sp.MatrixBase):
        n = K.rows
        if K.cols != n:
            raise ValueError("K must be square")
        J = sp.ones(n, n) / n
        return K - J * K - K * J + J * K * J
    K = np.array(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    return K - K.mean(axis=1)[:, None] - K.mean(axis=0)[None, :] + K.mean()
'''

FORMS_FEATURE_MEAN = '''
def feature_mean_sq_norm(K):
    if isinstance(K, sp.MatrixBase):
        n = K.rows
        if K.cols != n:
            raise ValueError("K must be square")
        return (sp.ones(1, n) * K * sp.ones(n, 1))[0, 0] / n**2
    K = np.array(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    one = np.ones(K.shape[0])
    return one @ K @ one / K.shape[0] ** 2
'''

FORMS_DISTANCES = '''
def distances_to_mean(K):
    if isinstance(K, sp.MatrixBase):
        n = K.rows
        if K.cols != n:
            raise ValueError("K must be square")
        H = sp.eye(n) - sp.ones(n, n) / n
        return (H * K * H).diagonal().T.applyfunc(sp.sqrt)
    K = np.array(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    n = K.shape[0]
    H = np.eye(n) - 1.0 / n
    return np.sqrt(np.clip(np.diag(H @ K @ H), 0.0, None))
'''

FORMS_CENTRE_NEW = '''
def centre_new(K_new, K_train):
    if isinstance(K_new, sp.MatrixBase) or isinstance(K_train, sp.MatrixBase):
        K_new, K_train = sp.Matrix(K_new), sp.Matrix(K_train)
        n, m = K_train.rows, K_new.rows
        if K_train.cols != n or K_new.cols != n:
            raise ValueError("shapes do not match")
        H = sp.eye(n) - sp.ones(n, n) / n
        return (K_new - sp.ones(m, n) * K_train / n) * H
    K_new = np.atleast_2d(np.asarray(K_new, dtype=float))
    K_train = np.asarray(K_train, dtype=float)
    n = K_train.shape[0]
    if K_train.shape != (n, n) or K_new.shape[1] != n:
        raise ValueError("shapes do not match")
    H = np.eye(n) - np.full((n, n), 1.0 / n)
    return (K_new - np.ones((K_new.shape[0], n)) @ K_train / n) @ H
'''

# exact answers obtained with the student's own (exact) functions instead of by hand
# (on the student's own numbers N)
OWN_TOOLS_MATRIX = '''
Kc_matrix = centre_kernel(N.K)
'''

OWN_TOOLS_POLY = '''
def k_own(x, y):
    return N.k0 + N.k1 * x * y + N.k2 * (x * y) ** 2


K_poly = Matrix(3, 3, lambda i, j: k_own(N.x[i], N.x[j]))
Kc_poly = centre_kernel(K_poly)
'''

OWN_TOOLS_MEAN = '''
grand_mean_poly = feature_mean_sq_norm(K_poly)
sq_dists_poly = distances_to_mean(K_poly).applyfunc(lambda d: d**2)
total_var_poly = Kc_poly.trace() / 3
'''

OWN_TOOLS_NEW = '''
k_star = Matrix([k_own(x, N.x_star) for x in N.x])
row_means_poly = K_poly * Matrix([1, 1, 1]) / 3
kc_star = centre_new(k_star.T, K_poly).T
'''

# ------------------------------------------------------------ correct, float32 throughout
# Numeric input is turned into float32 at once and every step runs in single precision;
# sympy input keeps its exact route. The grading tolerances (kpca_ref.tolerances) accept
# float32 round-off, so every hidden group passes.
FLOAT32_CENTRING_MATRIX = '''
def centring_matrix(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    return np.eye(n, dtype=np.float32) - np.full((n, n), 1 / n, dtype=np.float32)
'''

FLOAT32_CENTRE_KERNEL = '''
def centre_kernel(K):
    if isinstance(K, sp.MatrixBase):
        if K.rows != K.cols:
            raise ValueError(f"K must be square, got shape {K.shape}")
        n = K.rows
        H = sp.eye(n) - sp.ones(n, n) / n
        return H * K * H
    K = np.asarray(K, dtype=np.float32)          # single precision from here on
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    n = K.shape[0]
    H = np.eye(n, dtype=np.float32) - np.full((n, n), 1 / n, dtype=np.float32)
    return H @ K @ H
'''

FLOAT32_FEATURE_MEAN = '''
def feature_mean_sq_norm(K):
    if isinstance(K, sp.MatrixBase):
        if K.rows != K.cols:
            raise ValueError(f"K must be square, got shape {K.shape}")
        return sum(K) / K.rows**2
    K = np.asarray(K, dtype=np.float32)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    return K.mean(dtype=np.float32)
'''

FLOAT32_DISTANCES = '''
def distances_to_mean(K):
    if isinstance(K, sp.MatrixBase):
        n = K.rows
        if K.cols != n:
            raise ValueError(f"K must be square, got shape {K.shape}")
        grand = sum(K) / n**2
        return Matrix([sqrt(K[i, i] - 2 * sum(K.row(i)) / n + grand) for i in range(n)])
    K = np.asarray(K, dtype=np.float32)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square, got shape {K.shape}")
    sq = np.diag(K) - 2 * K.mean(axis=1, dtype=np.float32) + K.mean(dtype=np.float32)
    return np.sqrt(np.maximum(sq, np.float32(0)))
'''

FLOAT32_CENTRE_NEW = '''
def centre_new(K_new, K_train):
    if isinstance(K_new, sp.MatrixBase) or isinstance(K_train, sp.MatrixBase):
        K_new, K_train = Matrix(K_new), Matrix(K_train)
        n, m = K_train.rows, K_new.rows
        if K_train.cols != n or K_new.cols != n:
            raise ValueError("K_train must be square and K_new must have n columns")
        H = sp.eye(n) - sp.ones(n, n) / n
        return (K_new - sp.ones(m, n) * K_train / n) * H
    K_new = np.asarray(K_new, dtype=np.float32)
    K_train = np.asarray(K_train, dtype=np.float32)
    if K_train.ndim != 2 or K_train.shape[0] != K_train.shape[1]:
        raise ValueError(f"K_train must be square, got shape {K_train.shape}")
    n = K_train.shape[0]
    if K_new.ndim != 2 or K_new.shape[1] != n:
        raise ValueError(f"K_new must have shape (m, {n}), got {K_new.shape}")
    row_means = K_train.mean(axis=1, dtype=np.float32)
    new_means = K_new.mean(axis=1, keepdims=True, dtype=np.float32)
    return K_new - row_means[None, :] - new_means + K_train.mean(dtype=np.float32)
'''

# ------------------------------------------------------------------------------ mistakes
NOT_CENTRED = '''
def centre_kernel(K):
    # forgets to centre: the kernel matrix is returned as it is
    if isinstance(K, sp.MatrixBase):
        return sp.Matrix(K)
    return np.array(K, dtype=float)
'''

ONE_SIDE = '''
def centre_kernel(K):
    # multiplies by H on one side only: the rows sum to zero, the columns do not
    if isinstance(K, sp.MatrixBase):
        n = K.rows
        return K * (sp.eye(n) - sp.ones(n, n) / n)
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    n = K.shape[0]
    return K @ (np.eye(n) - np.ones((n, n)) / n)
'''

NUMERIC_ONLY = '''
def centre_kernel(K):
    # no exact route: a sympy Matrix comes back as a float array
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    n = K.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    return H @ K @ H
'''

OWN_MEAN = '''
def centre_new(K_new, K_train):
    # centres each new row with its own average only (drops the training means)
    if isinstance(K_new, sp.MatrixBase) or isinstance(K_train, sp.MatrixBase):
        K_new = sp.Matrix(K_new)
        n = K_new.cols
        return K_new - K_new * sp.ones(n, n) / n
    K_new = np.asarray(K_new, dtype=float)
    K_train = np.asarray(K_train, dtype=float)
    if K_train.ndim != 2 or K_train.shape[0] != K_train.shape[1]:
        raise ValueError("K_train must be square")
    if K_new.ndim != 2 or K_new.shape[1] != K_train.shape[0]:
        raise ValueError("K_new must have n columns")
    return K_new - K_new.mean(axis=1, keepdims=True)
'''

NEW_NOT_CENTRED = '''
def centre_new(K_new, K_train):
    # leaves the new kernel values uncentred
    if isinstance(K_new, sp.MatrixBase) or isinstance(K_train, sp.MatrixBase):
        return sp.Matrix(K_new)
    return np.array(K_new, dtype=float)
'''

SQUARED_DISTANCES = '''
def distances_to_mean(K):
    # returns squared distances (forgets the square root)
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError("K must be square")
    return np.diag(K) - 2 * K.mean(axis=1) + K.mean()
'''

# the right values on the student's numbers, turned into floats
FLOAT_MATRIX = '''
Kc_matrix = Matrix(centre_kernel(np.array(N.K, dtype=float)))
'''

FLOAT_MEAN = '''
grand_mean_poly = sum(K_poly) / 9
sq_dists_poly = Kc_poly.diagonal().T.applyfunc(float)
total_var_poly = Kc_poly.trace() / 3
'''

# ------------------------------------------------------------- classic mistakes by hand
# Each is what a lecture's classic mistake gives on the student's own numbers; the visible
# checks (type and shape) pass, the exact item earns nothing and its feedback line names
# the mistake.
_H3 = "(sympy.eye(3) - sympy.ones(3, 3) / 3)"

EXACT_NOT_CENTRED_MATRIX = '''
Kc_matrix = Matrix(N.K)  # forgot to centre
'''

EXACT_NOT_CENTRED_POLY = '''
xs_own = list(N.x)
K_poly = Matrix(3, 3, lambda i, j: N.k0 + N.k1 * xs_own[i] * xs_own[j] + N.k2 * (xs_own[i] * xs_own[j]) ** 2)
Kc_poly = K_poly  # forgot to centre
'''

EXACT_NOT_CENTRED_MEAN = '''
grand_mean_poly = sum(K_poly) / 9
sq_dists_poly = K_poly.diagonal().T     # squared lengths, measured from the origin
total_var_poly = K_poly.trace() / 3     # the same, averaged
'''

EXACT_NOT_CENTRED_NEW = '''
k_star = Matrix([N.k0 + N.k1 * x * N.x_star + N.k2 * (x * N.x_star) ** 2 for x in N.x])
row_means_poly = K_poly * Matrix([1, 1, 1]) / 3
kc_star = k_star                        # the raw vector, not centred
'''

EXACT_ONE_SIDE_MATRIX = f'''
Kc_matrix = N.K * {_H3}  # centred on one side only
'''

EXACT_ONE_SIDE_POLY = f'''
xs_own = list(N.x)
K_poly = Matrix(3, 3, lambda i, j: N.k0 + N.k1 * xs_own[i] * xs_own[j] + N.k2 * (xs_own[i] * xs_own[j]) ** 2)
Kc_poly = {_H3} * K_poly  # centred on one side only
'''

EXACT_DISTANCES = '''
grand_mean_poly = sum(K_poly) / 9
sq_dists_poly = Kc_poly.diagonal().T.applyfunc(sqrt)  # the distances, not their squares
total_var_poly = Kc_poly.trace() / 3
'''

EXACT_PAIR_DISTANCES = '''
pair_sq_dists = Matrix([sqrt(K_poly[i, i] + K_poly[j, j] - 2 * K_poly[i, j])  # not squared
                        for i, j in ((0, 1), (0, 2), (1, 2))])
'''

EXACT_PAIR_CROSS_ONCE = '''
pair_sq_dists = Matrix([K_poly[i, i] + K_poly[j, j] - K_poly[i, j]  # the cross term once
                        for i, j in ((0, 1), (0, 2), (1, 2))])
'''

EXACT_SAMPLE_VARIANCE = '''
grand_mean_poly = sum(K_poly) / 9
sq_dists_poly = Kc_poly.diagonal().T
total_var_poly = Kc_poly.trace() / 2  # divides by n - 1
'''

EXACT_OWN_MEAN = f'''
k_star = Matrix([N.k0 + N.k1 * x * N.x_star + N.k2 * (x * N.x_star) ** 2 for x in N.x])
row_means_poly = K_poly * Matrix([1, 1, 1]) / 3
kc_star = {_H3} * k_star  # subtracts only its own average
'''

VARIANTS = {
    "loops": {
        "description": "correct, every function written with explicit Python loops",
        "cells": {
            "centring_matrix_answer": LOOPS_CENTRING_MATRIX,
            "centre_kernel_answer": LOOPS_CENTRE_KERNEL,
            "feature_mean_sq_norm_answer": LOOPS_FEATURE_MEAN,
            "distances_to_mean_answer": LOOPS_DISTANCES,
            "centre_new_answer": LOOPS_CENTRE_NEW,
        },
        "lost": {},
    },
    "other_forms": {
        "description": "correct, other algebra: four-term broadcasting, 1^T K 1 / n^2, "
        "diag(HKH), (K_new - 1 1^T K / n) H; exact answers computed with the student's "
        "own exact functions",
        "cells": {
            "centre_kernel_answer": FORMS_CENTRE_KERNEL,
            "feature_mean_sq_norm_answer": FORMS_FEATURE_MEAN,
            "distances_to_mean_answer": FORMS_DISTANCES,
            "centre_new_answer": FORMS_CENTRE_NEW,
            "exact_centre_3x3_answer": OWN_TOOLS_MATRIX,
            "exact_poly_answer": OWN_TOOLS_POLY,
            "exact_mean_answer": OWN_TOOLS_MEAN,
            "exact_new_point_answer": OWN_TOOLS_NEW,
        },
        "lost": {},
    },
    "float32": {
        "description": "correct, every function computes in float32 (inputs converted at once, "
        "single-precision arithmetic throughout; sympy input keeps the exact route)",
        "cells": {
            "centring_matrix_answer": FLOAT32_CENTRING_MATRIX,
            "centre_kernel_answer": FLOAT32_CENTRE_KERNEL,
            "feature_mean_sq_norm_answer": FLOAT32_FEATURE_MEAN,
            "distances_to_mean_answer": FLOAT32_DISTANCES,
            "centre_new_answer": FLOAT32_CENTRE_NEW,
        },
        # Every hidden group passes, and the visible row-sum checks judge round-off relative
        # to the matrix (float32 row sums of a centred matrix are about 1e-7 of its scale).
        "lost": {},
    },
    "not_centred": {
        "description": "centre_kernel returns K uncentred (notes 10-12: the mapped points "
        "need centring even when the inputs are centred); the visible row-sum check fails",
        "cells": {"centre_kernel_answer": NOT_CENTRED},
        "lost": {"test_centre_kernel": 4.0},
    },
    "centred_one_side": {
        "description": "centre_kernel computes K H instead of H K H: rows sum to zero, so the "
        "visible checks pass; the hidden cases diagnose centred_one_side",
        "cells": {"centre_kernel_answer": ONE_SIDE},
        # it raises ValueError for a non-square K (sympy's ShapeError is one), but beside no
        # passing value group that error group is not counted: 0 of 7
        "lost": {"test_centre_kernel": 4.0},
    },
    "numeric_only": {
        "description": "centre_kernel has no exact route (sympy in, floats out); the visible "
        "exactness check fails",
        "cells": {"centre_kernel_answer": NUMERIC_ONLY},
        "lost": {"test_centre_kernel": 4.0},
    },
    "new_point_own_mean": {
        "description": "centre_new subtracts each new row's own average only (textbook, common "
        "mistakes); rows still sum to zero, the hidden cases diagnose new_point_own_mean",
        "cells": {"centre_new_answer": OWN_MEAN},
        "lost": {"test_centre_new": 5.0},
    },
    "new_point_not_centred": {
        "description": "centre_new returns K_new unchanged; the visible row-sum check fails",
        "cells": {"centre_new_answer": NEW_NOT_CENTRED},
        "lost": {"test_centre_new": 5.0},
    },
    "squared_distances": {
        "description": "distances_to_mean returns squared distances; the visible linear-kernel "
        "check fails",
        "cells": {"distances_to_mean_answer": SQUARED_DISTANCES},
        "lost": {"test_distances_to_mean": 3.0},
    },
    "float_answers": {
        "description": "floats where exact answers are asked (the right values on the "
        "student's numbers, as floats); the visible exactness check fails, so each of those "
        "cells earns nothing",
        "cells": {"exact_centre_3x3_answer": FLOAT_MATRIX, "exact_mean_answer": FLOAT_MEAN},
        "lost": {"test_exact_centre_3x3": 2.0, "test_exact_mean": 4.0},
    },
    "exact_not_centred": {
        "description": "by hand, forgets to centre (notes 10-12): K for the centred matrices, "
        "K_ii for the squared distances, tr K / n for the variance, k_star for the centred "
        "new vector; each of those items loses with the diagnosis not_centred (or "
        "new_point_not_centred), K and the means stay right",
        "cells": {"exact_centre_3x3_answer": EXACT_NOT_CENTRED_MATRIX,
                  "exact_poly_answer": EXACT_NOT_CENTRED_POLY,
                  "exact_mean_answer": EXACT_NOT_CENTRED_MEAN,
                  "exact_new_point_answer": EXACT_NOT_CENTRED_NEW},
        "lost": {"test_exact_centre_3x3": 2.0, "test_exact_poly": 2.0, "test_exact_mean": 3.0,
                 "test_exact_new_point": 2.0},
        "diagnoses": {"ps4_centre_3x3": "not_centred", "ps4_poly_Kc": "not_centred",
                      "ps4_poly_sq_dists": "not_centred",
                      "ps4_poly_total_variance": "not_centred",
                      "ps4_new_kc_star": "new_point_not_centred"},
    },
    "exact_one_side": {
        "description": "by hand, centres one side only (K H, H K): both centred matrices lose "
        "with the diagnosis centred_one_side",
        "cells": {"exact_centre_3x3_answer": EXACT_ONE_SIDE_MATRIX,
                  "exact_poly_answer": EXACT_ONE_SIDE_POLY},
        "lost": {"test_exact_centre_3x3": 2.0, "test_exact_poly": 2.0},
        "diagnoses": {"ps4_centre_3x3": "centred_one_side", "ps4_poly_Kc": "centred_one_side"},
    },
    "exact_distances": {
        "description": "gives the distances where their squares are asked (to the mean, and "
        "between the pairs of training points)",
        "cells": {"exact_mean_answer": EXACT_DISTANCES,
                  "exact_pair_dists_answer": EXACT_PAIR_DISTANCES},
        "lost": {"test_exact_mean": 2.0, "test_exact_pair_dists": 1.0},
        "diagnoses": {"ps4_poly_sq_dists": "distance_not_squared",
                      "ps4_poly_pair_sq_dists": "distance_not_squared"},
    },
    "exact_pair_cross_once": {
        "description": "by hand, the squared distance between two mapped points with the cross "
        "term counted once, K_ii + K_jj - K_ij",
        "cells": {"exact_pair_dists_answer": EXACT_PAIR_CROSS_ONCE},
        "lost": {"test_exact_pair_dists": 1.0},
        "diagnoses": {"ps4_poly_pair_sq_dists": "cross_term_once"},
    },
    "exact_sample_variance": {
        "description": "divides the total variance by n - 1 (the textbook's sample "
        "convention) where this problem set divides by n",
        "cells": {"exact_mean_answer": EXACT_SAMPLE_VARIANCE},
        "lost": {"test_exact_mean": 1.0},
        "diagnoses": {"ps4_poly_total_variance": "variance_divisor"},
    },
    "exact_own_mean": {
        "description": "by hand, centres the new kernel vector with its own average only "
        "(the textbook's common mistake)",
        "cells": {"exact_new_point_answer": EXACT_OWN_MEAN},
        "lost": {"test_exact_new_point": 2.0},
        "diagnoses": {"ps4_new_kc_star": "new_point_own_mean"},
    },
}
