"""Helpers of ``scripts/grade.py``.

Read a lecturer's sheet, run a submission in a sandbox, run the lecturer's checks on the
answers it produced, and write the reports.
"""
