"""Helpers of ``scripts/grade.py``.

Read a lecturer's sheet (:mod:`.sheet`); run a submission in three sandboxes, its cells,
the lecturer's full checks (``reference/``, in place of the self-checks that ship in
``kmlib.book.exercises``) and its function answers, with only data crossing between them
(:mod:`.sandbox`, :mod:`.codec`, ``run_student.py``, ``run_checks.py``,
``run_function.py``), each under a user id of its own where the machine allows
(:mod:`.userns`); and write the reports (:mod:`.report`).
"""
