"""kmlib: the library behind *Kernel Methods — executable course notes*.

Every algorithm and formula that a chapter of the book computes with lives here,
tested against independent references.  Import the modules you need, e.g.
``from kmlib import ridge, kernels``.
"""
from ._validation import NotFittedError

__version__ = "0.1.0"
__all__ = ["NotFittedError", "__version__"]
