"""A student outside the repository can run every downloaded notebook.

In a fresh virtual environment in a temporary folder, install exactly what the page
"Run the notebooks on your computer" (``running.md``) says — its first ``bash``
block, run inside the unpacked ``kmbook-notebooks.zip`` — and execute every
notebook with ``jupyter nbconvert --execute``:

* chapter notebooks must run without any error;
* exercise notebooks (student versions) may fail only where the student has work
  to do: the stubs raise ``NotImplementedError`` and the checks ``AssertionError``;
* both with the newest packages (what pip installs from the page) and with the oldest
  versions the requirements allow (their lower bounds), and every figure of a chapter
  is drawn (as many as in the book's executed notebook).

Slow (it installs JupyterLab from the package index), so it runs only when
``KMBOOK_RUN_LOCALLY=1`` (``.ci/run`` sets it after ``make book``).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("KMBOOK_SITE", ROOT / "_build" / "html"))
ZIP = SITE / "downloads" / "kmbook-notebooks.zip"

pytestmark = [
    pytest.mark.skipif(os.environ.get("KMBOOK_RUN_LOCALLY") != "1",
                       reason="slow: set KMBOOK_RUN_LOCALLY=1 (.ci/run does) to install "
                              "the downloads in a fresh venv and run every notebook"),
    pytest.mark.skipif(not ZIP.is_file(), reason="no website build (run `make book` first)"),
]


def _page_commands() -> list[str]:
    """The install commands of the run-locally page (its first bash block)."""
    text = (ROOT / "running.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    lines = [ln.split("#", 1)[0].strip() for ln in block.splitlines()]
    return [ln for ln in lines if ln]


def _floors(requirements: Path) -> list[str]:
    """``name==floor`` for every package of ``requirements`` with a lower bound."""
    pins = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)[^#;]*?>=\s*([\w.]+)", line.strip())
        if m:
            pins.append(f"{m.group(1)}=={m.group(2)}")
    return pins


# "newest": exactly what the page says (pip takes the newest versions); "oldest": then the
# oldest version of every package that the metadata allows (its lower bounds).
@pytest.fixture(scope="module", params=["newest", "oldest"])
def student_env(tmp_path_factory, request):
    work = tmp_path_factory.mktemp(f"student-{request.param}")
    assert ROOT not in work.parents, "the test must run outside the repository"
    with zipfile.ZipFile(ZIP) as zf:
        zf.extractall(work)
    folder = work / "kmbook-notebooks"
    env_dir = None
    for cmd in _page_commands():
        words = shlex.split(cmd)
        if words[:3] == ["python3", "-m", "venv"]:
            env_dir = folder / words[3]
            subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        elif words[0] == "source":
            continue  # activation: we call the environment's programs by path instead
        elif words[0] == "pip":
            assert env_dir is not None, "the page installs before creating the environment"
            subprocess.run([str(env_dir / "bin" / "pip"), "--disable-pip-version-check", "-q",
                            *words[1:]], check=True, cwd=folder)
        elif words[:2] == ["jupyter", "lab"]:
            continue  # the page ends by opening JupyterLab; here we execute instead
        else:
            pytest.fail(f"the run-locally page has a command this test does not know: {cmd}")
    assert env_dir is not None
    if request.param == "oldest":
        pins = _floors(folder / "requirements.txt")
        assert any(p.startswith("matplotlib==") for p in pins), pins
        subprocess.run([str(env_dir / "bin" / "pip"), "--disable-pip-version-check", "-q",
                        "install", *pins], check=True, cwd=folder)
    # nothing from the repository may leak in: kmlib must come from the wheel
    probe = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                            "import kmlib, sys; print(kmlib.__file__)"],
                           capture_output=True, text=True, check=True, cwd=folder)
    assert str(ROOT) not in probe.stdout, f"kmlib imported from the repository: {probe.stdout}"
    return folder, env_dir


def _notebooks() -> list[str]:
    if not ZIP.is_file():
        return []
    with zipfile.ZipFile(ZIP) as zf:
        return sorted(n.split("/", 1)[1] for n in zf.namelist() if n.endswith(".ipynb"))


def _execute(folder: Path, env_dir: Path, name: str, allow_errors: bool):
    out = folder / "executed"
    cmd = [str(env_dir / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
           "--ExecutePreprocessor.timeout=600", "--output-dir", str(out / Path(name).parent),
           str(folder / name)]
    if allow_errors:
        cmd.insert(5, "--allow-errors")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}   # inline figures
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=folder / Path(name).parent,
                            env=env)
    assert result.returncode == 0, f"{name} failed:\n{result.stderr[-3000:]}"
    return nbformat.read(out / name, as_version=4)


@pytest.mark.parametrize("name", [n for n in _notebooks() if n.startswith("chapters/")])
def test_chapter_notebook_runs_in_a_fresh_environment(student_env, name):
    folder, env_dir = student_env
    nb = _execute(folder, env_dir, name, allow_errors=False)
    built = nbformat.read(folder / name, as_version=4)   # executed by the book's build

    def images(notebook) -> int:
        return sum("image/png" in o.get("data", {}) for c in notebook.cells
                   if c.cell_type == "code" for o in c.get("outputs", []))

    # every figure is drawn (matplotlib 3.8 silently lost the first one of each notebook)
    assert images(nb) >= 1 and images(nb) == images(built), (
        f"{name}: {images(nb)} figures drawn, the book has {images(built)}")


@pytest.mark.parametrize("name", [n for n in _notebooks() if n.startswith("exercises/")])
def test_exercise_notebook_fails_only_where_the_student_has_work(student_env, name):
    folder, env_dir = student_env
    nb = _execute(folder, env_dir, name, allow_errors=True)
    errors = [o.get("ename") for c in nb.cells if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors, "a student notebook in which nothing is left to do"
    unexpected = [e for e in errors if e not in {"NotImplementedError", "AssertionError"}]
    assert not unexpected, f"{name}: errors other than the exercise stubs and checks: {unexpected}"
