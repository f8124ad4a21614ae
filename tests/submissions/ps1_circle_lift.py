"""Submissions for ps1_circle_lift: correct ones written differently, and classic mistakes."""

# --------------------------------------------------------------------------- correct rewrites

_VARIANCE_SHARES_LOOPS = '''
def variance_shares(X):
    """Shares of the variance along the principal directions, with explicit loops."""
    points = [(float(p[0]), float(p[1])) for p in X]
    n = len(points)
    m1 = sum(p[0] for p in points) / n
    m2 = sum(p[1] for p in points) / n
    c11 = c12 = c22 = 0.0
    for f1, f2 in points:
        c11 += (f1 - m1) ** 2
        c12 += (f1 - m1) * (f2 - m2)
        c22 += (f2 - m2) ** 2
    # eigenvalues of the 2 x 2 scatter matrix [[c11, c12], [c12, c22]] in closed form
    half_trace = (c11 + c22) / 2
    root = ((c11 - c22) ** 2 / 4 + c12 ** 2) ** 0.5
    top, bottom = half_trace + root, max(half_trace - root, 0.0)
    return np.array([top, bottom]) / (top + bottom)
'''

_COMPONENTS_NEEDED_LOOP = '''
def components_needed(shares, threshold=0.95):
    """Count leading components until their shares reach the threshold."""
    total = 0.0
    for k, share in enumerate(shares, start=1):
        total += float(share)
        if total >= threshold * (1 - 1e-9):
            return k
    return len(shares)
'''

_LIFT_LOOP = '''
def lift(X):
    """One lifted row per point, built in a loop."""
    rows = []
    for f1, f2 in np.asarray(X, dtype=float):
        rows.append([1.0, f1 * f1, f2 * f2, f1 * f2, f1, f2])
    return np.array(rows).reshape(-1, 6)
'''

_CIRCLE_NORMAL_LIST = '''
def circle_normal(a, b, r):
    """u from the expanded circle equation, entry by entry."""
    constant = a ** 2 + b ** 2 - r ** 2
    return np.asarray([constant, 1, 1, 0, -2 * a, -2 * b], dtype=np.float64)
'''

_VARIANCE_SHARES_EIG = '''
def variance_shares(X):
    """Eigenvalues of the sample covariance (divisor n - 1: it cancels), sorted by hand."""
    eigenvalues = np.linalg.eig(np.cov(np.asarray(X, dtype=float), rowvar=False))[0].real
    eigenvalues = np.sort(eigenvalues)[::-1]
    return eigenvalues / eigenvalues.sum()
'''

_RECOVER_CIRCLE_EIGH = '''
def recover_circle(X):
    """u as the eigenvector of Z^T Z with the smallest eigenvalue, Z the lift of the points
    shifted to their mean and scaled to unit size (then the circle is mapped back)."""
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    scale = np.sqrt(np.mean(np.sum((X - mean) ** 2, axis=1)))
    Z = lift((X - mean) / scale)
    eigenvalues, eigenvectors = np.linalg.eigh(Z.T @ Z)
    u = eigenvectors[:, 0] / eigenvectors[1, 0]
    a, b = -u[4] / 2, -u[5] / 2
    r = np.sqrt(a ** 2 + b ** 2 - u[0])
    return mean[0] + scale * a, mean[1] + scale * b, scale * r
'''

# PCA of the lifted points as the lecture puts it: eigh of Z^T Z on the raw lift. Forming Z^T Z
# squares the conditioning; the hidden tolerance for recover_circle (kpca_ref.tolerances:
# GRADING_CIRCLE_ATOL_SCALE times the circle's size) allows for that.
_RECOVER_CIRCLE_NORMAL_EQUATIONS = '''
def recover_circle(X):
    """u as the eigenvector of lift(X)^T lift(X) with the smallest eigenvalue."""
    Z = lift(X)
    eigenvalues, eigenvectors = np.linalg.eigh(Z.T @ Z)
    u = eigenvectors[:, 0] / eigenvectors[1, 0]
    a, b = -u[4] / 2, -u[5] / 2
    return a, b, np.sqrt(a ** 2 + b ** 2 - u[0])
'''

_RECOVER_CIRCLE_SHIFTED = '''
def recover_circle(X):
    """Shift the points to their mean first (better conditioned), then shift the centre back."""
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(lift(X - mean))
    u = -Vt[5]                      # the sign does not matter: the rescaling fixes it
    u = u / u[1]
    a, b = -u[4] / 2, -u[5] / 2
    r = np.sqrt(a ** 2 + b ** 2 - u[0])
    return a + mean[0], b + mean[1], r
'''

_EXACT_WRITTEN_DIFFERENTLY = {
    # the variances as the roots of the characteristic polynomial, found by the quadratic formula
    "variances_three_answer": """pts = [list(N.P1), list(N.P2), list(N.P3)]
mx = sum(p[0] for p in pts) / Integer(3)
my = sum(p[1] for p in pts) / Integer(3)
sxx = sum((p[0] - mx) ** 2 for p in pts) / 3
syy = sum((p[1] - my) ** 2 for p in pts) / 3
sxy = sum((p[0] - mx) * (p[1] - my) for p in pts) / 3
half = (sxx + syy) / 2
root = sqrt(((sxx - syy) / 2) ** 2 + sxy ** 2)
variances_three = Matrix([half + root, half - root])""",
    # a row instead of a column, unexpanded products
    "lift_point_answer": "phi_Q = Matrix([[1, N.Q[0] * N.Q[0], N.Q[1] ** 2, N.Q[0] * N.Q[1], "
    "N.Q[0], N.Q[1]]])",
    "circle_u_answer": "a, b, r = N.a, N.b, N.r\n"
    "u_circle = Matrix([(a**2 + b**2 - r**2) * Rational(2, 2), 1, 1, 0, -2 * a, -2 * b])",
    "lift_dot_u_answer": "lift_dot_u = (N.Q[0] - N.a) ** 2 + (N.Q[1] - N.b) ** 2 - N.r ** 2",
}

#: the circle's u with the signs of its last two entries flipped (a classic slip)
_U_SIGN_SLIP = "u_circle = Matrix([N.a**2 + N.b**2 - N.r**2, 1, 1, 0, 2 * N.a, 2 * N.b])"

#: the variances with the sample divisor n - 1 = 2 (the notebook asks for n = 3); the shares
#: are the same, so the visible check passes and only the hidden key tells
_VARIANCES_FLOAT = """points_three = np.array([[float(v) for v in p] for p in (N.P1, N.P2, N.P3)])
variances_three = Matrix(sorted(np.linalg.eigvalsh(np.cov(points_three.T, bias=True)))[::-1])"""

_VARIANCES_SAMPLE = """points_three = Matrix.vstack(N.P1, N.P2, N.P3)
centred_three = points_three - sympy.ones(3, 1) * (sympy.ones(1, 3) * points_three) / 3
covariance_three = centred_three.T * centred_three / 2
variances_three = Matrix(sorted(covariance_three.eigenvals(multiple=True), reverse=True))"""

# --------------------------------------------------------------------------- classic mistakes

_VARIANCE_SHARES_NOT_CENTRED = '''
def variance_shares(X):
    """Forgets to subtract the mean before the SVD."""
    variances = np.linalg.svd(np.asarray(X, dtype=float), compute_uv=False) ** 2
    return variances / variances.sum()
'''

_LIFT_DEGREE_ORDER = '''
def lift(X):
    """Columns by degree, [1, f1, f2, f1^2, f2^2, f1 f2], not the lecture's order."""
    X = np.asarray(X, dtype=float)
    f1, f2 = X[:, 0], X[:, 1]
    return np.column_stack([np.ones_like(f1), f1, f2, f1**2, f2**2, f1 * f2])
'''

# the same student reads u in the order of their own lift, so the circle still comes out right
_RECOVER_CIRCLE_DEGREE_ORDER = '''
def recover_circle(X):
    """Consistent with a lift in the order [1, f1, f2, f1^2, f2^2, f1 f2]."""
    _, _, Vt = np.linalg.svd(lift(X))
    u = Vt[-1] / Vt[-1][3]
    a, b = -u[1] / 2, -u[2] / 2
    return a, b, np.sqrt(a ** 2 + b ** 2 - u[0])
'''

_RECOVER_CIRCLE_LARGEST = '''
def recover_circle(X):
    """Takes the direction of LARGEST spread of the lifted points instead of the smallest."""
    _, _, Vt = np.linalg.svd(lift(X))
    u = Vt[0] / Vt[0][1]
    a, b = -u[4] / 2, -u[5] / 2
    return a, b, np.sqrt(abs(a ** 2 + b ** 2 - u[0]))
'''

# ------------------------------------------------------------ correct, float32 throughout
# Every function with a float result converts its input to float32 at once and runs in single
# precision; recover_circle is the notebook's algorithm on the float32 lift. The raw lift of a
# circle far from the origin is ill-conditioned (columns of sizes 1 to 1e5): in float32 the
# hidden group "circle far from the origin" comes out 2e-5 of the circle's size off, which
# the hidden tolerance for recover_circle (GRADING_CIRCLE_ATOL_SCALE) accepts.
_FLOAT32 = {
    "variance_shares_answer": """
def variance_shares(X):
    X = np.asarray(X, dtype=np.float32)
    centred = X - X.mean(axis=0, dtype=np.float32)
    variances = np.linalg.svd(centred, compute_uv=False) ** 2
    return variances / variances.sum(dtype=np.float32)
""",
    "lift_answer": """
def lift(X):
    X = np.asarray(X, dtype=np.float32)
    f1, f2 = X[:, 0], X[:, 1]
    return np.column_stack([np.ones_like(f1), f1 * f1, f2 * f2, f1 * f2, f1, f2])
""",
    "circle_normal_answer": """
def circle_normal(a, b, r):
    a, b, r = np.float32(a), np.float32(b), np.float32(r)
    return np.array([a * a + b * b - r * r, 1, 1, 0, -2 * a, -2 * b], dtype=np.float32)
""",
    "recover_circle_answer": """
def recover_circle(X):
    _, _, Vt = np.linalg.svd(lift(np.asarray(X, dtype=np.float32)))   # float32 SVD
    u = Vt[-1] / Vt[-1][1]
    a, b = -u[4] / 2, -u[5] / 2
    r = np.sqrt(a * a + b * b - u[0])
    return float(a), float(b), float(r)
""",
}

VARIANTS = {
    "loops": {
        "description": "correct, written with explicit Python loops and a closed-form 2 x 2 "
        "eigenvalue formula instead of numpy matrix algebra",
        "cells": {
            "variance_shares_answer": _VARIANCE_SHARES_LOOPS,
            "components_needed_answer": _COMPONENTS_NEEDED_LOOP,
            "lift_answer": _LIFT_LOOP,
            "circle_normal_answer": _CIRCLE_NORMAL_LIST,
        },
        "lost": {},
    },
    "eig_instead_of_svd": {
        "description": "correct: eig of the sample covariance (n - 1 divisor cancels in a share) "
        "and eigh of Z^T Z for the lift Z of the shifted, scaled points instead of SVDs",
        "cells": {
            "variance_shares_answer": _VARIANCE_SHARES_EIG,
            "recover_circle_answer": _RECOVER_CIRCLE_EIGH,
        },
        "lost": {},
    },
    "shifted_flipped_svd": {
        "description": "correct: recover_circle shifts the points to their mean and flips the "
        "singular vector's sign (the f1^2 rescaling undoes it)",
        "cells": {"recover_circle_answer": _RECOVER_CIRCLE_SHIFTED},
        "lost": {},
    },
    "exact_written_differently": {
        "description": "correct exact answers built from unreduced fractions, powers and the "
        "circle formula instead of typed-in numbers",
        "cells": dict(_EXACT_WRITTEN_DIFFERENTLY),
        "lost": {},
    },
    "float32": {
        "description": "correct, variance_shares, lift, circle_normal and recover_circle compute "
        "in float32 (recover_circle: the SVD of the float32 lift, as in the lecture)",
        "cells": dict(_FLOAT32),
        "lost": {},
    },
    "not_centred": {
        "description": "variance_shares skips the mean-centring, so the mean dominates the first "
        "share (lecture: PCA centres first)",
        "cells": {"variance_shares_answer": _VARIANCE_SHARES_NOT_CENTRED},
        "lost": {"variance_shares_test": 4.0},
    },
    "lift_column_order": {
        "description": "lift columns by degree [1, f1, f2, f1^2, f2^2, f1 f2]; recover_circle and "
        "phi(Q) follow that order, so only the lift, phi(Q) and the check lose points",
        "cells": {
            "lift_answer": _LIFT_DEGREE_ORDER,
            "recover_circle_answer": _RECOVER_CIRCLE_DEGREE_ORDER,
            "lift_point_answer": "q1, q2 = N.Q\nphi_Q = Matrix([1, q1, q2, q1**2, q2**2, q1 * q2])",
        },
        "lost": {"lift_test": 3.0, "lift_point_test": 2.0, "lift_dot_u_test": 1.0},
    },
    "float_not_exact": {
        "description": "floats where exact values are asked: float variances, a numpy u, and a "
        "float for the check",
        "cells": {
            "variances_three_answer": _VARIANCES_FLOAT,
            "circle_u_answer": "u_circle = np.array([float(N.a**2 + N.b**2 - N.r**2), 1.0, 1.0, "
            "0.0, -2.0 * float(N.a), -2.0 * float(N.b)])",
            "lift_dot_u_answer": "lift_dot_u = float(phi_Q.dot(Matrix([N.a**2 + N.b**2 - N.r**2, "
            "1, 1, 0, -2 * N.a, -2 * N.b])))",
        },
        "lost": {"variances_three_test": 2.0, "circle_u_test": 2.0, "lift_dot_u_test": 1.0},
    },
    "u_sign_slip": {
        "description": "u with +2a, +2b for its last two entries: u and the check lose points, "
        "and the feedback names the slip",
        "cells": {"circle_u_answer": _U_SIGN_SLIP},
        "lost": {"circle_u_test": 2.0, "lift_dot_u_test": 1.0},
        "diagnoses": {"circle_u_test": "sign_of_centre"},
    },
    "variances_sample_divisor": {
        "description": "the three points' variances divided by n - 1 = 2, where the notebook "
        "asks for n = 3 (the textbook's convention instead of the lectures')",
        "cells": {"variances_three_answer": _VARIANCES_SAMPLE},
        "lost": {"variances_three_test": 2.0},
        "diagnoses": {"variances_three_test": "variance_divisor"},
    },
    "normal_equations": {
        "description": "correct: PCA of the lifted points, the eigenvector of "
        "lift(X).T @ lift(X) with the smallest eigenvalue, on raw coordinates",
        "cells": {"recover_circle_answer": _RECOVER_CIRCLE_NORMAL_EQUATIONS},
        "lost": {},
    },
    "largest_singular_vector": {
        "description": "recover_circle takes the right singular vector of the LARGEST singular "
        "value, the direction the lifted points spread along most",
        "cells": {"recover_circle_answer": _RECOVER_CIRCLE_LARGEST},
        "lost": {"recover_circle_test": 5.0},
    },
}
