"""The packages a student installs: one floor, one line per package, from any folder."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import kmbook
import pytest

try:
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SITE_REQUIREMENTS = ROOT / "_build" / "html" / "downloads" / "requirements.txt"


def _floor(spec: str) -> tuple[int, ...] | None:
    m = re.search(r">=\s*([\d.]+)", spec)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def _spec(name: str, specs: list[str]) -> str:
    found = [s for s in specs if kmbook._requirement_name(s) == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]


def test_matplotlib_floor_is_3_9():
    """matplotlib 3.8 silently drops the first inline figure of every chapter notebook."""
    spec = _spec("matplotlib", PROJECT["optional-dependencies"]["notebooks"])
    assert _floor(spec) is not None and _floor(spec) >= (3, 9), spec


def test_the_notebooks_extra_does_not_repeat_a_core_dependency():
    core = {kmbook._requirement_name(s) for s in PROJECT["dependencies"]}
    extra = [kmbook._requirement_name(s) for s in PROJECT["optional-dependencies"]["notebooks"]]
    assert len(extra) == len(set(extra)) and not core & set(extra)


def test_requirements_list_each_package_once_and_find_the_wheel_next_to_them():
    text = kmbook._requirements(ROOT, Path("kmlib-0.1.0-py3-none-any.whl"))
    specs = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert specs[0] == "--find-links ." and specs[1] == "kmlib[notebooks]==0.1.0"
    names = [kmbook._requirement_name(s) for s in specs[1:]]
    assert len(names) == len(set(names)), names
    assert _floor(_spec("matplotlib", specs)) >= (3, 9)
    assert not any(s.startswith(("./", "/")) or ".whl" in s for s in specs), (
        "a path to the wheel is read relative to the current folder, not to the file")


@pytest.mark.skipif(not SITE_REQUIREMENTS.is_file(), reason="no website build (run `make book`)")
def test_built_requirements_work_from_another_folder(tmp_path):
    """pip finds the wheel through the file's own folder, run from anywhere (offline check).

    The downloads folder is copied with its requirements up to the kmlib line (the other
    packages would need the package index).
    """
    import shutil

    folder, elsewhere = tmp_path / "kmbook-notebooks", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    for wheel in SITE_REQUIREMENTS.parent.glob("kmlib-*.whl"):
        shutil.copy2(wheel, folder)
    lines = SITE_REQUIREMENTS.read_text(encoding="utf-8").splitlines()
    upto = next(i for i, ln in enumerate(lines) if ln.startswith("kmlib"))
    (folder / "requirements.txt").write_text("\n".join(lines[:upto + 1]) + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-index", "-q",
         "--disable-pip-version-check", "-d", str(elsewhere / "got"),
         "-r", "../kmbook-notebooks/requirements.txt"],
        cwd=elsewhere, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert list((elsewhere / "got").glob("kmlib-*.whl"))


def test_run_locally_page_says_run_all_stops_at_the_first_stub():
    text = " ".join((ROOT / "running.md").read_text(encoding="utf-8").split())
    assert '"Run All"' in text and "stops at the first exercise" in text
    assert "NotImplementedError" in text
