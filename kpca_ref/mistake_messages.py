"""What a student is told for each classic mistake of the lectures, by diagnosis code.

Shared by the grading (:mod:`kpca_ref.grading.mistakes` recognises the mistakes and adds the
ps0 messages of :mod:`kpca_ref.grading.cases_dimensions`) and the per-student numbers
(:mod:`kpca_ref.variants` checks that each student's numbers tell the mistakes apart). The
messages say what went wrong and what to look at, never the expected numbers.
"""

from __future__ import annotations

#: diagnosis code -> one-line student-facing message (no expected values)
MESSAGES: dict[str, str] = {
    "not_centred": "your result matches the uncentred data: remove the mean first (for a "
    "kernel matrix: subtract row and column means, add the grand mean)",
    "centred_one_side": "only one side is centred: the four-term formula subtracts a row mean "
    "and a column mean and adds back the grand mean",
    "alpha_not_scaled": "your coefficient vectors look like unit eigenvectors: divide each by "
    "the square root of its eigenvalue",
    "alpha_wrong_scale": "your coefficient vectors are eigenvectors with the wrong scale: "
    "divide each unit eigenvector by the square root of its own eigenvalue",
    "eigenvectors_not_orthogonal": "for a repeated eigenvalue np.linalg.eig returns "
    "eigenvectors that are not orthogonal: use np.linalg.eigh (orthonormal eigenvectors)",
    "ascending_order": "your eigenvalues are in ascending order (or you kept the smallest "
    "ones): sort them in decreasing order and keep the largest",
    "new_point_own_mean": "the new kernel values were centred with the new points' own means: "
    "use the stored training row means and the training grand mean",
    "new_point_not_centred": "the new kernel values were not centred with the training means "
    "(subtracting only their own average is not enough)",
    "variance_divisor": "your variances use the other divisor: ddof=0 divides by n, ddof=1 "
    "by n - 1",
    "rbf_unsquared_distance": "your result matches an RBF with the plain distance: the RBF "
    "kernel uses the squared distance ||x - y||^2",
    "lift_column_order": "your lifted columns are right but in another order: use the order "
    "[1, f1^2, f2^2, f1*f2, f1, f2]",
    "float_not_exact": "exact value expected, got a float",
    "wrong_sign_convention_not_an_error": "eigenvector signs are free: a flipped sign is "
    "never counted as an error",
    "feature_order": "your coordinates are right but in another order: follow the lecture's "
    "order of the six coordinates",
    "missing_sqrt2": "the cross terms need the factor sqrt(2) so that the dot product of two "
    "mapped points equals the kernel",
    "counted_all_monomials": "you counted every monomial, powers such as f1^2 included; this "
    "tally counts products of distinct features only",
    "counted_distinct_only": "you counted only products of distinct features; the monomials "
    "of degree at most p include powers such as f1^2",
    "ordered_products": "d^p counts ordered products (f1*f2 and f2*f1 separately): count each "
    "monomial once",
    "strict_threshold": "the cumulative share only has to reach the threshold (>=), not "
    "exceed it",
    "singular_values_not_squared": "your shares use singular values: variances are their "
    "squares",
    "squared_eigenvalues": "you squared the eigenvalues: the Gram eigenvalues already measure "
    "variance, use them as they are",
    "squared_distance": "your result looks like a squared distance: take the square root",
    "assumed_symmetric": "your matrix is symmetric although the function is not: evaluate "
    "k(X[i], X[j]) for every ordered pair instead of mirroring",
    "gram_transposed": "your matrix is transposed: entry (i, j) is k(X[i], X[j])",
    "leading_minors_only": "leading principal minors cannot decide a singular matrix: check "
    "all principal minors or use exact elimination/eigenvalues",
    "rounded_to_floats": "your verdict matches a floating-point check: this matrix needs exact "
    "arithmetic to decide",
    "tolerance_not_relative": "your verdict matches an absolute tolerance: scale the "
    "tolerance by the size of the matrix",
    "psd_without_symmetry": "a positive semidefinite kernel matrix must also be symmetric: "
    "check symmetry first",
    "mean_divisor": "your value is off by a factor of n: average over all n*n entries",
    "sequential_update": "your coefficients are updated one at a time, each with the "
    "newest values: a gradient step takes every residual from the same old beta",
    "off_by_one_step": "your result is one update too many or too few: start from zero and "
    "apply exactly `steps` updates",
    "update_sign": "your update moves against the residual: add alpha times (y - K beta)",
    "kernel_without_constant": "your kernel misses the constant term: "
    "k(x, z) = 1 + <x, z> + <x, z>^2 + <x, z>^3",
    "bound_not_doubled": "your bound is 1 / lambda_max: gradient descent converges for step "
    "sizes up to 2 / lambda_max",
    "bound_from_trace": "your bound uses the sum of the eigenvalues (the trace): the bound is "
    "set by the largest eigenvalue alone",
    "ridge_without_lambda": "your coefficients ignore lambda: ridge solves (K + lambda I) "
    "beta = y",
    "ridge_all_entries": "you added lambda to every entry of K: ridge adds it to the diagonal "
    "only",
}
