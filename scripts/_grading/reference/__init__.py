"""The lecturer's full checks of the exercise sheets, one module per chapter (``ch01``, ...).

Never shipped: not in the wheel (``pyproject.toml`` packages ``kmlib*`` only), the site, its
zip or the student notebooks. What ships, ``kmlib.book.exercises.chNN``, holds the data of
each exercise and the students' *self-checks*, which test properties an answer must have
(shape, an identity, a residual, a hash of the rounded value) and never compute the answer.
The module ``chNN`` here defines the checks of the same names and signatures, which
recompute every answer by an independent route and print one line starting with
``Correct:``; ``scripts/_grading/run_checks.py`` puts them in place of the self-checks when
a sheet is graded (``tests/test_no_answers_shipped.py`` searches everything that ships for
their lines).
"""
