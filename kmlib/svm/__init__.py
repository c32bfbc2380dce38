r"""The kernel support vector machine, solved in the dual by SMO (chapter 8).

Chapter 8 of the book writes the kernel SVM in its penalised form

.. math::

    \min_{\mu, f}\; \sum_i \bigl(1 - y_i(\mu + f(x_i))\bigr)_+ + \lambda \|f\|_{\mathcal H}^2 ,

and solves it through the dual with box constant :math:`C = 1/(2\lambda)`:

.. math::

    \max_a\; \sum_i a_i - \tfrac12 \sum_{i,j} a_i a_j y_i y_j K_{ij}
    \quad\text{subject to}\quad 0 \le a_i \le C,\; \sum_i a_i y_i = 0 .

The solver is sequential minimal optimisation (SMO) with the second-order
working-set selection of Fan, Chen & Lin (JMLR 6, 2005), the rule used by
LIBSVM.  Its Python loop runs over *iterations*; all work inside one iteration
is a handful of vectorised numpy passes over length-n arrays.
"""
from __future__ import annotations

from .estimator import C_from_lam, KernelSVM
from .smo import SMOResult, smo_solve

__all__ = ["KernelSVM", "C_from_lam", "smo_solve", "SMOResult"]
