"""Submissions for ps2_feature_maps: correct ones written differently, and classic mistakes.

Expected losses follow from kpca_ref.grading: a test cell whose visible assertion fails
scores 0; otherwise a hidden ``grade`` earns points * (case groups passed) / (groups),
and ``grade_exact`` earns all or nothing (a float anywhere earns nothing).
"""

LOOPS = {
    "counts_answer": '''
def count_distinct_products(d, p):
    """The lecture's tally of coordinates: sum over i = 0..p of C(d, i)."""
    total, term = 0, 1  # term = C(d, i), updated with C(d, i + 1) = C(d, i) (d - i) / (i + 1)
    for i in range(p + 1):
        total += term
        term = term * (d - i) // (i + 1)
    return total


def count_monomials(d, p):
    """Number of monomials in d features of degree at most p: C(d + p, p)."""
    result = 1
    for i in range(1, p + 1):
        result = result * (d + i) // i  # C(d + i, i) from C(d + i - 1, i - 1)
    return result
''',
    "quadratic_map_answer": '''
def quadratic_map(x):
    """Feature map of the quadratic kernel, returned as a plain list."""
    a, b = float(x[0]), float(x[1])
    root2 = 2 ** 0.5
    return [a * a, b * b, 1.0, root2 * a * b, root2 * a, root2 * b]
''',
    "poly_kernel_answer": '''
def poly_kernel(X, Y, p, c=1.0):
    """Polynomial kernel matrix, one entry at a time."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    K = np.zeros((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            dot = 0.0
            for t in range(X.shape[1]):
                dot += X[i, t] * Y[j, t]
            K[i, j] = (dot + c) ** p
    return K
''',
    "rbf_kernel_answer": '''
def rbf_kernel(X, Y, gamma):
    """RBF kernel matrix from explicit differences, one entry at a time."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    K = np.zeros((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            sq = 0.0
            for t in range(X.shape[1]):
                sq += (X[i, t] - Y[j, t]) ** 2
            K[i, j] = math.exp(-gamma * sq)
    return K
''',
    "rbf_features_answer": '''
def rbf_features_1d(x, terms, gamma=0.5):
    """The first coordinates of the 1-D RBF feature map, by the recurrence over m."""
    coords = []
    value = math.exp(-gamma * x * x)
    for m in range(terms):
        coords.append(value)
        value = value * x * math.sqrt(2 * gamma / (m + 1))
    return np.array(coords)
''',
    "gamma_for_similarity_answer": '''
def gamma_for_similarity(distance, similarity):
    """gamma = ln(1 / s) / d^2."""
    if distance <= 0 or similarity <= 0 or similarity >= 1:
        raise ValueError("need distance > 0 and 0 < similarity < 1")
    return math.log(1.0 / similarity) / (distance * distance)
''',
}

OTHER_ORDER = {
    "poly_feature_map_answer": '''
def poly_feature_map(x, p, c=1.0):
    """One coordinate per exponent vector a with |a| <= p, highest degree first."""
    x = np.asarray(x, dtype=float)
    d = x.size
    exponents = [a for a in itertools.product(range(p + 1), repeat=d) if sum(a) <= p]
    exponents.sort(key=lambda a: (-sum(a), a))
    coords = []
    for a in exponents:
        a0 = p - sum(a)  # the power of the constant c
        coef = math.factorial(p) / (math.factorial(a0) * math.prod(math.factorial(k) for k in a))
        coords.append(math.sqrt(coef * c**a0) * math.prod(v**k for v, k in zip(x, a)))
    return np.array(coords)
''',
    "rbf_features_answer": '''
def rbf_features_1d(x, terms, gamma=0.5):
    """phi_m(x) with the weights computed through log-factorials."""
    m = np.arange(terms)
    log_weight = 0.5 * (m * np.log(2 * gamma) - np.array([math.lgamma(k + 1) for k in m]))
    return np.exp(-gamma * x**2) * np.exp(log_weight) * np.power(float(x), m)
''',
}

FLOAT32 = {
    "quadratic_map_answer": '''
def quadratic_map(x):
    a, b = np.asarray(x, dtype=float)
    r2 = np.sqrt(2.0)
    return np.array([a * a, b * b, 1.0, r2 * a * b, r2 * a, r2 * b], dtype=np.float32)
''',
    "poly_kernel_answer": '''
def poly_kernel(X, Y, p, c=1.0):
    """Computed in float64, stored as float32 to halve the memory."""
    K = (np.asarray(X, dtype=float) @ np.asarray(Y, dtype=float).T + c) ** p
    return K.astype(np.float32)
''',
    "rbf_kernel_answer": '''
def rbf_kernel(X, Y, gamma):
    """Computed in float64, stored as float32 to halve the memory."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    sq = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-gamma * sq).astype(np.float32)
''',
    "gamma_for_similarity_answer": '''
def gamma_for_similarity(distance, similarity):
    """In float32 throughout: near similarity 1 the rounding of s alone moves gamma by percents."""
    if not distance > 0:
        raise ValueError(f"distance must be > 0, got {distance}")
    if not 0 < similarity < 1:
        raise ValueError(f"similarity must be strictly between 0 and 1, got {similarity}")
    d, s = np.float32(distance), np.float32(similarity)
    return -np.log(s) / (d * d)
''',
}

RBF_UNSQUARED = {
    "rbf_kernel_answer": '''
def rbf_kernel(X, Y, gamma):
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    dist = np.linalg.norm(X[:, None, :] - Y[None, :, :], axis=2)
    return np.exp(-gamma * dist)
''',
    "gamma_for_similarity_answer": '''
def gamma_for_similarity(distance, similarity):
    if not distance > 0 or not 0 < similarity < 1:
        raise ValueError("need distance > 0 and 0 < similarity < 1")
    return float(-np.log(similarity) / distance)
''',
    "gamma_exact_answer": '''
gamma_exact = sp.log(1 / N.similarity) / N.distance
''',
    "d_phi_exact_answer": '''
d_phi_exact = Matrix([sp.sqrt(2 - 2 * sp.exp(-gamma_exact * t)) for t in N.table_distances])
''',
}

NO_SQRT2 = {
    "quadratic_map_answer": '''
def quadratic_map(x):
    a, b = np.asarray(x, dtype=float)
    return np.array([a * a, b * b, 1.0, a * b, a, b])
''',
    "q3_via_map_answer": '''
def quadratic_map_exact(v):
    a, b = v
    return Matrix([a**2, b**2, 1, a * b, a, b])


phi_x = quadratic_map_exact(N.x)
phi_xp = quadratic_map_exact(N.xp)
''',
}

FLOATS = {
    "counts_exact_answer": '''
d, p = int(N.d_tally), int(N.p_tally)
n_tally = sum(math.factorial(d) / (math.factorial(i) * math.factorial(d - i)) for i in range(p + 1))
n_monomials = math.factorial(int(N.d_all + N.p_all)) / (
    math.factorial(int(N.p_all)) * math.factorial(int(N.d_all)))
''',
    "q3_direct_answer": '''
x_np, xp_np = np.array(N.x, dtype=float).ravel(), np.array(N.xp, dtype=float).ravel()
k_direct = (x_np @ xp_np + 1.0) ** 2
''',
    "q3_via_map_answer": '''
def quadratic_map_floats(v):
    a, b = v
    return Matrix([a**2, b**2, 1, np.sqrt(2) * a * b, np.sqrt(2) * a, np.sqrt(2) * b])


phi_x = quadratic_map_floats(N.x)
phi_xp = quadratic_map_floats(N.xp)
''',
    "mean_answer": '''
x_np, xp_np = np.array(N.x, dtype=float).ravel(), np.array(N.xp, dtype=float).ravel()
mean_sq_length = ((x_np @ x_np + 1) ** 2 + 2 * (x_np @ xp_np + 1) ** 2 + (xp_np @ xp_np + 1) ** 2) / 4
''',
    "gamma_exact_answer": '''
gamma_exact = np.log(float(1 / N.similarity)) / float(N.distance) ** 2
''',
    "d_phi_exact_answer": '''
d_phi_exact = Matrix([np.sqrt(2 - 2 * np.exp(-gamma_exact * float(t) ** 2)) for t in N.table_distances])
''',
}

BY_HAND_MISTAKES = {
    # the lecture's tally with squares counted; the monomials without them; (x.x')^2;
    # gamma with the wrong sign; d_phi^2 instead of d_phi (computed on its own from N)
    "counts_exact_answer": '''
n_tally = sp.binomial(N.d_tally + N.p_tally, N.p_tally)
n_monomials = sum(sp.binomial(N.d_all, i) for i in range(N.p_all + 1))
''',
    "q3_direct_answer": '''
k_direct = N.x.dot(N.xp) ** 2
''',
    "gamma_exact_answer": '''
gamma_exact = sp.log(N.similarity) / N.distance**2
''',
    "d_phi_exact_answer": '''
d_phi_exact = Matrix([2 - 2 * N.similarity ** (Rational(t, N.distance) ** 2) for t in N.table_distances])
''',
    "cosine_answer": '''
k_xx, k_pp, k_xp = (N.x.dot(N.x) + 1) ** 2, (N.xp.dot(N.xp) + 1) ** 2, (N.x.dot(N.xp) + 1) ** 2
cos_phi = k_xp / (k_xx * k_pp)             # divided by the squared lengths
''',
    "mean_answer": '''
k_xx, k_pp, k_xp = (N.x.dot(N.x) + 1) ** 2, (N.xp.dot(N.xp) + 1) ** 2, (N.x.dot(N.xp) + 1) ** 2
mean_sq_length = (k_xx + k_pp) / 4         # the cross term left out
''',
    "gamma_units_answer": '''
gamma_rescaled = sp.log(1 / N.similarity) / N.distance**2 * 2**2   # scaled the wrong way
''',
}

MORE_BY_HAND_MISTAKES = {
    # ordered products for both counts; x.x' + 1 not squared; the map without sqrt(2)
    # typed by hand (quadratic_map itself is right); gamma right, and d_phi written as a
    # power of the similarity (right: this cell is a correct rewrite)
    "counts_exact_answer": '''
n_tally = N.d_tally ** N.p_tally
n_monomials = sum(N.d_all**i for i in range(N.p_all + 1))
''',
    "q3_direct_answer": '''
k_direct = N.x.dot(N.xp) + 1
''',
    "q3_via_map_answer": '''
a, b = N.x
c, e = N.xp
phi_x = Matrix([a**2, b**2, 1, a * b, a, b])
phi_xp = Matrix([c**2, e**2, 1, c * e, c, e])
''',
    "d_phi_exact_answer": '''
d_phi_exact = Matrix([sp.sqrt(2 - 2 * N.similarity ** (t**2 / N.distance**2)) for t in N.table_distances])
''',
    "cosine_answer": '''
cos_phi = N.x.dot(N.xp) / sp.sqrt(N.x.dot(N.x) * N.xp.dot(N.xp))   # the angle of x and x' in R^2
''',
    "mean_answer": '''
m = (N.x + N.xp) / 2
mean_sq_length = (m.dot(m) + 1) ** 2       # k of the mean point: the map is not linear
''',
    "gamma_units_answer": '''
gamma_rescaled = sp.log(1 / N.similarity) / N.distance**2 / 2      # divided by b, not b^2
''',
}

TALLY_WITH_POWERS = {
    "counts_answer": '''
def count_distinct_products(d, p):
    return math.comb(d + p, p)


def count_monomials(d, p):
    return math.comb(d + p, p)
''',
}

MONOMIALS_AS_ORDERED = {
    "counts_answer": '''
def count_distinct_products(d, p):
    return sum(math.comb(d, i) for i in range(p + 1))


def count_monomials(d, p):
    return sum(d ** i for i in range(p + 1))
''',
}

VARIANTS = {
    "loops": {
        "description": "correct, written with explicit Python loops (kernels entry by entry, "
                       "binomials by their recurrences, quadratic_map returning a list)",
        "cells": LOOPS,
        "lost": {},
    },
    "other_order": {
        "description": "correct, poly_feature_map built from itertools.product with another "
                       "coordinate order (allowed by the contract), RBF weights via lgamma",
        "cells": OTHER_ORDER,
        "lost": {},
    },
    "float32": {
        "description": "correct, the map and the kernel matrices returned as float32, and "
        "gamma computed in float32 (judged at the inputs float32 holds)",
        "cells": FLOAT32,
        "lost": {},
    },
    "rbf_unsquared": {
        "description": "uses the plain distance ||x - y|| in the RBF kernel and in gamma "
                       "(lecture 001: the RBF needs the squared distance); rbf_kernel passes "
                       "its visible checks and shows [diagnosis: rbf_unsquared_distance]",
        "cells": RBF_UNSQUARED,
        # rbf_kernel fails all 5 hidden groups; gamma_for_similarity fails its visible
        # round-trip check; gamma = ln2/2 and the d_phi column built from it are wrong
        "lost": {"test_rbf_kernel": 3.0, "test_gamma_for_similarity": 2.0,
                 "test_gamma_exact": 1.0, "test_d_phi_exact": 2.0},
    },
    "no_sqrt2": {
        "description": "forgets the sqrt(2) of the cross terms in the quadratic map "
                       "(lecture 000: the factor 2 is split as sqrt2 * sqrt2)",
        "cells": NO_SQRT2,
        # visible check phi(x).phi(y) == (x.y + 1)^2 fails; by hand phi_x and phi_xp (cross
        # terms halved) are wrong
        "lost": {"test_quadratic_map": 2.0, "test_q3_via_map": 2.0},
    },
    "floats_for_exact": {
        "description": "enters every exact answer as a float (true division, np.sqrt, np.log)",
        "cells": FLOATS,
        # each exact cell's visible type check fails
        "lost": {"test_counts_exact": 2.0, "test_q3_direct": 1.0, "test_q3_via_map": 2.0,
                 "test_mean_length": 1.0, "test_gamma_exact": 1.0, "test_d_phi_exact": 2.0},
    },
    "tally_with_powers": {
        "description": "counts every monomial in the lecture's tally too (squares such as "
                       "f1^2 included, lecture 000 table)",
        "cells": TALLY_WITH_POWERS,
        # the tally's visible checks fail (4 features, power 3 gives 35, not 15); the
        # correct count_monomials keeps its own test cell's points
        "lost": {"test_count_distinct_products": 2.0},
    },
    "monomials_as_ordered_products": {
        "description": "count_monomials counts ordered products, sum of d**i (the lecture's "
                       "d**p column), so f1 f2 and f2 f1 count twice; the tally is right",
        "cells": MONOMIALS_AS_ORDERED,
        "lost": {"test_count_monomials": 2.0},
    },
    "by_hand_mistakes": {
        "description": "by hand: counts squares in the tally and leaves them out of the monomials, "
                       "drops the +1 of the kernel, gives gamma the wrong sign and d_phi^2 for "
                       "d_phi, divides the cosine by the squared lengths, leaves the cross term out "
                       "of the mean's squared length and scales gamma by b^2 instead of 1 / b^2; "
                       "each exact line names its mistake",
        "cells": BY_HAND_MISTAKES,
        # 8 exact items: [counted_all_monomials], [counted_distinct_only],
        # [kernel_without_constant], [gamma_sign], [squared_distance], [cosine_not_rooted],
        # [mean_without_cross_term], [gamma_scaled_up]
        "lost": {"test_counts_exact": 2.0, "test_q3_direct": 1.0, "test_gamma_exact": 1.0,
                 "test_d_phi_exact": 2.0, "test_cosine": 1.0, "test_mean_length": 1.0,
                 "test_gamma_units": 1.0},
        "diagnoses": {"ps2_mean_sq_length": "mean_without_cross_term"},
    },
    "more_by_hand_mistakes": {
        "description": "by hand: d^p and sum of d^i for the counts, x.x' + 1 not squared, the "
                       "quadratic map typed without sqrt(2), the cosine of x and x' in the input space, "
                       "k of the mean point for the mean's squared length, gamma divided by b; d_phi "
                       "as a power of s is right",
        "cells": MORE_BY_HAND_MISTAKES,
        # [ordered_products] twice, [kernel_not_squared], [missing_sqrt2] twice,
        # [input_space_cosine], [mapped_the_mean], [scale_not_squared]
        "lost": {"test_counts_exact": 2.0, "test_q3_direct": 1.0, "test_q3_via_map": 2.0,
                 "test_cosine": 1.0, "test_mean_length": 1.0, "test_gamma_units": 1.0},
        "diagnoses": {"ps2_mean_sq_length": "mapped_the_mean"},
    },
    "never_terminates": {
        "description": "gamma_for_similarity loops forever; everything else is correct",
        "cells": {"gamma_for_similarity_answer": (
            "def gamma_for_similarity(distance, similarity):\n"
            "    gamma = 0.0\n"
            "    while True:  # searches for gamma but never stops\n"
            "        gamma += 0.0\n"
        )},
        # only the test cell that calls it times out (the exact answers are typed in);
        # the plot cell that calls it times out too, but it is not graded
        "lost": {"test_gamma_for_similarity": 2.0},
    },
}
