"""Nothing that ships to students holds a solution or a reference computation.

What ships: the ``kmlib`` wheel (the site's download, the zip's copy and ``pip install``),
the student notebooks (``make_exercises.py``'s student versions, the site's plain
downloads, ``make exercises``' handouts), the zip of every notebook, and the site built
without solutions (``make book-hidden``). The lecturer keeps the sheets' solutions
(``exercises/*.md``) and the full checks (``scripts/_grading/reference/``).

**What is searched for.**

* *Solution lines*: each line of every code cell of a sheet that the student version
  replaces by a stub (cells tagged ``solution``, or inside ``{solution-start}`` ...
  ``{solution-end}``), without its trailing comment and with its white space squashed.
  Left out, as no solution: blank and comment lines, imports, ``print(...)`` lines, the
  heads of ``for`` loops (``for j, lam in enumerate(lams):``), lines shorter than 25
  characters (``K = X @ X.T``, ``n = 400``: too common to say anything), and lines that
  the student version of a sheet or a chapter shows anyway (the data of an exercise stated
  in its text, ``sigma2 = 1.0``, the standardisation that sheet 2's setup cell shows and
  sheet 1 asks for).
* *Reference computations*: each statement that makes a value (assignment, ``return``,
  expression) in the functions of ``scripts/_grading/reference/ch*.py``, white space
  squashed, of at least 25 characters. Left out, as no computation: docstrings, ``raise``,
  ``assert`` and ``print``; the tests of ``if`` and ``while`` and the heads of ``for``
  loops, and ``return`` of a comparison (tests of an answer, which the self-checks may
  share: ``abs(np.linalg.norm(a) - 1.0) > 1e-8``); strings (the messages, which the
  self-checks share on purpose); coercions of an argument, data on a fixed grid or from a
  seed, calls of a data function and the choice of an index (``answer_array(...)``,
  ``np.asarray(X, dtype=float)``, ``sheet_sets() if S is None else S``,
  ``np.linspace(0.0, 4.0, 81)``: calls of those and of methods such as ``reshape`` on
  names and constants, without arithmetic); statements that are also in a data function of
  a shipped module (``finite_data`` rebuilds what the reference rebuilds); and, as for
  solution lines, what a sheet's student version or a chapter shows.

**How.** Each shipped file is read as text (HTML without its tags, notebooks as their
sources and outputs, zip and wheel archives member by member), white space squashed, and
searched for every fingerprint; Python files (and notebooks' code cells) are also parsed and
compared statement by statement after ``ast.unparse``, so a reformatted copy is found too.
The library outside ``kmlib/book/exercises`` may hold a line equal to a fingerprint only
where ``LIBRARY_LINES`` says why. Controls show that the
search finds what it looks for: the solution notebooks hold the solution lines, the
reference modules their computations.

The wheel is built here (or taken from the site build's cache when it is current) and the
student notebooks are generated here. The site's zip, its downloads, the handouts of
``make exercises`` and the solution-free site exist only after ``make book``, ``make
exercises`` and ``make book-hidden``: those tests skip without them, and CI runs them in
``make check-site``.
"""
from __future__ import annotations

import ast
import html
import io
import os
import re
import tokenize
import zipfile
from pathlib import Path

import make_exercises
import pytest
from _notebooks import ROOT, file_texts, myst_notebooks, read, squash

REFERENCE = ROOT / "scripts" / "_grading" / "reference"
SHIPPED = ROOT / "kmlib" / "book" / "exercises"
SHEETS = myst_notebooks("exercises")
BUILD = ROOT / "_build"
SITE = Path(os.environ.get("KMBOOK_SITE", BUILD / "html"))
HIDDEN = Path(os.environ.get("KMBOOK_HIDDEN_SITE", BUILD / "hidden" / "_build" / "html"))
MIN_LENGTH = 25
SOLUTION_OPEN = re.compile(r"^[`:]{3,}\{solution-start\}")
SOLUTION_CLOSE = re.compile(r"^[`:]{3,}\{solution-end\}")
# calls that only coerce an argument or fetch data (no computation in them)
COERCIONS = {"answer_array", "answer_scalar", "asarray", "array", "float", "int", "bool", "str",
             "len", "list", "tuple", "isinstance", "reshape", "astype", "ravel", "copy",
             "_inputs", "_data", "_matrix", "_design", "_sets", "_points_1d",
             "_sphere_points", "_validate_intercept_data",
             # data on a fixed grid or from a seed, and picking an index
             "linspace", "logspace", "arange", "eye", "zeros", "ones", "default_rng",
             "standard_normal", "uniform", "random", "argmin", "argmax", "unravel_index"}
# A line of the library itself (outside kmlib/book/exercises) that equals a fingerprint
# belongs to the library's own methods, which the chapters document; each is listed with
# the reason it may ship.
LIBRARY_LINES = {
    ("return (1.0 + t) * np.exp(-t)", "kmlib/kernels/vector.py"):
        "kmlib.kernels' Matern 3/2 kernel, in chapter 4's catalogue; the sheet asks to derive "
        "the closed form, and its check (any time) cannot tell a derived one from a copied one",
}
# A statement that a self-check and the full check (or a solution) share on purpose: data or
# a grid that the exercise statement itself gives, or a property both evaluate by a formula
# the statement states. Each is listed with the reason it may ship.
SHARED_LINES = {
    "Z = kernels.empirical_feature_map(K)":
        "sheet 6: both whiten K (a library call) to evaluate the Newton decrement / objective",
    "ells, lams = np.logspace(-2, 0, 15), np.logspace(-8, 0, 17)":
        "sheet 7: the tuning grid, given in the exercise statement",
    "X0, y0, _ = datasets.sine_and_square(40, 0.1, random_state=rng)":
        "sheet 7: the sheet's training data, rebuilt from the seed the statement gives",
    "X1, _, y1 = datasets.sine_and_square(40, 0.1, random_state=rng)":
        "sheet 7: the sheet's training data, rebuilt from the seed the statement gives",
    "var_sum = np.array([np.sum(mu**2 / (mu + g) ** 2) for g in gammas])":
        "sheet 7: the risk formula of the statement; the self-check evaluates it on a coarse "
        "grid of 33 gammas as an upper bound, the full check minimises it",
    "bias = 0.5 * gammas**2 / (mu[0] + gammas) ** 2":
        "sheet 7: the bias term of the statement's formula, as above",
    "d = np.arange(0, L + 1e-9, 0.005)":
        "sheet 9: the grid of differences the statement names",
    "gram = np.maximum(0.0, 1.0 - (pts[:, None] - pts[None, :]) ** 2)":
        "sheet 9: the Gram matrix of the student's own points, with the function the statement "
        "defines; both checks verify the student's counterexample with it",
}
BINARY = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".woff", ".woff2", ".ttf", ".eot", ".ico",
          ".pickle", ".doctree", ".pyc", ".npy", ".npz", ".pdf"}


def _without_comment(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` inside a string stays)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return line
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            return line[:tok.start[1]]
    return line


# --------------------------------------------------------------------------- #
# what is searched for
# --------------------------------------------------------------------------- #
def _chapters_text() -> str:
    return squash(" ".join(p.read_text(encoding="utf-8") for p in myst_notebooks("chapters")))


def _shown(sheet: Path) -> str:
    """What the student version of ``sheet`` shows anyway (statements, setup, checks)."""
    student = make_exercises.student_version(read(sheet))
    return squash(" ".join(c.source for c in student.cells))


def solution_cells(sheet: Path) -> list[str]:
    """The sources of the code cells that the student version of ``sheet`` replaces."""
    cells, inside = [], False
    for cell in read(sheet).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if SOLUTION_OPEN.match(line):
                    inside = True
                elif SOLUTION_CLOSE.match(line):
                    inside = False
        elif make_exercises.SOLUTION_TAG in cell.metadata.get("tags", []) or inside:
            cells.append(cell.source)
    return cells


def solution_lines(sheet: Path, shown: str) -> list[str]:
    """The solution lines of ``sheet`` (see the module docstring for what is left out);
    ``shown``: the text of the chapters and of every sheet's student version."""
    found = set()
    for source in solution_cells(sheet):
        for raw in source.splitlines():
            line = squash(_without_comment(raw))
            if (len(line) < MIN_LENGTH or line in shown
                    or line.startswith(("import ", "from ", "print(", "#"))
                    or (line.startswith("for ") and line.endswith(":"))):
                continue
            found.add(line)
    return sorted(found)


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_plain(node: ast.AST, allowed: set[str]) -> bool:
    """Whether the expression only names, coerces or fetches data: no arithmetic, and calls
    only of ``allowed`` functions and methods."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.BinOp, ast.Lambda)):
            return False
        if isinstance(sub, ast.UnaryOp) and not isinstance(sub.operand, ast.Constant):
            return False
        if isinstance(sub, ast.Call) and _dotted(sub.func) not in allowed:
            return False
    return True


def _is_text(node: ast.AST) -> bool:
    """A string, an f-string or a sum of them (a message)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _is_text(node.left) and _is_text(node.right)
    if isinstance(node, ast.IfExp):
        return _is_text(node.body) and _is_text(node.orelse)
    return False


def _statements(tree: ast.AST, source: str):
    """(text, unparsed) of every statement under ``tree`` that may be a computation."""
    lines = source.splitlines()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.If, ast.While)):
            header = node.test
        elif isinstance(node, ast.For):
            header = node.iter
        elif isinstance(node, (ast.With, ast.Try)):
            continue
        else:
            header = None
        if header is not None:
            text = "\n".join(lines[node.lineno - 1:node.body[0].lineno - 1]) or \
                lines[node.lineno - 1]
            yield node, header, squash(text), ast.unparse(header)
        else:
            yield node, None, squash(ast.get_source_segment(source, node) or ""), \
                ast.unparse(node)


def _trivial(node: ast.stmt, header: ast.AST | None, allowed: set[str]) -> bool:
    if header is not None:           # the test of an if or while, a for loop: no value made
        return True
    if isinstance(node, (ast.Raise, ast.Assert, ast.Import, ast.ImportFrom, ast.Pass,
                         ast.Break, ast.Continue, ast.Global, ast.Nonlocal)):
        return True
    if isinstance(node, ast.Return):
        return (node.value is None or _is_plain(node.value, allowed)
                or isinstance(node.value, (ast.Compare, ast.BoolOp)))   # a test
    if isinstance(node, ast.Expr):
        value = node.value
        return (_is_text(value) or (isinstance(value, ast.Call) and _dotted(value.func) == "print"))
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        value = node.value
        return value is None or _is_text(value) or _is_plain(value, allowed)
    return False


def _data_functions() -> tuple[set[str], set[str]]:
    """Names and statement texts of the data functions of the shipped modules: their public
    functions other than the checks."""
    names, texts = set(), set()
    for path in sorted(SHIPPED.glob("ch*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith(("check_", "_")):
                names.add(node.name)
                for _, _, text, unparsed in _statements(node, source):
                    texts |= {text, unparsed}
    return names, texts


def reference_computations(path: Path, shown: str) -> list[tuple[str, str]]:
    """(squashed text, unparsed statement) of the computations of one reference module."""
    source = path.read_text(encoding="utf-8")
    data_names, data_texts = _data_functions()
    allowed = COERCIONS | data_names
    found = set()
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for stmt, header, text, unparsed in _statements(node, source):
            if (len(text) < MIN_LENGTH or _trivial(stmt, header, allowed)
                    or text in data_texts or unparsed in data_texts or text in shown):
                continue
            found.add((text, unparsed))
    return sorted(found)


@pytest.fixture(scope="module")
def fingerprints() -> dict[str, list]:
    """``{"solution": [(sheet, line)], "reference": [(module, text, unparsed)]}``."""
    shown = _chapters_text() + " " + " ".join(_shown(s) for s in SHEETS)
    solutions = [(s.name, line) for s in SHEETS for line in solution_lines(s, shown)]
    references = [(p.name, text, unparsed) for p in sorted(REFERENCE.glob("ch*.py"))
                  for text, unparsed in reference_computations(p, shown)
                  if text not in SHARED_LINES and unparsed not in SHARED_LINES]
    solutions = [(s, line) for s, line in solutions if squash(line) not in SHARED_LINES]
    return {"solution": solutions, "reference": references}


# --------------------------------------------------------------------------- #
# where it is searched for
# --------------------------------------------------------------------------- #
def texts(name: str, data: bytes):
    """(name, squashed text, Python sources) of a file: for a notebook its code cells, for a
    ``.py`` file its text, else none; archives (zip and wheel) member by member."""
    yield from file_texts(name, data, archives=(".zip", ".whl"), skip=BINARY)


def _unparsed_statements(sources: list[str]) -> set[str]:
    """``ast.unparse`` of every statement and loop or test header of Python sources (a
    source that does not parse, such as a cell with a magic, is skipped)."""
    out: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        out |= {unparsed for _, _, _, unparsed in _statements(tree, source)}
    return out


def leaks(files: list[tuple[str, str, list[str]]], prints: dict) -> list[tuple[str, str, str]]:
    """(kind, fingerprint, file) of every fingerprint found in ``files``."""
    found = []
    for name, text, sources in files:
        statements = _unparsed_statements(sources)
        for sheet, line in prints["solution"]:
            if line in text and not _library_line(line, name):
                found.append((f"solution line of {sheet}", line, name))
        for module, line, unparsed in prints["reference"]:
            if (line in text or unparsed in statements) and not _library_line(line, name):
                found.append((f"reference computation of {module}", line, name))
    return found


def _library_line(line: str, name: str) -> bool:
    """Whether ``line`` in the file ``name`` is a line of the library listed in LIBRARY_LINES."""
    path = name.rsplit("!", 1)[-1]
    return any(line == known and path.endswith(where) for known, where in LIBRARY_LINES)


def _folder(folder: Path, pattern: str = "*") -> list[tuple[str, str, list[str]]]:
    out = []
    for path in sorted(folder.rglob(pattern)):
        if path.is_file() and "mathjax" not in path.parts:
            out += list(texts(str(path.relative_to(folder)), path.read_bytes()))
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """kmlib's wheel: the site build's, when it was built from this kmlib, else a new one."""
    import kmbook

    cached = sorted((BUILD / "wheel-cache" / kmbook._kmlib_digest(ROOT)).glob("kmlib-*.whl"))
    if cached:
        return cached[-1]
    return kmbook._wheel(ROOT, tmp_path_factory.mktemp("wheel-cache"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[tuple[Path, Path]]:
    """(solution, student) notebooks of every sheet, as ``make_exercises.py`` writes them."""
    return make_exercises.generate(tmp_path_factory.mktemp("exercises"), SHEETS)


# --------------------------------------------------------------------------- #
# the fingerprints and the search work
# --------------------------------------------------------------------------- #
def test_every_sheet_and_reference_module_has_fingerprints(fingerprints):
    sheets = {sheet for sheet, _ in fingerprints["solution"]}
    assert sheets == {s.name for s in SHEETS}
    modules = {module for module, _, _ in fingerprints["reference"]}
    assert modules == {p.name for p in REFERENCE.glob("ch*.py")}
    assert len(modules) >= 5


def test_the_search_finds_solutions_in_the_solution_notebooks(fingerprints, generated):
    """Control: the solution notebooks hold nearly every solution line (the rest are lines
    of hidden solution cells whose text the conversion keeps but reflows)."""
    files = [f for solution, _ in generated for f in texts(solution.name, solution.read_bytes())]
    found = {line for kind, line, _ in leaks(files, fingerprints) if kind.startswith("solution")}
    lines = [line for _, line in fingerprints["solution"]]
    assert len(found) >= 0.95 * len(lines), sorted(set(lines) - found)[:10]


def test_the_search_finds_reference_computations_in_the_reference_modules(fingerprints):
    """Control: each reference module holds its computations, as text and as statements."""
    files = [f for p in sorted(REFERENCE.glob("ch*.py")) for f in texts(p.name, p.read_bytes())]
    found = {(name, line) for kind, line, name in leaks(files, fingerprints)
             if kind.startswith("reference")}
    for module, line, _ in fingerprints["reference"]:
        assert (module, line) in found, (module, line)


def test_a_planted_reference_line_is_found(fingerprints):
    """Control: one reference computation pasted into a copy of a shipped checker is found,
    and so is the same statement reformatted."""
    module, line, unparsed = next(f for f in fingerprints["reference"] if f[0] == "ch05.py")
    shipped = (SHIPPED / "ch05.py").read_text(encoding="utf-8")
    assert not leaks(list(texts("ch05.py", shipped.encode())), fingerprints)
    planted = shipped + f"\n\ndef _planted():\n    {unparsed}\n"
    assert leaks(list(texts("ch05.py", planted.encode())), fingerprints)
    wrapped = unparsed.replace(", ", ",\n        ", 1)
    assert wrapped != unparsed
    planted = shipped + f"\n\ndef _planted():\n    {wrapped}\n"
    assert leaks(list(texts("ch05.py", planted.encode())), fingerprints)


def test_the_search_reads_pages_archives_and_notebooks(fingerprints, tmp_path):
    """Control for the build-dependent tests: a solution line highlighted in an HTML page
    (one span per token, as Pygments writes it) and a reference computation in a notebook
    inside a zip are found in a folder laid out like the site."""
    import nbformat

    _, line = fingerprints["solution"][0]
    module, computation, _ = fingerprints["reference"][0]
    spans = " ".join(f'<span class="n">{html.escape(t)}</span>' for t in line.split(" "))
    site = tmp_path / "site"
    (site / "exercises").mkdir(parents=True)
    (site / "exercises" / "page.html").write_text(f"<html><pre>{spans}</pre></html>")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1\n" + computation)])
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("kmbook-notebooks/exercises/sheet.ipynb", nbformat.writes(nb))
    (site / "downloads").mkdir()
    (site / "downloads" / "kmbook-notebooks.zip").write_bytes(archive.getvalue())
    found = {(kind.split(" of ")[0], name) for kind, _, name in leaks(_folder(site), fingerprints)}
    assert found == {("solution line", "exercises/page.html"),
                     ("reference computation",
                      "downloads/kmbook-notebooks.zip!kmbook-notebooks/exercises/sheet.ipynb")}


# --------------------------------------------------------------------------- #
# what ships
# --------------------------------------------------------------------------- #
def test_the_wheel_holds_kmlib_only(wheel):
    """No lecturer's file in the wheel: only the package and its metadata."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    assert any(n.startswith("kmlib/book/exercises/ch01.py") for n in names)
    outside = [n for n in names if not n.startswith(("kmlib/", "kmlib-"))]
    assert not outside, outside
    assert not [n for n in names if "_grading" in n or "reference" in Path(n).parts]


def test_no_solution_or_reference_computation_in_the_wheel(wheel, fingerprints):
    files = list(texts(wheel.name, wheel.read_bytes()))
    assert any(name.endswith("exercises/ch05.py") for name, _, _ in files)
    found = leaks(files, fingerprints)
    assert not found, "\n".join(map(str, found[:40]))


def test_no_solution_or_reference_computation_in_the_student_notebooks(generated, fingerprints):
    files = [f for _, student in generated for f in texts(student.name, student.read_bytes())]
    assert len(files) == len(SHEETS)
    found = leaks(files, fingerprints)
    assert not found, "\n".join(map(str, found[:40]))


@pytest.mark.skipif(not (SITE / "downloads").is_dir(), reason="no website build (make book)")
def test_no_solution_or_reference_computation_in_the_sites_downloads(fingerprints):
    """The zip of every notebook (student versions of the sheets, the wheel), the wheel and
    the plain notebooks the pages offer."""
    files = _folder(SITE / "downloads") + _folder(SITE / "_sources", "*.ipynb")
    assert any(name.endswith(".zip!kmbook-notebooks/exercises/01_ridge.ipynb")
               for name, _, _ in files)
    found = leaks(files, fingerprints)
    assert not found, "\n".join(map(str, found[:40]))


@pytest.mark.skipif(not (BUILD / "exercises" / "student").is_dir(),
                    reason="no handouts (make exercises)")
def test_no_solution_or_reference_computation_in_the_handouts(fingerprints):
    files = _folder(BUILD / "exercises" / "student")
    assert files
    found = leaks(files, fingerprints)
    assert not found, "\n".join(map(str, found[:40]))


@pytest.mark.skipif(not (HIDDEN / "index.html").is_file(),
                    reason="no site without solutions (make book-hidden)")
def test_no_solution_or_reference_computation_in_the_solution_free_site(fingerprints):
    files = _folder(HIDDEN)
    assert any(name.startswith("_sources/exercises/") for name, _, _ in files)
    found = leaks(files, fingerprints)
    assert not found, "\n".join(map(str, found[:40]))
