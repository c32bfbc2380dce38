"""pytest configuration shared by the whole repository.

Notebooks. With ``--notebooks`` (or nbval's ``--nbval-lax``, the older spelling) every
MyST Markdown notebook in ``chapters/`` and ``exercises/`` is one test item: the notebook
is read with jupytext and executed in a fresh kernel of this environment by nbclient,
cell by cell in its own folder, as the book build does; the first cell that raises fails
the item with its traceback (a cell tagged ``raises-exception`` may raise).  Only public
APIs are used (``jupytext.read``, ``nbclient.NotebookClient``, ``jupyter_cache``).

With ``--notebooks-from-build=_build`` a notebook whose code the book build has already
executed successfully (its jupyter-cache holds the same code, cached after the last change
to the notebook and to ``kmlib``) is not executed again: the item passes on that record
and says so. CI builds the book first and runs the tests this way (``make test-ci``).

Suites. Every test carries one of the markers registered in ``pyproject.toml``: ``lib``
(kmlib and the book's helpers in ``kmlib.book``: unit, property and scikit-learn tests),
``book`` (the book's sources read as text, its generators, and the exercise checkers
against independent answers; no notebook executed), ``notebook`` (executes a notebook), ``site``
(reads ``_build``; skipped without it), ``grading`` (the grader in its sandbox) and
``slow`` (fresh virtual environments from the package index). ``make test-lib`` is
``-m lib``; the table below gives each test file its marker.
"""
from __future__ import annotations

import fnmatch
import re
import time
from datetime import timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
NOTEBOOK_DIRS = ("chapters", "exercises")

# test file pattern -> marker; first match wins; a file matching none is ``lib``
FILE_MARKERS = [
    ("test_run_locally.py", "slow"),
    ("test_grading*.py", "grading"),
    ("test_site*.py", "site"), ("test_hidden_site*.py", "site"),
    ("test_accessibility*.py", "site"), ("test_downloads*.py", "site"),
    ("test_no_answers_shipped*.py", "site"), ("test_pdf*.py", "site"),
    ("test_latex*.py", "site"),
    ("test_stated_numbers.py", "book"), ("test_chapter_structure.py", "book"),
    ("test_notation*.py", "book"), ("test_exercises.py", "book"),
    ("test_plain_notebook.py", "book"), ("test_exercise_checks_*.py", "book"),
    ("test_notebook_runner.py", "notebook"),
]
# single tests that execute a notebook or read the built site, inside files of another suite
TEST_MARKERS = [
    ("test_exercise_checks_ch*.py", "test_notebook_*", "notebook"),
    ("test_exercises.py", "test_make_exercises_hands_out_*", "site"),
    ("test_plain_notebook.py", "test_built_*", "site"),
    ("test_grading.py", "test_hidden_checks_do_not_reach_the_solution_free_site", "site"),
]
SUITES = ("lib", "book", "notebook", "site", "grading", "slow")


def pytest_addoption(parser):
    group = parser.getgroup("notebooks", "executing the book's MyST notebooks")
    group.addoption("--notebooks", action="store_true", default=False,
                    help="collect the MyST notebooks of chapters/ and exercises/ and run them")
    group.addoption("--notebooks-from-build", metavar="BUILD", default=None,
                    help="pass a notebook the book build in BUILD (e.g. _build) already "
                         "executed with the same code, instead of running it again")


def _suite(item) -> str:
    if isinstance(item, NotebookItem):
        return "notebook"
    name = item.path.name
    func = getattr(item, "originalname", None) or item.name
    for file_pattern, test_pattern, marker in TEST_MARKERS:
        if fnmatch.fnmatch(name, file_pattern) and fnmatch.fnmatch(func, test_pattern):
            return marker
    for pattern, marker in FILE_MARKERS:
        if fnmatch.fnmatch(name, pattern):
            return marker
    return "lib"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if not any(item.get_closest_marker(s) for s in SUITES):
            item.add_marker(_suite(item))


def _wants_notebooks(config) -> bool:
    opt = config.option
    return bool(opt.notebooks or getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False))


def _is_myst_notebook(path: Path) -> bool:
    if path.suffix != ".md" or path.parent.name not in NOTEBOOK_DIRS:
        return False
    head = path.read_text(encoding="utf-8")[:600]
    return head.startswith("---") and "format_name: myst" in head


def pytest_collect_file(file_path, parent):
    if _wants_notebooks(parent.config) and _is_myst_notebook(Path(file_path)):
        return MystNotebook.from_parent(parent, path=file_path)
    return None


class MystNotebook(pytest.File):
    """A MyST Markdown notebook: one item that executes it."""

    def collect(self):
        yield NotebookItem.from_parent(self, name="execute")


ANSI = re.compile(r"\x1b\[[0-9;]*m")


class NotebookFailed(Exception):
    pass


def _newest_source_mtime(path: Path) -> float:
    """The last change to the notebook or to the library it imports."""
    files = [path, *(f for f in (ROOT / "kmlib").rglob("*")
                     if f.is_file() and "__pycache__" not in f.parts)]
    return max(f.stat().st_mtime for f in files)


def executed_by_build(path: Path, build: Path):
    """The book build's successful execution of the notebook at ``path`` as it is now, or None.

    myst-nb caches a notebook in ``<build>/.jupyter_cache`` only when every cell ran
    without error (``execute.raise_on_error`` makes a failing cell fail the build), keyed
    on the code of its cells; the record must also be newer than the notebook and kmlib.
    """
    cache_dir = build / ".jupyter_cache"
    if not cache_dir.is_dir():
        return None
    import jupytext
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_dir))
    nb = jupytext.read(path, fmt="md:myst")
    try:
        record = cache.match_cache_notebook(nb)
    except KeyError:
        return None
    created = record.created  # stored in UTC; SQLite returns it without its time zone
    if created.tzinfo is None:
        created = created.replace(tzinfo=timezone.utc)
    if created.timestamp() < _newest_source_mtime(path):
        return None
    return cache.get_cache_bundle(record.pk).nb


class NotebookItem(pytest.Item):
    """Execute one MyST notebook in a kernel of this environment; any error fails."""

    def runtest(self):
        build = self.config.option.notebooks_from_build
        if build:
            nb = executed_by_build(self.path, Path(build).resolve())
            if nb is not None:
                self.user_properties.append(("executed", "by the book build"))
                return
        import jupytext
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError

        nb = jupytext.read(self.path, fmt="md:myst")
        client = NotebookClient(nb, kernel_name="python3", timeout=600, allow_errors=False,
                                resources={"metadata": {"path": str(self.path.parent)}})
        start = time.perf_counter()
        try:
            client.execute()
        except CellExecutionError as error:
            raise NotebookFailed(ANSI.sub("", str(error))) from None
        self.user_properties.append(("executed", f"in {time.perf_counter() - start:.1f} s"))

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(NotebookFailed):
            return f"{self.path.name}: a cell raised\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.parent.name}/{self.path.name}::execute"


def pytest_terminal_summary(terminalreporter, config):
    if not config.option.notebooks_from_build:
        return
    runs = [(r.nodeid, dict(r.user_properties)["executed"])
            for r in terminalreporter.stats.get("passed", [])
            if "executed" in dict(getattr(r, "user_properties", []))]
    reused = [n for n, how in runs if how == "by the book build"]
    terminalreporter.write_line(
        f"{len(reused)} notebooks passed on the book build's execution of the same code "
        "(--notebooks-from-build)")
    for nodeid, how in runs:
        if how != "by the book build":
            terminalreporter.write_line(f"  executed here (not in the build): {nodeid} ({how})")


# The working tree is the contributor's: no test may write, delete or change a file in it.
# The state of every file git reports (changed or untracked, ignored build output aside) is
# taken before the run and compared after it; a difference fails the run, naming the files.
def _tree_state():
    import hashlib
    import subprocess

    try:
        out = subprocess.run(["git", "status", "--porcelain", "-z", "--untracked-files=all"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None  # not a git checkout (e.g. an unpacked archive): nothing to compare
    state, fields = {}, iter(out.split("\0"))
    for entry in fields:
        if not entry:
            continue
        if entry[0] in "RC":  # a rename or copy: its source path follows
            next(fields, None)
        path = ROOT / entry[3:]
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        state[entry[3:]] = (entry[:2], digest)
    return state


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # once, in the controlling process
        session.config.stash[_TREE] = _tree_state()


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(_TREE, None)
    if before is None:
        return
    after = _tree_state() or {}
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line("The tests changed the working tree (they must write only "
                                "to tmp_path): " + ", ".join(changed), red=True, bold=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_TREE = pytest.StashKey()


# Property tests draw their examples deterministically, so a run is reproducible
# (and CI cannot fail on an example that a previous run never saw).
try:
    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("kmbook", derandomize=True, deadline=None,
                                   database=None, print_blob=True)
    _hyp_settings.load_profile("kmbook")
except ImportError:  # hypothesis is a test extra
    pass
