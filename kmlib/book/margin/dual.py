r"""The SVM dual: a general-purpose QP solver, the objective, the intercept and the KKT conditions.

Chapter *Support vector machines and kernel logistic regression* solves the
dual :math:`\max_a \sum_ia_i - \tfrac12\sum_{ij}a_ia_jy_iy_jK_{ij}` over
:math:`0\le a_i\le C`, :math:`\sum_ia_iy_i = 0` by SMO (:mod:`kmlib.svm`);
here it is solved by SLSQP instead (:func:`svm_dual_qp`) to cross-check SMO,
together with the dual objective (:func:`dual_objective`), the intercept from
the free support vectors (:func:`svm_intercept`) and the Karush--Kuhn--Tucker
conditions checked point by point (:func:`kkt_residuals`).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from kmlib._validation import (
    check_int,
    check_labels,
    check_nonnegative,
    check_positive,
    check_same_length,
    check_square,
    check_symmetric,
    check_vector,
)

#: SLSQP stores its iteration limit in a C int.
_SLSQP_MAX_ITER = 2**31 - 1

__all__ = [
    "svm_dual_qp",
    "dual_objective",
    "svm_intercept",
    "kkt_residuals",
]


def _Ky(K: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    K = check_square(K, "K")
    y = check_labels(y)
    check_same_length(K, y, "K", "y")
    check_symmetric(K, "K")
    return K, y


def _dual_a(a: ArrayLike, n: int) -> NDArray[np.float64]:
    a = check_vector(a, "a")
    if a.shape[0] != n:
        raise ValueError(f"a must have length {n} (the number of points); got {a.shape[0]}")
    return a


def _rel_tol(rel_tol: float) -> float:
    rel_tol = check_nonnegative(rel_tol, "rel_tol")
    if rel_tol >= 0.5:
        raise ValueError(
            f"rel_tol must lie in [0, 0.5) so that the bands near 0 and near C do not "
            f"overlap; got {rel_tol!r}"
        )
    return rel_tol


def dual_objective(K: ArrayLike, y: ArrayLike, a: ArrayLike) -> float:
    r"""Dual objective :math:`\sum_i a_i - \tfrac12\sum_{ij}a_ia_jy_iy_jK_{ij}`.

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    a : array of shape (n,)

    Returns
    -------
    float
    """
    K, y = _Ky(K, y)
    a = _dual_a(a, len(y))
    c = a * y
    return float(a.sum() - 0.5 * c @ K @ c)


def svm_dual_qp(K: ArrayLike, y: ArrayLike, C: float, *, tol: float = 1e-14,
                max_iter: int = 2000) -> NDArray[np.float64]:
    r"""Solve the SVM dual with SLSQP, a general-purpose QP solver (not SMO).

    Maximises :math:`\sum_ia_i - \tfrac12 a^\top Qa`, :math:`Q_{ij} = y_iy_jK_{ij}`,
    over :math:`0\le a_i\le C` and :math:`\sum_ia_iy_i = 0`.  All coordinates
    move at once, with the equality constraint handled by the solver.  Meant
    for the small problems on which the chapter cross-checks SMO.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric kernel matrix.
    y : array of shape (n,)
        Labels in {-1, 1}.
    C : float
        Box constant, > 0.
    tol : float
        ``ftol`` of SLSQP.
    max_iter : int
        Maximal SLSQP iterations, at most ``2**31 - 1``.

    Returns
    -------
    ndarray of shape (n,)
        Dual variables :math:`a`.
    """
    K, y = _Ky(K, y)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1, maximum=_SLSQP_MAX_ITER)
    Q = (y[:, None] * y[None, :]) * K
    n = len(y)
    res = optimize.minimize(
        lambda a: 0.5 * a @ Q @ a - a.sum(), np.full(n, 0.0),
        jac=lambda a: Q @ a - 1.0, method="SLSQP", bounds=[(0.0, C)] * n,
        constraints=[{"type": "eq", "fun": lambda a: y @ a, "jac": lambda a: y}],
        options={"ftol": tol, "maxiter": max_iter},
    )
    return np.clip(res.x, 0.0, C)


def svm_intercept(K: ArrayLike, y: ArrayLike, a: ArrayLike, C: float, *,
                  rel_tol: float = 1e-6) -> float:
    r"""Intercept :math:`b = y_{i_0} - \sum_i a_iy_iK_{i i_0}`, averaged over free vectors.

    A free support vector :math:`i_0` has :math:`0 < a_{i_0} < C`; there
    complementary slackness forces :math:`y_{i_0}f(x_{i_0}) = 1`.  Averaging over
    all of them reduces rounding error.

    Parameters
    ----------
    K : array of shape (n, n)
    y : array of shape (n,)
    a : array of shape (n,)
        Dual variables.
    C : float
        Box constant.
    rel_tol : float
        In [0, 0.5); :math:`a_i` counts as free when
        :math:`\text{rel\_tol}\,C < a_i < (1-\text{rel\_tol})C`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If no dual variable is strictly inside the box.
    """
    K, y = _Ky(K, y)
    a = _dual_a(a, len(y))
    C = check_positive(C, "C")
    rel_tol = _rel_tol(rel_tol)
    free = (a > rel_tol * C) & (a < (1 - rel_tol) * C)
    if not np.any(free):
        raise ValueError("a: no dual variable lies strictly between 0 and C, so the "
                         "intercept is not pinned down by an equation; expected at least one")
    f0 = K[free] @ (a * y)
    return float(np.mean(y[free] - f0))


def kkt_residuals(yf: ArrayLike, a: ArrayLike, C: float, *,
                  rel_tol: float = 1e-6) -> NDArray[np.float64]:
    r"""Violation of the SVM's KKT conditions at each point.

    With margins :math:`z_i = y_if(x_i)`:

    * :math:`a_i = 0` requires :math:`z_i \ge 1` (residual :math:`(1 - z_i)_+`);
    * :math:`0 < a_i < C` requires :math:`z_i = 1` (residual :math:`|1 - z_i|`);
    * :math:`a_i = C` requires :math:`z_i \le 1` (residual :math:`(z_i - 1)_+`).

    Parameters
    ----------
    yf : array of shape (n,)
        Margins :math:`y_if(x_i)`.
    a : array of shape (n,)
        Dual variables.
    C : float
        Box constant.
    rel_tol : float
        In [0, 0.5); :math:`a_i \le \text{rel\_tol}\,C` counts as 0,
        :math:`a_i\ge(1-\text{rel\_tol})C` as C.

    Returns
    -------
    ndarray of shape (n,)
        Non-negative residuals; all zero at an exact solution.
    """
    z = check_vector(yf, "yf")
    a = _dual_a(a, len(z))
    C = check_positive(C, "C")
    rel_tol = _rel_tol(rel_tol)
    at_zero = a <= rel_tol * C
    at_C = a >= (1 - rel_tol) * C
    free = ~at_zero & ~at_C
    r = np.zeros_like(z)
    r[at_zero] = np.maximum(0.0, 1.0 - z[at_zero])
    r[free] = np.abs(1.0 - z[free])
    r[at_C] = np.maximum(0.0, z[at_C] - 1.0)
    return r
