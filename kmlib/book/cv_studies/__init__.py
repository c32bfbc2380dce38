"""Chapter 2 ("Choosing the penalty"): Monte-Carlo studies of cross-validation.

``studies`` simulates Gaussian linear-model datasets, computes the exact risk of fitted
predictors, and runs the stacking and choice-of-v studies (on the library's batched
paths, :func:`kmlib.model_selection.cv_curves_batch` and friends); ``nested`` holds
cross-validation with screening done wrong and right, and nested cross-validation.
"""
from .nested import nested_cv, screened_ridge_cv
from .studies import (
    choose_v_study,
    expected_risk,
    gaussian_datasets,
    gaussian_risk,
    mc_summary,
    stacking_study,
)

__all__ = [
    "gaussian_datasets", "gaussian_risk", "expected_risk", "stacking_study",
    "choose_v_study", "mc_summary", "screened_ridge_cv", "nested_cv",
]
