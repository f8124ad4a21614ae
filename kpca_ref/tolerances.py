"""Named tolerances, all relative to the scale of the matrix they judge.

Every numeric decision in ``kpca_ref`` (is this eigenvalue zero? is this matrix
symmetric? is this eigenvalue clearly negative?) uses one of these constants
multiplied by a scale taken from the data, so that multiplying a kernel matrix
by 1e6 or 1e-6 never changes a verdict.
"""

#: An eigenvalue ``mu`` counts as zero when ``|mu| <= ZERO_EIGENVALUE_RTOL * scale``,
#: where ``scale = max(1, largest absolute eigenvalue)`` for decisions a student
#: sees (``is_psd``) and the largest absolute eigenvalue for ``kpca_fit``.
ZERO_EIGENVALUE_RTOL = 1e-10

#: An eigenvalue below ``-NEGATIVE_EIGENVALUE_RTOL * scale`` is "clearly negative":
#: the matrix is not positive semidefinite to working accuracy.
NEGATIVE_EIGENVALUE_RTOL = 1e-8

#: Default tolerance of ``is_symmetric`` and ``is_psd``, relative to ``max(1, max |K|)``.
SYMMETRY_RTOL = 1e-10

#: ``kernel_ridge``: ``K + lam I`` counts as singular (to working precision) when its
#: smallest singular value is at most this fraction of its largest, i.e. its condition
#: number is 1e12 or more. A solve there has lost at least 12 of float64's 16 digits.
#: Measured: the notes' cubic kernel in one dimension has 4 feature coordinates, so the
#: ps6 picture's 15 points give a rank-4 K whose 11 zero eigenvalues come out as +-1.5e-15
#: against a largest of 17.6 (ratio 5.9e-19), and ``np.linalg.solve`` returns coefficients
#: of 4.6e15 without complaint; its 12 points in 2-D (10 distinct cubic monomials) give a
#: rank-10 K with ratio 4.3e-18. Every matrix ps6 solves has a ratio of 5.7e-5 or more
#: (the picture's K + 0.001 I; the hidden value cases 8.6e-3 or more): 1e-12 sits seven
#: decades from each side, so a student's threshold anywhere from about 1e-15 to 1e-6
#: agrees with it there. The hidden error cases are exactly singular (LAPACK's LU meets
#: an exact zero pivot, so ``LinAlgError`` turned into ``ValueError`` passes as well).
RIDGE_SINGULAR_RTOL = 1e-12

#: Relative tolerance used when the grading helpers compare floats.
#:
#: Grading accepts any correct computation in float32 (``eps32 = 2**-23``, about
#: 1.2e-7) and must still fail every classic mistake. Measured on the hidden cases with
#: float32 versions of all contract functions (tests/grading/float32_alternatives.py):
#: where no cancellation occurs their results are within 2.8e-7 of the reference, entry
#: by entry. The classic mistake closest to a correct result is the variance divisor at
#: the largest n of the cases: n = 300 against n - 1 = 299 is off by 1/299 = 3.3e-3
#: (``feature_variances``; a 1/(n - 1) centring matrix differs by the same fraction,
#: entry by entry). 3e-5 sits in the middle on a log scale: about 100x above the
#: float32 round-off and 100x below that mistake.
GRADING_RTOL = 3e-5

#: Absolute floor of the grading comparison, relative to the largest expected entry.
#:
#: Results obtained by cancellation (centred kernel matrices, eigenvector entries near
#: zero, scores, kernel matrices from expanded squared distances) carry float32 errors
#: relative to the size of the INPUTS, not of each entry: measured at most 2.5e-7 of the
#: largest expected entry (centre_kernel at n = 300; H K H, the four-term formula and
#: loops with sequential float32 sums alike). On that scale the classic mistakes differ
#: by at least 8.5e-3 (variance_shares without centring, coordinates of size 1e6), and a
#: misplaced parenthesis in the polynomial kernel, (x @ y)^p + c, by 1.1e-4 (its "large
#: coordinates" group; its other groups by far more). 1e-5 keeps 40x above float32,
#: 850x below the classic mistakes and 10x below that slip.
GRADING_ATOL_SCALE = 1e-5

#: Absolute floor, relative to the largest expected entry, for results computed entry
#: by entry from products and quotients only (quadratic_map, rbf_features_1d,
#: explained_ratio, feature_variances, centring_matrix). Their round-off is relative to
#: each entry, so each entry is compared on its own (rtol); the tiny floor only lets an
#: exact zero be matched. With the ordinary floor a share of 1e-5 of the largest would
#: hide the squared-eigenvalue mistake of explained_ratio (its "one dominant eigenvalue"
#: group), and the 1/n-sized entries of centring_matrix the n - 1 divisor at n = 300
#: (1/299 - 1/300 = 1.1e-5 of the largest entry).
GRADING_ENTRYWISE_ATOL_SCALE = 1e-12

#: Absolute floor of ``recover_circle``, relative to the largest of ``|a|, |b|, r``.
#: The contract's algorithm (least right singular vector of ``lift(X)``) is
#: ill-conditioned for a circle whose distance from the origin is large compared with
#: its radius: the lift's columns range from 1 to (distance)^2. Run in float32 it is off
#: by 2.2e-5 of the circle's size on the hidden group "circle far from the origin"
#: (centre (400, -300), radius 20); in float64, even through lift^T lift (which squares
#: the conditioning), the error stays below 1e-6. The closest wrong answer measured is
#: 4.7e-2 of that size (the right centre with radius 1); wrong formulas (sign of a or b,
#: the factor 1/2, r^2 = a^2 + b^2 + u_0, the largest singular vector) are off by order
#: 1. 1e-3 sits in the middle: 45x above the float32 error, 47x below that answer.
GRADING_CIRCLE_ATOL_SCALE = 1e-3

#: A complex result counts as real when its largest imaginary part is at most this
#: fraction of its largest real part: a float32 complex solver (``eig`` of a float32
#: matrix) leaves imaginary round-off of about eps32; the grading floor bounds it.
GRADING_IMAG_RTOL = GRADING_ATOL_SCALE

#: A float32 result cannot hold a magnitude below float32's smallest normal number
#: (``numpy.finfo(numpy.float32).tiny``, 1.2e-38) to full precision, and below 1.4e-45 not
#: at all: the m-ball's share of its cube is 1e-110 at m = 150, 0 in float32. When the
#: student's result is float32 (numpy keeps the dtype on its way to the judge), this is
#: added to the absolute tolerance of every entry. A float64 result never gets it, so no
#: float64 mistake is forgiven; a wrong float32 result passes only entries where both it
#: and the right value are below 1.2e-38.
FLOAT32_UNDERFLOW = 1.1754943508222875e-38

#: The float32 floor of the ball's share of its cube where float32 cannot hold it as the
#: formula reads (hidden group "m up to 150"). Written as the formula reads,
#: ``pi**(m/2) / (Gamma(m/2 + 1) * 2**m)`` in float32 overflows its denominator (past
#: 3.4e38) from m = 49 on and returns 0 where the share is still 8.7e-28 (m = 49) down to
#: 6.8e-38 (m = 62): float32 code can hold those values only by reordering the formula.
#: A float32 result gets this floor at those m only (10x the largest share lost to the
#: overflow; ``kpca_ref.grading.cases_dimensions.ball_float32_floor``); at m = 40-48, where
#: float32 holds the share (3.3e-21 to 4.9e-27), it gets FLOAT32_UNDERFLOW like any case, and
#: every draw of the group has one such m, so a zero, or Gamma(m/2) for Gamma(m/2 + 1)
#: (m/2 times the share), fails the group for every student.
FLOAT32_BALL_FLOOR = 1e-26

#: ``angles_deg`` on rows parallel to ``v``: the angle is 0 or 180 degrees, but a cosine
#: computed in float32 lands a few eps32 from +-1, and arccos turns that into
#: sqrt(2 k eps32) radians: measured up to 0.04 degrees over 6,000 parallel rows (float64:
#: 1e-6 degrees). The group exists to catch nan from an unclipped cosine and radians for
#: degrees (pi against 180); 1 degree is 25x above float32 and far below both.
ANGLE_ROUNDOFF_DEG = 1.0

#: Two eigenvalues closer than this (relative to the largest) count as repeated:
#: their eigenvectors are compared as a subspace.
REPEATED_EIGENVALUE_RTOL = 1e-6

#: ``components_needed``: a cumulative share counts as reaching the threshold when it
#: is at least ``threshold * (1 - CUMULATIVE_SHARE_RTOL)`` (so 0.6 + 0.35 reaches 0.95).
CUMULATIVE_SHARE_RTOL = 1e-9

#: ``recover_circle``: relative tolerance for "these points lie on one circle" (equal
#: f1^2 and f2^2 coefficients, no f1*f2 term, and distances to the centre within this
#: fraction of the radius).
CIRCLE_RTOL = 1e-3

# --- the fast estimator (kpca_ref.estimator, kpca_ref._solvers)

#: Residual ||Kc v - theta v|| / |theta_1| at which the iterative solvers stop.
ITER_RTOL = 1e-9
#: float32 storage: float32 products alone are taken down to this residual, then one
#: float64-accumulated product of the Ritz vectors lets the float32 ones polish further.
SWITCH_RTOL = 1e-5
#: A float32 answer whose final residual is above this (relative to |theta_1|) is redone.
REFINED_RTOL = 1e-7
#: float32 storage is trusted when theta_l >= FLOAT32_TRUST * (estimated ||K32 - K||_2).
FLOAT32_TRUST = 1e6
