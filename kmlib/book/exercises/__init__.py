"""Self-checks for the book's exercises, one module per chapter (``ch01``, ``ch02``, ...).

Each module holds the data of its sheet's exercises (``*_data()``, ``sheet_*()``) and one
*self-check* ``check_<name>(...)`` per computational answer. A self-check tests properties
that a right answer must have, never the answer itself: its shape, an identity or an
equation it satisfies (a residual, a KKT condition, orthogonality), and for a number of the
sheet's own data a slow salted hash of its rounded value (:mod:`._answers`). It raises
``AssertionError`` with a hint when a property fails and prints one line starting with
``Self-check passed:`` otherwise. Nothing here solves an exercise: the lecturer's full
checks, which compare every answer with an independent computation, are not part of this
package and run only when a sheet is graded (``scripts/grade.py``).

**What a student sees when a self-check fails.** In Jupyter (IPython), not a traceback
through the checker's source but one short block: the exercise as numbered on the sheet,
what is wrong and what to try (the message). :class:`SelfCheckFailed` (an
``AssertionError``) carries the exercise's number and renders itself so; a plain
``AssertionError`` raised inside a module of this package is shown the same way, its
exercise found in :data:`EXERCISE_OF` (importing this package installs that display once;
every other error keeps IPython's usual traceback). Outside IPython nothing changes.

**The rule for self-checks** (see the page "Helpers of the book"): a self-check must not be
usable as an oracle. No digest of an integer, of a value with fewer than about a million
plausible candidates (a count, a rank, a p-value of a permutation test with 200
permutations, a choice among a few options), no message saying "too small" or "too large";
test properties instead (residuals, KKT conditions, invariances).
"""
from __future__ import annotations

__all__ = ["EXERCISE_OF", "SelfCheckFailed", "exercise_of", "show_short_failures"]

# the exercise (as numbered on its sheet) whose check cell calls each self-check;
# tests/test_grading_selfcheck.py rebuilds this table from the sheets
EXERCISE_OF = {
    "ch01.check_shrinkage": "1.2", "ch01.check_effective_df": "1.2", "ch01.check_intercept": "1.3",
    "ch01.check_dual": "1.3", "ch01.check_lambda_star": "1.5", "ch01.check_wls_gap": "1.6",
    "ch01.check_worst_direction": "1.6", "ch01.check_coordinate_growth": "1.9",
    "ch01.check_risk_bound": "1.10", "ch02.check_kappa": "2.1", "ch02.check_cv_curve": "2.1",
    "ch02.check_lam_hat": "2.1", "ch02.check_stack_weights": "2.4",
    "ch02.check_stacked_prediction": "2.4", "ch02.check_loo_gcv": "2.5",
    "ch02.check_screened_cv": "2.6", "ch02.check_rotation": "2.8",
    "ch03.check_condition_numbers": "3.1", "ch03.check_monomial_counts": "3.2",
    "ch03.check_pinv_dual": "3.3", "ch03.check_gaussian_terms": "3.4", "ch03.check_cutoff": "3.5",
    "ch03.check_kernel_predictions": "3.6", "ch03.check_tanh_counterexample": "3.7",
    "ch03.check_intercept_limit": "3.8", "ch04.check_jaccard_gram": "4.2",
    "ch04.check_exp_series": "4.3", "ch04.check_matern": "4.4", "ch04.check_matern_gram": "4.4",
    "ch04.check_inner_product_gram": "4.5", "ch04.check_violation": "4.6",
    "ch04.check_sphere_violation": "4.7", "ch05.check_finite_norm": "5.3",
    "ch05.check_finite_membership": "5.3", "ch05.check_projection": "5.4",
    "ch05.check_mercer_grid": "5.5", "ch05.check_sobolev1_norm": "5.6",
    "ch06.check_krr_fitted": "6.1", "ch06.check_intercept": "6.2", "ch06.check_min_norm": "6.3",
    "ch06.check_map": "6.4", "ch06.check_poisson": "6.5", "ch06.check_linear_spline": "6.6",
    "ch07.check_representer": "7.1", "ch07.check_bias": "7.2", "ch07.check_rate_bound": "7.3",
    "ch07.check_rate_slope": "7.3", "ch07.check_smoothness_mse": "7.5", "ch07.check_floor": "7.6",
    "ch07.check_smooth_rate": "7.7", "ch08.check_C_and_intercept": "8.4",
    "ch08.check_support_vectors": "8.5", "ch08.check_crossing": "8.6",
    "ch08.check_rademacher": "8.7", "ch08.check_loss_minimisers": "8.8",
    "ch08.check_intercept_interval": "8.9", "ch09.check_rff_variances": "9.1",
    "ch09.check_prf_variance": "9.2", "ch09.check_nystroem": "9.3", "ch09.check_choose_D": "9.4",
    "ch09.check_streaming_coef": "9.5", "ch09.check_not_pd": "9.7",
    "ch09.check_domain_error": "9.8", "ch10.check_circle_witness": "10.2",
    "ch10.check_nds_table": "10.3", "ch10.check_witness": "10.3",
    "ch10.check_exp_power_min_eigs": "10.4", "ch10.check_embedding": "10.5",
    "ch11.check_gaussian_mmd": "11.1", "ch11.check_kpca": "11.2", "ch11.check_width": "11.3",
    "ch11.check_hsic_test": "11.4", "ch11.check_energy": "11.5", "ch11.check_mcdiarmid": "11.6",
}


class SelfCheckFailed(AssertionError):
    """A failed self-check: what is wrong and what to try, for the exercise ``exercise``.

    Parameters
    ----------
    message : str
        What is wrong, in the student's terms (their variable's name, never the answer).
    exercise : str, optional
        The exercise as numbered on the sheet, e.g. ``"3.1"``.
    hint : str, optional
        What to try next.

    In IPython the error shows as this short block instead of a traceback.
    """

    def __init__(self, message: str, exercise: str | None = None, hint: str | None = None):
        self.message, self.exercise, self.hint = str(message), exercise, hint
        super().__init__(self.message + (f" Try: {hint}" if hint else ""))

    def _render_traceback_(self) -> list[str]:
        return short_block(str(self), self.exercise)


def short_block(message: str, exercise: str | None) -> list[str]:
    """The lines a student sees for a failed self-check."""
    head = f"Exercise {exercise}: self-check failed" if exercise else "Self-check failed"
    return [head, *(f"  {line}" for line in message.splitlines() or [""]),
            "(Change your answer and run this cell again; the full check runs when the sheet "
            "is graded.)"]


def exercise_of(tb) -> tuple[bool, str | None]:
    """Whether the traceback ``tb`` was raised inside this package, and the exercise it checks."""
    inside, number = False, None
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        if isinstance(module, str) and module.startswith(__name__ + "."):
            inside = True
            name = f"{module.rsplit('.', 1)[-1]}.{tb.tb_frame.f_code.co_name}"
            number = EXERCISE_OF.get(name, number)
        tb = tb.tb_next
    return inside, number


def _handler(shell, etype, value, tb, tb_offset=None):
    inside, number = exercise_of(tb)
    if isinstance(value, SelfCheckFailed) or not inside:
        return shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    # as IPython shows any error (in Jupyter: an error output, name and value kept), with
    # these lines in place of the traceback
    shell._showtraceback(etype, value, short_block(str(value), number))
    return None


def show_short_failures() -> bool:
    """In IPython, show self-check failures as :func:`short_block`; True if installed.

    Only an ``AssertionError`` raised inside this package is affected, and only when no other
    custom handler is installed; everything else keeps IPython's usual display.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    if getattr(shell, "custom_exceptions", ()) not in ((), (AssertionError,)):
        return False
    shell.set_custom_exc((AssertionError,), _handler)
    return True


show_short_failures()
