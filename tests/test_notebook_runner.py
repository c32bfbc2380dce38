"""The notebook runner of ``conftest.py``: a raising cell fails its notebook, a cell tagged
``raises-exception`` may raise, and a test that writes into the working tree fails the run.

Each case is a small project written into pytester's temporary folder, with a copy of the
repository's ``conftest.py``, and run in a separate pytest process.
"""
from __future__ import annotations

import subprocess

import pytest
from _notebooks import ROOT

pytest_plugins = ["pytester"]

FRONT = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

"""


def _cell(source: str, tags: str = "") -> str:
    opts = f":tags: [{tags}]\n" if tags else ""
    return f"```{{code-cell}} ipython3\n{opts}{source}\n```\n\n"


@pytest.fixture
def project(pytester):
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    markers = "".join(f"\n    {m}" for m in ("lib", "book", "notebook", "site", "grading", "slow"))
    pytester.makeini(f"[pytest]\naddopts = -p no:cacheprovider\nmarkers ={markers}\n")
    (pytester.path / "chapters").mkdir()
    return pytester


def test_a_raising_cell_fails_and_an_expected_exception_does_not(project):
    chapters = project.path / "chapters"
    (chapters / "good.md").write_text(FRONT + _cell("x = 1") + _cell("1 / 0", "raises-exception")
                                      + _cell("assert x == 1"))
    (chapters / "bad.md").write_text(FRONT + _cell("x = 1") + _cell("assert x == 2, 'not two'"))
    result = project.runpytest_subprocess("--notebooks", "chapters", "-q")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*bad.md: a cell raised*", "*AssertionError: not two*"])


def test_without_the_option_no_notebook_is_collected(project):
    (project.path / "chapters" / "good.md").write_text(FRONT + _cell("x = 1"))
    result = project.runpytest_subprocess("chapters", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_test_that_writes_into_the_working_tree_fails_the_run(project):
    subprocess.run(["git", "init", "-q"], cwd=project.path, check=True)
    project.makepyfile(test_writes="""
        from pathlib import Path

        def test_writes():
            Path("written_by_a_test.txt").write_text("x")
        """)
    result = project.runpytest_subprocess("test_writes.py", "-q")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*changed the working tree*written_by_a_test.txt*"])
