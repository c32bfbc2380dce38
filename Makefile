# Kernel Methods — executable course notes.
#   make book   build the website into _build/html (creates .venv on first use)
#   make test   run every test: kmlib, notebooks (each executed once), exercises, stated
#               numbers, grading, site (the site checks skip without a build)
#   make test-lib   the library's tests only (-m lib: kmlib and kmlib.book's helpers; no
#               notebook, no site, no grading): the quick loop while changing kmlib
#   make test-ci    what CI runs after make book: make test, but a notebook the book build
#               has just executed with the same code passes on that execution
#   make lock   regenerate constraints.txt (every package version of the book and test
#               extras) from a fresh resolve in a throwaway venv; commit the result
#   make notebooks   plain .ipynb of every chapter and exercise sheet (student version)
#                    into _build/notebooks/ (builds the book first)
#   make lab    open JupyterLab on _build/notebooks/ (works as root too)
#   make exercises   the handouts: plain student and solution notebooks of every sheet
#                    (the site's downloads) into _build/exercises/ (builds the book first)
#   make grade SUBMISSIONS=dir   grade the students' notebooks in dir (grades.csv,
#                    summary.csv, report.html, feedback/) in a bubblewrap sandbox; options
#                    SHEET=exercises/NN_x.md TIMEOUT=120 JOBS=1
#   make bench  benchmark kmlib against scikit-learn (writes benchmarks/results.md), the
#               kernel PCA and two-sample/independence tests (results_unsupervised.md) and
#               streamed RFF and Nystroem ridge on a million points (results_large_scale.md)
#               and Nystroem ridge on a Dask LocalCluster against the in-memory fit
#               (results_dask.md)
#   make slides   one offline reveal.js deck per chapter, from the built pages, into
#               _build/slides/ (after make book; installs reveal.js with npm)
#   make typecheck   mypy on kmlib (the library; not kmlib/book)
#   make lighthouse   Lighthouse (mobile) on every page of _build/html, one line each
#   make bench-grading   make grade on a class of 20 notebooks of sheet 4 with JOBS=1 and
#               JOBS=2: wall time, load and marks (needs bubblewrap)
#   make pdf    the book as a PDF, _build/latex/book.pdf (needs TeX, see README; reuses the
#               execution cache of make book; SOLUTIONS=hide: without solutions, into
#               _build/hidden/_build/latex/book.pdf)
#   make clean  remove build output and caches (keeps .venv)
# Options: SOLUTIONS=hide builds the site without exercise solutions; it is the same
# as make book-hidden, which builds it into its own folder _build/hidden/_build/html.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SOLUTIONS ?= show
JB_FLAGS := -W -n --keep-going
# Installs into .venv take every version from constraints.txt (make lock refreshes it), so
# the book builds next year with the packages it was checked with.
PIP_INSTALL := $(BIN)/python -m pip install -q -c constraints.txt
PYTEST := $(BIN)/python -m pytest

.PHONY: book book-hidden test test-lib test-ci lock lab notebooks exercises bench clean check-site check-downloads distclean pdf tex typecheck lighthouse slides bench-grading

$(BIN)/python:
	@echo "== creating the virtual environment $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-book: pyproject.toml constraints.txt | $(BIN)/python
	@echo "== installing kmlib and the book's packages into $(VENV) (first run: a few minutes)"
	$(PIP_INSTALL) -e '.[book]'
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt $(VENV)/.installed-book
	@echo "== installing the test tools into $(VENV)"
	$(PIP_INSTALL) -e '.[book,test]'
	touch $@

$(VENV)/.installed-lab: pyproject.toml $(VENV)/.installed-book
	@echo "== installing JupyterLab into $(VENV) (first run: a minute or two)"
	$(BIN)/python -m pip install -q -e '.[book,lab]'
	touch $@

ifeq ($(SOLUTIONS),hide)
book: book-hidden
else
book: $(VENV)/.installed-book
	@echo "== building the website into _build/html"
	$(BIN)/jupyter-book build $(JB_FLAGS) .
endif

# The site a lecturer publishes while a course runs: built from a copy of the book whose
# exercise pages are the student versions, into its own folder _build/hidden/.
book-hidden: $(VENV)/.installed-book
	@echo "== building the website without solutions into _build/hidden/_build/html"
	$(BIN)/python scripts/hidden_site.py --out _build/hidden
	$(BIN)/jupyter-book build $(JB_FLAGS) --path-output _build/hidden _build/hidden/src

# The PDF: xelatex through sphinx-jupyterbook-latex, in the same _build/ as the website, so
# notebooks that make book executed are taken from its cache, not run again.
TEX_PACKAGES := texlive-xetex texlive-latex-extra texlive-fonts-recommended latexmk xindy fonts-freefont-otf poppler-utils
tex:
	@command -v xelatex >/dev/null && command -v latexmk >/dev/null && command -v xindy >/dev/null \
	  && fc-list | grep -q FreeSerif \
	  || { echo "make pdf needs TeX and the FreeFont fonts; on Debian/Ubuntu (as root):"; \
	       echo "  apt-get install --no-install-recommends $(TEX_PACKAGES)"; exit 1; }

ifeq ($(SOLUTIONS),hide)
pdf: tex $(VENV)/.installed-book
	@echo "== building the PDF without solutions into _build/hidden/_build/latex/book.pdf"
	$(BIN)/python scripts/hidden_site.py --out _build/hidden
	$(BIN)/jupyter-book build $(JB_FLAGS) --builder pdflatex --path-output _build/hidden _build/hidden/src
else
pdf: tex $(VENV)/.installed-book
	@echo "== building the PDF into _build/latex/book.pdf"
	$(BIN)/jupyter-book build $(JB_FLAGS) --builder pdflatex .
endif

notebooks: book
	@echo "== plain notebooks into _build/notebooks"
	rm -rf _build/notebooks
	$(BIN)/python -c "import zipfile; zipfile.ZipFile('_build/html/downloads/kmbook-notebooks.zip').extractall('_build')"
	mv _build/kmbook-notebooks _build/notebooks
	@echo "== wrote _build/notebooks (open it with: make lab)"

RUFF = $(BIN)/ruff check kmlib tests scripts _ext benchmarks conftest.py

test: $(VENV)/.installed-test
	$(RUFF)
	$(PYTEST) --notebooks -q -rs

test-lib: $(VENV)/.installed-test
	$(PYTEST) -m lib -q tests

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# CI builds the book first (make book), then runs this: the notebooks the build executed
# with the same code, after the last change to them and to kmlib, are not run again; the
# site tests are left to make check-site and the PDF checks, which run after the builds.
test-ci: $(VENV)/.installed-test
	$(RUFF)
	$(PYTEST) --notebooks --notebooks-from-build=_build -m "not site" -q -rs

# constraints.txt: a fresh resolve of kmlib's dependencies and the book and test extras
# (newest versions pyproject.toml allows) in a throwaway venv, frozen (needs Python >= 3.11
# for tomllib; kmlib itself is not installed there, so nothing is built in the tree). Run it after changing a pin in pyproject.toml
# and commit constraints.txt; make test and make book then install exactly these versions.
LOCK_VENV := _build/lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --upgrade pip
	$(LOCK_VENV)/bin/python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
	  print('\n'.join(p['dependencies'] + p['optional-dependencies']['book'] + p['optional-dependencies']['test']))" \
	  > $(LOCK_VENV)/requirements.txt
	$(LOCK_VENV)/bin/python -m pip install -q -r $(LOCK_VENV)/requirements.txt
	{ echo "# Every package of the book and test extras, as resolved by make lock ($$($(LOCK_VENV)/bin/python -V))."; \
	  echo "# Used with pip install -c by the Makefile and CI; refresh with: make lock"; \
	  $(LOCK_VENV)/bin/python -m pip freeze; } > constraints.txt
	rm -rf $(LOCK_VENV)
	@echo "== wrote constraints.txt; rm $(VENV)/.installed-* to reinstall from it"

# The site checks need `make book` and `make book-hidden` first (and Chromium for the browser
# checks: apt-get install chromium); without them those tests are skipped, with the reason.
# The accessibility and layout checks (tests/test_accessibility.py) also need Node.js and
# the packages of .ci/a11y/package.json: cd .ci/a11y && npm ci
# They run in a second pytest process beside the other site checks (one Chromium driven by
# Node there, the HTML checks and one Chromium per page here), their output printed after
# the others'; the target fails if either fails.
SITE_CHECKS := tests/test_site.py tests/test_hidden_site.py tests/test_downloads.py \
  tests/test_plain_notebook.py tests/test_exercises.py::test_make_exercises_hands_out_the_sites_plain_notebooks \
  tests/test_no_answers_shipped.py tests/test_slides.py \
  tests/test_grading.py::test_hidden_checks_do_not_reach_the_solution_free_site
check-site: $(VENV)/.installed-test
	@mkdir -p _build
	@$(PYTEST) tests/test_accessibility.py -q -rs > _build/check-site-a11y.log 2>&1 & a11y=$$!; \
	echo "== tests/test_accessibility.py in the background (output in _build/check-site-a11y.log)"; \
	echo "$(PYTEST) $(SITE_CHECKS) -q -rs"; \
	$(PYTEST) $(SITE_CHECKS) -q -rs; rc=$$?; \
	wait $$a11y; rc_a11y=$$?; \
	echo "== tests/test_accessibility.py (ran beside the checks above):"; cat _build/check-site-a11y.log; \
	test $$rc = 0 && test $$rc_a11y = 0

# Slow: installs the downloads of the run-locally page in a fresh venv and runs every notebook,
# once with the newest packages and once with the oldest the requirements allow. The two
# environments are independent: the oldest runs in a second pytest process beside the newest
# (its output printed after); exit status 5 (no test selected: no site to test) counts as a pass.
check-downloads: $(VENV)/.installed-test
	@mkdir -p _build
	@KMBOOK_RUN_LOCALLY=1 $(PYTEST) tests/test_run_locally.py -q -rs -k oldest \
	  > _build/check-downloads-oldest.log 2>&1 & oldest=$$!; \
	echo "== the oldest packages in the background (output in _build/check-downloads-oldest.log)"; \
	echo "KMBOOK_RUN_LOCALLY=1 $(PYTEST) tests/test_run_locally.py -q -rs -k newest"; \
	KMBOOK_RUN_LOCALLY=1 $(PYTEST) tests/test_run_locally.py -q -rs -k newest; rc=$$?; \
	wait $$oldest; rc_oldest=$$?; \
	echo "== the oldest packages (ran beside the newest):"; cat _build/check-downloads-oldest.log; \
	{ test $$rc = 0 || test $$rc = 5; } && { test $$rc_oldest = 0 || test $$rc_oldest = 5; }

exercises: book
	rm -rf _build/exercises
	$(BIN)/python scripts/make_exercises.py --from-site _build --out _build/exercises

# The slide decks: one reveal.js file per chapter, _build/slides/NN_name.html, made from the
# chapter pages of make book (nothing runs again; run make book first), reveal.js 6.0.2 from
# .ci/slides/package-lock.json inlined, so a deck opens offline. ?print-pdf prints it.
slides: .ci/slides/node_modules/.installed $(VENV)/.installed-book
	@test -f _build/html/index.html || { echo "make slides needs the website: run make book first"; exit 1; }
	$(BIN)/python scripts/make_slides.py --html _build/html --out _build/slides

.ci/slides/node_modules/.installed: .ci/slides/package-lock.json
	cd .ci/slides && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Grade a folder of submitted notebooks (one per student); see scripts/grade.py.
.PHONY: grade
TIMEOUT ?= 120
JOBS ?= 1
grade: $(VENV)/.installed-book
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=dir [SHEET=exercises/NN_name.md] [TIMEOUT=120] [JOBS=1]"; exit 2; }
	$(BIN)/python scripts/grade.py "$(SUBMISSIONS)" --timeout $(TIMEOUT) --jobs $(JOBS) \
	  $(if $(SHEET),--sheet "$(SHEET)",)

lab: $(VENV)/.installed-lab
	@test -d _build/notebooks || $(MAKE) notebooks
	$(BIN)/jupyter lab --notebook-dir=_build/notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/bench_kmlib.py
	$(BIN)/python benchmarks/bench_unsupervised.py
	$(BIN)/python benchmarks/bench_large_scale.py
	$(BIN)/python benchmarks/bench_dask.py

# make grade on a class of 20 notebooks of sheet 4 (solutions, stubs, hostile), JOBS=1 and 2
bench-grading: $(VENV)/.installed-book
	$(BIN)/python benchmarks/bench_grading.py

clean:
	rm -rf _build .jupyter_cache .hypothesis .pytest_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info

# Lighthouse 12 (mobile, simulated throttling) on every page of the built site (make book
# first): scores, paints, blocking time and weight printed, with the machine's load (a
# busy machine lowers the performance score); `npm ci` in .ci/a11y installs it.
.PHONY: lighthouse
lighthouse:
	cd .ci/a11y && CHROME_PATH=$${CHROME_PATH:-/usr/bin/chromium} node lighthouse.mjs --all ../../_build/html
