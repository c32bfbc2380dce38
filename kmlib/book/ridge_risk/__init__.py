"""Chapter 1 ("Ridge regression"): exact risk of ridge, its simulation, bias and variance.

``risk`` gives the exact bias, variance and MSE matrices of ridge and OLS under the linear
model, the threshold below which ridge beats OLS and the prediction risk; ``simulation``
draws responses and estimates to check them and holds the Gaussian score and Fisher
information; ``bias_variance`` finds the exact MSE-order crossing and splits the error of
polynomial ridge smoothers into squared bias and variance.
"""
from .bias_variance import (
    bias_variance,
    mse_order_crossing,
    polynomial_design,
    ridge_smoothers,
    simulate_bias_variance,
)
from .risk import (
    mse_difference,
    mse_difference_closed_form,
    ols_covariance,
    ridge_beats_ols_threshold,
    ridge_mse_matrix,
    ridge_mse_trace,
    ridge_prediction_risk,
)
from .simulation import (
    empirical_mse_matrix,
    gaussian_fisher_information,
    gaussian_score,
    simulate_estimates,
    simulate_responses,
)

__all__ = [
    "ridge_mse_matrix", "ols_covariance", "mse_difference", "mse_difference_closed_form",
    "ridge_beats_ols_threshold", "ridge_mse_trace", "ridge_prediction_risk",
    "simulate_responses", "simulate_estimates", "empirical_mse_matrix", "gaussian_score",
    "gaussian_fisher_information", "mse_order_crossing", "polynomial_design",
    "ridge_smoothers", "bias_variance", "simulate_bias_variance",
]
