"""The layout of kmlib: the library, and the book's helpers apart in kmlib.book.

References: the import statements of every module, read with ``ast`` (static), and the
modules a fresh interpreter has loaded after importing the library (dynamic).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold
from sklearn.model_selection import KFold as SkKFold

from kmlib import datasets, kernels
from kmlib import model_selection as ms

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "kmlib"
# private modules of the library that every kmlib module may import (public names only)
SHARED_PRIVATE = {"kmlib._validation", "kmlib._linalg", "kmlib._folds", "kmlib._typing",
                  "kmlib._estimator_inputs", "kmlib._blocks", "kmlib._ridge"}


def _modules():
    out = {}
    for f in sorted(PKG.rglob("*.py")):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        name = ".".join(parts)
        out[name] = (f, name if is_pkg else name.rsplit(".", 1)[0])
    return out


MODULES = _modules()


def _imports(name):
    """(target module, imported names) for every import in module ``name``, anywhere in it."""
    path, package = MODULES[name]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []


def _edges(name):
    for target, names in _imports(name):
        if not target.startswith("kmlib"):
            continue
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        yield from subs or [target]


def _is_book(name):
    return name == "kmlib.book" or name.startswith("kmlib.book.")


LIBRARY = [m for m in MODULES if not _is_book(m)]


def test_library_never_imports_the_book_statically():
    bad = [(m, t) for m in LIBRARY for t in _edges(m) if _is_book(t)]
    assert not bad, f"library modules importing kmlib.book: {bad}"


def test_library_never_imports_the_book_at_run_time():
    """A fresh interpreter that imports every library module has loaded no kmlib.book module."""
    code = ("import importlib, sys\n"
            f"for m in {sorted(LIBRARY)!r}:\n    importlib.import_module(m)\n"
            "print(sorted(k for k in sys.modules if k.startswith('kmlib.book')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert out == "[]", out


def test_no_import_cycle():
    """Depth-first search over the import graph (TYPE_CHECKING imports included)."""
    graph = {m: sorted(set(_edges(m)) & set(MODULES)) for m in MODULES}
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in graph[m]:
            if t == m or t in MODULES[m][1].split(".") or m.startswith(t + "."):
                continue          # a module's own package (its __init__) is not a cycle
            if state.get(t) == "open":
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in graph:
        if m not in state:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"


def test_no_import_of_another_packages_private_names():
    """A private name or private module is imported only inside its own package; the shared
    private modules of the library give their public names (only) to every kmlib module."""
    def package_of(target):
        is_pkg = target in MODULES and MODULES[target][0].name == "__init__.py"
        return target if is_pkg else target.rsplit(".", 1)[0]

    def inside(package, owner):
        return package == owner or package.startswith(owner + ".")

    bad = []
    for m in MODULES:
        package = MODULES[m][1]
        for target, names in _imports(m):
            if not target.startswith("kmlib."):
                continue
            shared = next((s for s in SHARED_PRIVATE if inside(target, s)), None)
            owner = shared or package_of(target)
            parts = target.split(".")
            private_at = next((k for k, p in enumerate(parts) if p.startswith("_")), None)
            if private_at is not None and shared is None:
                if not inside(package, ".".join(parts[:private_at])):
                    bad.append(f"{m}: private module {target}")
            if shared is not None and inside(package, shared):
                continue
            for n in names:
                if n.startswith("_") and (shared is not None or not inside(package, owner)):
                    bad.append(f"{m}: {target}.{n}")
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------------------- #
# one rule for folds: an int, any splitter, or index pairs
# --------------------------------------------------------------------------- #
X, Y, _ = datasets.linear_model(40, 4, random_state=3)
LAMS = np.array([0.1, 1.0, 10.0])
PAIRS = list(SkKFold(5).split(X))


@pytest.mark.parametrize("run", [
    lambda f: ms.cross_val_curve(X, Y, LAMS, folds=f),
    lambda f: ms.oof_predictions(X, Y, LAMS, folds=f),
    lambda f: ms.fold_errors(X, Y, LAMS, folds=f),
    lambda f: ms.cv_curves_batch(X[None], Y[None], LAMS, folds=f),
    lambda f: ms.StackedRidge(lams=LAMS, folds=f).fit(X, Y).coef_,
    lambda f: ms.krr_cv_path(kernels.gaussian(2.0)(X), Y, LAMS, folds=f),
    lambda f: ms.tune_krr(X, Y, kernels.gaussian, [1.0, 2.0], LAMS, folds=f)[1].cv,
], ids=["cross_val_curve", "oof_predictions", "fold_errors", "cv_curves_batch",
        "StackedRidge", "krr_cv_path", "tune_krr"])
def test_every_cv_function_takes_a_scikit_learn_splitter(run):
    """Reference: the same folds given as explicit index pairs."""
    np.testing.assert_array_equal(run(SkKFold(5)), run(PAIRS))


def test_int_folds_mean_kfold_with_random_state_zero_everywhere():
    """Reference: kmlib's KFold(v, shuffle=True, random_state=0) passed explicitly."""
    kf = ms.KFold(4, shuffle=True, random_state=0)
    np.testing.assert_array_equal(ms.cross_val_curve(X, Y, LAMS, folds=4),
                                  ms.cross_val_curve(X, Y, LAMS, folds=kf))


def test_group_folds_as_pairs_and_a_clear_error_without_groups():
    groups = np.repeat(np.arange(8), 5)
    pairs = list(GroupKFold(4).split(X, Y, groups))
    cv = ms.cross_val_curve(X, Y, LAMS, folds=pairs)
    assert cv.shape == LAMS.shape and np.all(np.isfinite(cv))
    with pytest.raises(ValueError, match="folds"):
        ms.cross_val_curve(X, Y, LAMS, folds=GroupKFold(4))
