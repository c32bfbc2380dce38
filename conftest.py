"""pytest configuration shared by the whole repository.

With ``--nbval-lax`` the MyST Markdown notebooks in ``chapters/`` and
``exercises/`` are executed as notebooks: each code cell is one test item and a
cell that raises fails the run.  nbval only collects ``.ipynb`` files, so the
hook below reads a ``.md`` notebook with jupytext (``fmt="md:myst"``) and hands
the resulting notebook to nbval's own collector.
"""
from __future__ import annotations

from pathlib import Path

NOTEBOOK_DIRS = ("chapters", "exercises")


def _is_myst_notebook(path: Path) -> bool:
    if path.suffix != ".md" or path.parent.name not in NOTEBOOK_DIRS:
        return False
    head = path.read_text(encoding="utf-8")[:600]
    return head.startswith("---") and "format_name: myst" in head


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if not (getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)):
        return None
    if not _is_myst_notebook(Path(file_path)):
        return None
    return MystNotebookFile.from_parent(parent, path=file_path)


try:
    import nbval.plugin as _nbval_plugin
except ImportError:  # nbval is a test extra; without it no notebook is collected
    _nbval_plugin = None


if _nbval_plugin is not None:

    class MystNotebookFile(_nbval_plugin.IPyNbFile):
        """nbval's notebook collector, reading a MyST Markdown notebook via jupytext."""

        def collect(self):
            import jupytext

            nbformat = _nbval_plugin.nbformat
            original_read = nbformat.read

            def read_myst(path, as_version=4, **kwargs):
                return jupytext.read(path, fmt="md:myst")

            nbformat.read = read_myst
            try:
                yield from super().collect()
            finally:
                nbformat.read = original_read


# Property tests draw their examples deterministically, so a run is reproducible
# (and CI cannot fail on an example that a previous run never saw).
try:
    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("kmbook", derandomize=True, deadline=None,
                                   database=None, print_blob=True)
    _hyp_settings.load_profile("kmbook")
except ImportError:  # hypothesis is a test extra
    pass
