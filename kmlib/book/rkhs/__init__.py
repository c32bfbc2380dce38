"""Reproducing kernel Hilbert spaces: the quadrature the chapter repeats.

This module serves the chapter "Reproducing kernel Hilbert spaces". The chapter
writes its computations out in numpy (pseudoinverse norms on a finite set, kernel
expansions, the Mercer eigenpairs of ``min(x, x')``, polynomial and Sobolev
norms); what it repeats is one quadrature rule: the exact integral of a piecewise
polynomial by Gauss--Legendre on every piece (:func:`piecewise_integral`), used
for the Sobolev norms ``int f'^2`` and ``int f''^2`` of kernel expansions.
"""
from __future__ import annotations

from .sobolev import piecewise_integral

__all__ = ["piecewise_integral"]
