"""Submissions for ps5_kernel_pca: correct ones written differently, and classic mistakes.

Each entry replaces the listed answer cells of the source notebook; the other answer cells
keep the reference solution. ``lost`` gives, per test cell, the points the submission must
lose: a visible check that fails costs the whole cell, otherwise the hidden grading gives
``points * (case groups passed) / (case groups)`` (rounded to 2 decimals), and each exact
answer of a cell earns its own points. ``diagnoses`` ({test cell: code}) names the classic
mistake the cell's printed lines must carry. By-hand submissions compute from ``N``, so each
mistake shows on whatever numbers the submission's student id draws.
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

# ------------------------------------------- correct, an SVD instead of eigh, signs flipped
# (np.linalg.eig is no correct route: for a repeated eigenvalue of a symmetric matrix it can
# return one eigenvector twice, as it did for 1 student's hidden inputs in 100, and then no
# orthonormalising recovers the eigenspace)
SVD_FIT = '''
def kpca_fit(Kc, l):
    Kc = np.asarray(Kc, dtype=float)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError("Kc must be square")
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError("l must be a positive integer")
    if not np.allclose(Kc, Kc.T, rtol=0, atol=1e-10 * max(1.0, np.abs(Kc).max())):
        raise ValueError("Kc must be symmetric")
    U, s, Vt = np.linalg.svd(Kc)   # symmetric: s = |eigenvalues|, v_i = sign(mu_i) u_i
    values = s * np.sign(np.sum(U * Vt.T, axis=0))
    order = np.argsort(-values, kind="stable")
    values, vectors = values[order], U[:, order]
    scale = np.abs(values).max()
    if values.min() < -1e-8 * scale:
        raise ValueError("Kc is not positive semidefinite")
    if np.count_nonzero(values > 1e-10 * scale) < l:
        raise ValueError("fewer than l positive eigenvalues")
    return values[:l], -vectors[:, :l] / np.sqrt(values[:l])   # the opposite signs, too
'''

FLIPPED_3PT = '''
K3 = N.K_hat
eig_3pt = Matrix(sorted(K3.eigenvals(multiple=True), reverse=True))
columns = []
for mu_j in eig_3pt[:2]:
    direction = (K3 - mu_j * sp.eye(3)).nullspace()[0]
    columns.append(-direction / sqrt(direction.dot(direction) * mu_j))   # the other sign
alpha_3pt = Matrix.hstack(*columns)
Z_3pt = Matrix.hstack(-K3 * alpha_3pt[:, 0], K3 * alpha_3pt[:, 1])      # unsimplified
'''

# By the features: the points are symmetric about 0, so phi(x) = (sqrt(c1) x, sqrt(c2) x^2)
# centred has orthogonal columns; the coordinates of x* are those of phi(x*) - mean.
FLIPPED_NEW = '''
xs_new = list(N.X)
m2_new = Rational(sum(x**2 for x in xs_new), len(xs_new))
mu_x = N.c1 * sum(x**2 for x in xs_new)
mu_q = N.c2 * sum((x**2 - m2_new) ** 2 for x in xs_new)
z_x, z_q = sqrt(N.c1) * N.x_new, sqrt(N.c2) * (N.x_new**2 - m2_new)
if mu_x > mu_q:
    mu_poly, z_star = Matrix([mu_x, mu_q]), Matrix([-z_x, z_q])
else:
    mu_poly, z_star = Matrix([mu_q, mu_x]), Matrix([z_q, -z_x])
recon_err_poly = mu_x + mu_q - mu_poly[0]
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

# Unit eigenvectors of the student's own matrix, the first step of every by-hand mistake below.
_UNITS = '''
K3 = N.K_hat
eig_desc = sorted(K3.eigenvals(multiple=True), reverse=True)
units = []
for mu_j in eig_desc[:2]:
    direction = (K3 - mu_j * sp.eye(3)).nullspace()[0]
    units.append(direction / direction.norm())
'''

# the textbook's new point, by the reference's steps, with the coefficients as a parameter
_NEW_POINT = '''
xs_poly = list(N.X)
n_poly = len(xs_poly)
K_poly = Matrix(n_poly, n_poly, lambda i, j: N.c1 * xs_poly[i] * xs_poly[j]
                + N.c2 * (xs_poly[i] * xs_poly[j]) ** 2)
H_poly = sp.eye(n_poly) - sp.ones(n_poly, n_poly) / n_poly
Kc_poly = H_poly * K_poly * H_poly
k_star = Matrix([N.c1 * N.x_new * x + N.c2 * (N.x_new * x) ** 2 for x in xs_poly])
ones_poly = sp.ones(n_poly, 1)
kc_star = (k_star - K_poly * ones_poly / n_poly
           - ones_poly * sum(k_star) / n_poly + ones_poly * sum(K_poly) / n_poly**2)
features = [H_poly * Matrix(xs_poly), H_poly * Matrix([x**2 for x in xs_poly])]
pairs = sorted((((d.T * Kc_poly * d)[0] / d.dot(d), d) for d in features),
               key=lambda pair: pair[0], reverse=True)
'''

UNSCALED_BY_HAND = _UNITS + '''
eig_3pt = Matrix(eig_desc)
alpha_3pt = Matrix.hstack(*units)          # unit eigenvectors given as coefficient vectors
Z_3pt = K3 * alpha_3pt                     # and the coordinates computed from them
'''

UNSCALED_NEW_BY_HAND = _NEW_POINT + '''
mu_poly = Matrix([mu_j for mu_j, _ in pairs])
z_star = Matrix([(d / d.norm()).dot(kc_star) for _, d in pairs])   # a_j, not a_j / sqrt(mu_j)
recon_err_poly = Kc_poly.trace() - mu_poly[0]
'''

ASCENDING_3PT = _UNITS + '''
eig_3pt = Matrix(eig_desc[::-1])           # smallest first
alpha_3pt = Matrix.hstack(*[u / sqrt(m) for m, u in zip(eig_desc, units)][::-1])
Z_3pt = K3 * alpha_3pt
'''

ASCENDING_VARIANCE = '''
eta_kept = Matrix(sorted(N.K_hat.eigenvals(multiple=True), reverse=True)[:2])
var_pop_3pt = eta_kept / 3
var_sample_3pt = eta_kept / 2
ratio_3pt = Matrix(list(eta_kept / sum(eta_kept))[::-1])   # smallest share first
'''

ASCENDING_NEW = _NEW_POINT + '''
pairs = pairs[::-1]                        # smallest eigenvalue first
mu_poly = Matrix([mu_j for mu_j, _ in pairs])
z_star = Matrix([(d / d.norm() / sqrt(mu_j)).dot(kc_star) for mu_j, d in pairs])
recon_err_poly = Kc_poly.trace() - mu_poly[0]       # so it subtracts the smaller one
'''

OWN_MEAN_NEW = _NEW_POINT + '''
mu_poly = Matrix([mu_j for mu_j, _ in pairs])
kc_own = k_star - ones_poly * sum(k_star) / n_poly  # centred with the new point's own mean
z_star = Matrix([(d / d.norm() / sqrt(mu_j)).dot(kc_own) for mu_j, d in pairs])
recon_err_poly = Kc_poly.trace() - mu_poly[0]
'''

NOT_CENTRED_ERROR = _NEW_POINT + '''
mu_poly = Matrix([mu_j for mu_j, _ in pairs])
z_star = Matrix([(d / d.norm() / sqrt(mu_j)).dot(kc_star) for mu_j, d in pairs])
recon_err_poly = K_poly.trace() - mu_poly[0]       # the trace of the uncentred matrix
'''

# the shortcut's vector k* - m_row with the new point's own average, or with nothing at all
# subtracted (the uncentred formula of the derivation in file 004)
_SHIFT = '''
xs_shift = list(N.X)
K_shift = Matrix(len(xs_shift), len(xs_shift),
                 lambda i, j: N.c1 * xs_shift[i] * xs_shift[j] + N.c2 * (xs_shift[i] * xs_shift[j]) ** 2)
k_raw_shift = Matrix([N.c1 * N.x_new * x + N.c2 * (N.x_new * x) ** 2 for x in xs_shift])
'''

OWN_MEAN_SHIFT = _SHIFT + '''
k_shift = k_raw_shift - sp.ones(len(xs_shift), 1) * sum(k_raw_shift) / len(xs_shift)
'''

RAW_SHIFT = _SHIFT + '''
k_shift = k_raw_shift                      # no training row means subtracted
'''

# the cost of one new point: right, written with a Rational equal to the integer and Python
# ints; and counted as if the new point were appended and the (n + 1) x (n + 1) kernel
# matrix built and re-centred (the notes: the training mean is not recomputed)
COST_OTHER_FORMS = '''
n_cost, l_cost = int(N.n_train), int(N.l_keep)
cost_new = Matrix([Rational(2 * n_cost, 2), l_cost * n_cost])
'''

COST_REFITTED = '''
cost_new = Matrix([(N.n_train + 1) ** 2, N.n_train * N.l_keep])
'''

DIVISOR_BY_HAND = '''
eta_kept = Matrix(list(eig_3pt[:2]))
var_pop_3pt = eta_kept / 2                # divided by n - 1 although eta / n was asked
var_sample_3pt = eta_kept / 3             # and by n although mu / (n - 1) was asked
ratio_3pt = eta_kept / sum(eta_kept)
'''

FLOAT_RATIOS = '''
eta_kept = Matrix(list(eig_3pt[:2]))
var_pop_3pt = eta_kept / 3
var_sample_3pt = eta_kept / 2
ratio_3pt = Matrix([float(v) for v in eta_kept / sum(eta_kept)])
'''

# np.linalg.eig without orthonormalising: unit eigenvectors that are not orthogonal inside a
# repeated eigenvalue (Part 1 asks for orthonormal ones)
EIG_NOT_ORTHONORMAL = '''
def kpca_fit(Kc, l):
    Kc = np.asarray(Kc, dtype=float)
    if Kc.ndim != 2 or Kc.shape[0] != Kc.shape[1]:
        raise ValueError("Kc must be square")
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError("l must be a positive integer")
    if not np.allclose(Kc, Kc.T, rtol=0, atol=1e-10 * max(1.0, np.abs(Kc).max())):
        raise ValueError("Kc must be symmetric")
    values, vectors = np.linalg.eig(Kc)
    values, vectors = values.real, vectors.real
    order = np.argsort(-values)
    values, vectors = values[order], vectors[:, order]
    scale = np.abs(values).max()
    if values.min() < -1e-8 * scale:
        raise ValueError("Kc is not positive semidefinite")
    if np.count_nonzero(values > 1e-10 * scale) < l:
        raise ValueError("fewer than l positive eigenvalues")
    return values[:l], vectors[:, :l] / np.sqrt(values[:l])
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
    "svd_flipped_signs": {
        "description": "correct, np.linalg.svd instead of eigh (the eigenvalues' signs read "
        "from the singular vectors) with every coefficient vector's sign flipped; exact "
        "answers with other signs per component, the cost of a new point with a Rational and "
        "Python ints",
        "cells": {
            "kpca_fit_answer": SVD_FIT,
            "exact_3pt_answer": FLIPPED_3PT,
            "exact_new_point_answer": FLIPPED_NEW,
            "exact_cost_answer": COST_OTHER_FORMS,
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
        "10-12 Q6, textbook common mistakes); only the impossible requests group passes (it "
        "checks squareness but not symmetry nor l), not counted beside no value group: 0 of 7",
        "cells": {"kpca_fit_answer": NOT_SCALED},
        "lost": {"test_kpca_fit": 6.0},
    },
    "ascending_order": {
        "description": "kpca_fit keeps eigh's increasing order; only the impossible requests "
        "group passes, not counted beside no value group (0 of 7)",
        "cells": {"kpca_fit_answer": ASCENDING},
        "lost": {"test_kpca_fit": 6.0},
    },
    "variance_divisor": {
        "description": "feature_variances always divides by n - 1 and never raises; only the "
        "ddof = 1 group passes (1 of 5)",
        "cells": {"feature_variances_answer": SAMPLE_ALWAYS},
        "lost": {"test_feature_variances": 1.6},
    },
    "new_point_own_mean": {
        "description": "kpca_transform centres the new rows with their own average only "
        "(textbook, common mistakes); the coefficient vectors sum to zero, so that average "
        "drops out and the result equals the uncentred one: diagnosed as "
        "new_point_not_centred",
        "cells": {"kpca_transform_answer": TRANSFORM_OWN_MEAN},
        "lost": {"test_kpca_transform": 4.0},  # its error group is not counted
    },
    "new_point_not_centred": {
        "description": "kpca_transform projects the raw kernel values (the derivation of "
        "note 004 skips centring the new sample)",
        "cells": {"kpca_transform_answer": TRANSFORM_NOT_CENTRED},
        "lost": {"test_kpca_transform": 4.0},  # its error group is not counted
    },
    "alpha_not_scaled_by_hand": {
        "description": "by hand, the unit eigenvectors are given as coefficient vectors, and "
        "the coordinates (training and new point) computed from them: those three answers are "
        "lost, each diagnosed alpha_not_scaled",
        "cells": {"exact_3pt_answer": UNSCALED_BY_HAND,
                  "exact_new_point_answer": UNSCALED_NEW_BY_HAND},
        "lost": {"test_exact_3pt": 4.0, "test_exact_new_point": 2.0},
        "diagnoses": {"test_exact_3pt": "alpha_not_scaled",
                      "test_exact_new_point": "alpha_not_scaled"},
    },
    "ascending_by_hand": {
        "description": "by hand, every component in ascending order (eigh's order): "
        "eigenvalues, coefficient vectors, coordinates, shares, the new point, and the error "
        "subtracts the smaller eigenvalue; the variances are right",
        "cells": {"exact_3pt_answer": ASCENDING_3PT, "exact_variance_answer": ASCENDING_VARIANCE,
                  "exact_new_point_answer": ASCENDING_NEW},
        "lost": {"test_exact_3pt": 6.0, "test_exact_variance": 1.0, "test_exact_new_point": 4.0},
        "diagnoses": {"test_exact_3pt": "ascending_order", "test_exact_variance": "ascending_order",
                      "test_exact_new_point": "ascending_order"},
    },
    "variance_divisor_by_hand": {
        "description": "by hand, the two conventions swapped: the population variances are "
        "divided by n - 1 and the sample variances by n",
        "cells": {"exact_variance_answer": DIVISOR_BY_HAND},
        "lost": {"test_exact_variance": 2.0},
        "diagnoses": {"test_exact_variance": "variance_divisor"},
    },
    "new_point_own_mean_by_hand": {
        "description": "by hand, the new point's kernel values are centred with their own mean "
        "instead of the training means (textbook, common mistakes), in the coordinates and in "
        "the shortcut's vector k* - m_row",
        "cells": {"exact_new_point_answer": OWN_MEAN_NEW, "exact_shortcut_answer": OWN_MEAN_SHIFT},
        "lost": {"test_exact_new_point": 2.0, "test_exact_shortcut": 1.0},
        "diagnoses": {"test_exact_new_point": "new_point_own_mean",
                      "test_exact_shortcut": "new_point_own_mean"},
    },
    "uncentred_shortcut_by_hand": {
        "description": "by hand, the shortcut's vector is the raw kernel vector of the new point "
        "(the uncentred formula of the derivation in file 004: no training row means)",
        "cells": {"exact_shortcut_answer": RAW_SHIFT},
        "lost": {"test_exact_shortcut": 1.0},
        "diagnoses": {"test_exact_shortcut": "new_point_not_centred"},
    },
    "refitted_cost_by_hand": {
        "description": "by hand, the cost of one new point counts the kernel evaluations of the "
        "(n + 1) x (n + 1) kernel matrix with the new point appended and re-centred (the notes: "
        "including the new point would change every training coordinate)",
        "cells": {"exact_cost_answer": COST_REFITTED},
        "lost": {"test_exact_cost": 1.0},
        "diagnoses": {"test_exact_cost": "new_point_refitted"},
    },
    "not_centred_error_by_hand": {
        "description": "by hand, the reconstruction error uses the trace of the uncentred "
        "kernel matrix",
        "cells": {"exact_new_point_answer": NOT_CENTRED_ERROR},
        "lost": {"test_exact_new_point": 1.0},
        "diagnoses": {"test_exact_new_point": "not_centred"},
    },
    "eig_not_orthonormal": {
        "description": "kpca_fit with np.linalg.eig and no orthonormalisation: inside a "
        "repeated eigenvalue the coefficient vectors are not orthogonal (1 of 7 groups lost, "
        "diagnosed eigenvectors_not_orthogonal)",
        "cells": {"kpca_fit_answer": EIG_NOT_ORTHONORMAL},
        "lost": {"test_kpca_fit": 0.86},
        "diagnoses": {"test_kpca_fit": "eigenvectors_not_orthogonal"},
    },
    "float_answers": {
        "description": "decimals where exact fractions are asked; the visible exactness "
        "check fails, so the cell earns nothing",
        "cells": {"exact_variance_answer": FLOAT_RATIOS},
        "lost": {"test_exact_variance": 3.0},
    },
}
