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

#: Relative tolerance used when the grading helpers compare floats.
GRADING_RTOL = 1e-6

#: Absolute floor of the grading comparison, relative to the largest expected entry.
GRADING_ATOL_SCALE = 1e-8

#: Two eigenvalues closer than this (relative to the largest) count as repeated:
#: their eigenvectors are compared as a subspace.
REPEATED_EIGENVALUE_RTOL = 1e-6
