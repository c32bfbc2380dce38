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
"""
