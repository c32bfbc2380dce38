"""Shared input validation for every public entry point of kmlib.

Every check raises :class:`ValueError` (or :class:`NotFittedError`) with a
message of one shape: *which argument*, *what was given*, *what is expected*.

The checks are grouped by what they look at: ``tolerances`` (machine
epsilon, rank and eigenvalue tolerances), ``arrays``, ``scalars``,
``estimators`` (labels, kernels, fitted state), ``params`` (declarative constraints on
hyper-parameters, checked once at the start of ``fit``), ``gram`` (symmetry and
positive semi-definiteness of Gram matrices) and ``results`` (no silent
inf or NaN).  Import them from here: ``from kmlib._validation import check_matrix``.
"""
# NotFittedError is scikit-learn's own (a ValueError and an AttributeError), so that
# ``except sklearn.exceptions.NotFittedError`` catches kmlib's estimators too.
from sklearn.exceptions import NotFittedError

from .arrays import (
    as_float_array,
    check_batch,
    check_matrix,
    check_same_length,
    check_square,
    check_targets,
    check_unit_interval,
    check_vector,
    preserve_float32,
)
from .estimators import (
    check_binary_labels,
    check_feature_names,
    check_fitted,
    check_labels,
    check_n_features,
    check_pair,
    check_predict_input,
    check_sample_weight,
    warn_column_y,
)
from .gram import (
    check_eigenvalues_psd,
    check_gram_psd,
    check_symmetric,
)
from .params import (
    NONNEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    Integral,
    Interval,
    Options,
    Real,
    check_constraints,
    validate_args,
    validate_params,
)
from .results import (
    FiniteResults,
    check_finite_result,
    finite_result,
)
from .scalars import (
    as_generator,
    check_int,
    check_lam,
    check_lam_grid,
    check_nonnegative,
    check_path,
    check_positive,
    check_real,
    check_rng,
)
from .tolerances import (
    EPS,
    PSD_RTOL,
    SYMMETRY_RTOL,
    eig_tol,
    rank_tol,
)

__all__ = [
    "NotFittedError", "as_generator", "EPS", "rank_tol", "eig_tol", "as_float_array",
    "check_n_features",
    "check_pair", "check_predict_input",
    "check_binary_labels", "check_finite_result", "finite_result", "check_gram_psd",
    "check_eigenvalues_psd", "PSD_RTOL", "SYMMETRY_RTOL", "check_matrix", "check_vector",
    "check_same_length", "check_targets", "check_lam", "check_lam_grid", "check_path",
    "check_batch",
    "check_positive", "check_nonnegative", "check_int", "check_labels", "check_rng",
    "check_fitted", "check_square", "check_unit_interval", "check_real", "check_symmetric",
    "check_feature_names", "check_sample_weight", "warn_column_y", "Interval", "Options",
    "Real", "Integral", "check_constraints", "validate_args", "validate_params",
    "POSITIVE", "NONNEGATIVE", "POSITIVE_INT", "preserve_float32", "FiniteResults",
]
