"""The book's own helpers: not part of the library.

``kmlib.book`` is the workshop of *Kernel Methods — executable course notes*.  It holds
what serves the pages of the book and nothing a user would import elsewhere:

* :func:`stated` (in ``pins``), which glues a computed number into the prose and pins it
  to an independently trusted value, and ``plotting``, the book's figure style;
* ``exercises``, the checkers behind the exercise sheets;
* one module per chapter that needs one, named after its subject, for code too long or
  too repeated for a cell: ``kernel_trick`` (chapter 3), ``kernel_algebra`` (4), ``rkhs``
  (5), ``representer`` (6), ``rates`` and ``theory`` (7, and 5), ``margin`` (8),
  ``large_scale`` (9), ``negdef`` (10).  Chapters 1 and 2 need none.

These helpers carry a lighter contract than the library: a short docstring, checks
where a reader is likely to pass something wrong, and tests against independent
references; the library's full bad-input contract and fuzz tests do not apply.  The
library (``kmlib`` outside this subpackage) never imports from here.
"""
from .pins import Formatted, stated

__all__ = ["stated", "Formatted"]
