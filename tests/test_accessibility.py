"""Accessibility and layout of the built website, checked in headless Chromium.

* ``.ci/a11y/axe.mjs``: axe-core (WCAG 2.0/2.1/2.2, A and AA) on every page of the
  site, in light and in dark mode: no violating element;
* ``.ci/a11y/narrow.mjs``: at 400 px no formula is cut off (a wide one scrolls in its
  own box), at 1300 px every line of a code cell is shown whole, and no page logs a
  console error;
* ``.ci/a11y/reader.mjs``: the phone and tablet table of contents opens by tap and by
  keyboard; at 1280 px no inline formula sits in a scroll box and no display equation
  is wider than its box, on every chapter and sheet; no formula is in the tab order;
  figures open full size; search is accent-insensitive, ranks chapter 6 first for
  "representer theorem", shows no raw TeX and highlights with 4.5:1 contrast in both
  modes, over HTTP and over file://.

Both are Node scripts (axe-core and playwright-core from ``.ci/a11y/package.json``,
installed with ``npm ci`` in that folder; ``.ci/run`` does it) driving the system
Chromium. Skipped, with the reason, when the site is not built or a tool is missing.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
A11Y = ROOT / ".ci" / "a11y"
HTML = Path(os.environ.get("KMBOOK_SITE", ROOT / "_build" / "html"))
HIDDEN = Path(os.environ.get("KMBOOK_HIDDEN_SITE", ROOT / "_build" / "hidden" / "_build" / "html"))


def _missing() -> str | None:
    if not (HTML / "index.html").is_file():
        return "no website build in _build/html (run `make book` first)"
    if shutil.which("node") is None:
        return "Node.js is not installed (apt-get install nodejs npm)"
    if not (A11Y / "node_modules" / "axe-core").is_dir():
        return "axe-core is not installed (cd .ci/a11y && npm ci)"
    if not any(Path(p).is_file() for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser")) \
            and not os.environ.get("CHROMIUM"):
        return "headless Chromium is not installed (apt-get install chromium)"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def _run(script: str, site: Path, timeout: int = 1800) -> subprocess.CompletedProcess:
    return subprocess.run(["node", str(A11Y / script), str(site)], capture_output=True,
                          text=True, timeout=timeout, cwd=A11Y)


def test_axe_finds_no_violation_on_any_page_light_or_dark():
    result = _run("axe.mjs", HTML)
    assert result.returncode == 0, (result.stdout[-6000:] + result.stderr[-2000:])
    assert "0 violating elements" in result.stdout


@pytest.mark.skipif(not (HIDDEN / "index.html").is_file(),
                    reason="no solution-free site (run `make book-hidden` first)")
def test_axe_finds_no_violation_on_the_site_without_solutions():
    # the solution-free site replaces the exercise pages by their student versions; the
    # chapters are built from the same sources as the full site's, checked above
    pages = ["index.html"] + sorted(f"exercises/{p.name}"
                                    for p in (HIDDEN / "exercises").glob("*.html"))
    result = subprocess.run(["node", str(A11Y / "axe.mjs"), str(HIDDEN),
                             "--pages", ",".join(pages)],
                            capture_output=True, text=True, timeout=1800, cwd=A11Y)
    assert result.returncode == 0, (result.stdout[-6000:] + result.stderr[-2000:])


def test_no_formula_cut_off_at_400px_no_code_line_cut_off_no_console_error():
    result = _run("narrow.mjs", HTML)
    assert result.returncode == 0, (result.stdout[-6000:] + result.stderr[-2000:])


def test_reader_navigation_formulas_figures_and_search():
    result = _run("reader.mjs", HTML)
    assert result.returncode == 0, (result.stdout[-6000:] + result.stderr[-2000:])
