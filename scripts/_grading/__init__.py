"""Helpers of ``scripts/grade.py``.

Read a lecturer's sheet, run a submission in a sandbox, run the lecturer's full checks
(``reference/``, in place of the self-checks that ship in ``kmlib.book.exercises``) on the
answers it produced, and write the reports.
"""
