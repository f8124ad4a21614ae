"""What :class:`kpca_ref.KernelPCA` does with a fit: scores of new points, and pre-images.

:class:`TransformMethods` holds the methods of the estimator that use its fitted
attributes: ``transform`` centres the new points' kernel values with the TRAINING means
(as :func:`kpca_ref.centring.centre_new` does) without forming a centred block, on the
kit's own threads for the kernels it computes itself; ``inverse_transform`` maps scores
back with the kernel ridge map learned at ``fit``. The fit is in :mod:`kpca_ref.estimator`.

Like that module it needs scikit-learn (through :mod:`kpca_ref.sklearn_compat`).
"""

from __future__ import annotations

import numpy as np

from kpca_ref import _krylov_fit
from kpca_ref import sklearn_compat as _sk

__all__ = ["TransformMethods"]


class TransformMethods(_sk.TransformerMixin):
    """``transform`` and ``inverse_transform`` of :class:`kpca_ref.KernelPCA`.

    A scikit-learn ``TransformerMixin``, so that ``set_output`` wraps ``transform`` here
    (scikit-learn wraps only the methods a class defines itself).

    Reads the estimator's parameters and its fitted ``eigenvalues_``, ``eigenvectors_``,
    ``X_fit_``, ``gamma_``, row and grand means of the training kernel matrix, the
    ``rbf`` offset and (for ``inverse_transform``) ``dual_coef_`` and
    ``X_transformed_fit_``; uses its ``_get_kernel`` and ``_fast_kernel``.
    """

    def _alphas(self):
        """eigenvectors_ / sqrt(eigenvalues_), zero for zero eigenvalues."""
        non_zeros = np.flatnonzero(self.eigenvalues_)
        alphas = np.zeros_like(self.eigenvectors_)
        alphas[:, non_zeros] = (self.eigenvectors_[:, non_zeros]
                                / np.sqrt(self.eigenvalues_[non_zeros]))
        return alphas

    def transform(self, X):
        """Scores of new points, kernel values centred with the TRAINING means.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features)
            New points; (n_queries, n_samples) kernel values for ``precomputed``.

        Returns
        -------
        ndarray of shape (n_queries, n_components)
        """
        _sk.check_is_fitted(self)
        X = _sk.validate_data(self, X, accept_sparse="csr", reset=False)
        alphas = self._alphas()
        column_sums = alphas.sum(axis=0)
        shift = self._grand_mean * column_sums - self._row_means @ alphas

        def score(K_new):  # (K_new - 1 r^T - k_bar 1^T + g) alphas, no centred block
            out = K_new @ alphas
            out += shift
            out -= np.outer(K_new.mean(axis=1), column_sums)
            return out

        if not self._fast_kernel(X) or not self._fast_kernel(self.X_fit_):
            return score(self._get_kernel(X, self.X_fit_))
        offset = _krylov_fit.rbf_offset(self.X_fit_, self.kernel) if self._offset is None \
            else self._offset
        dtype = np.result_type(X.dtype, self.eigenvectors_.dtype)
        parts = _krylov_fit.kernel_scores(
            np.asarray(X, dtype=np.float64) - offset,
            np.asarray(self.X_fit_, dtype=np.float64) - offset,
            self.kernel, self.gamma_, self.degree, self.coef0, score)
        if not parts:
            return np.zeros((0, alphas.shape[1]), dtype=dtype)
        return np.vstack(parts).astype(dtype, copy=False)

    def inverse_transform(self, X):
        """Pre-images of scores ``X`` by the learned kernel ridge map.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_components)
            Scores.

        Returns
        -------
        ndarray of shape (n_queries, n_features)
        """
        if not self.fit_inverse_transform:
            raise _sk.NotFittedError("The fit_inverse_transform parameter was not set to True "
                                 "when instantiating and hence the inverse transform is "
                                 "not available.")
        return np.dot(self._get_kernel(X, self.X_transformed_fit_), self.dual_coef_)
