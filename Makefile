# Kernel Methods — executable course notes.
#   make book   build the website into _build/html (creates .venv on first use)
#   make test   run every test: kmlib, notebooks (nbval), exercises, stated numbers, site
#   make lab    open the chapters in JupyterLab (MyST notebooks open as notebooks)
#   make exercises   write student and solution notebooks into _build/exercises/
#   make bench  benchmark kmlib against scikit-learn (writes benchmarks/results.md)
#   make clean  remove build output and caches (keeps .venv)
# Options: SOLUTIONS=hide builds the site without exercise solutions
# (make book-hidden does the same into _build/hidden/_build/html).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SOLUTIONS ?= show
JB_FLAGS := -W -n --keep-going

.PHONY: book book-hidden test lab exercises bench clean check-site distclean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-book: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[book]'
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed-book
	$(BIN)/python -m pip install -q -e '.[book,test]'
	touch $@

$(VENV)/.installed-lab: pyproject.toml $(VENV)/.installed-book
	$(BIN)/python -m pip install -q -e '.[book,lab]'
	touch $@

book: $(VENV)/.installed-book
	KMBOOK_SOLUTIONS=$(SOLUTIONS) $(BIN)/jupyter-book build $(JB_FLAGS) .

# The site a lecturer publishes while a course runs: no solutions (into _build/hidden/).
book-hidden: $(VENV)/.installed-book
	KMBOOK_SOLUTIONS=hide $(BIN)/jupyter-book build $(JB_FLAGS) --path-output _build/hidden .

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest --nbval-lax --nbval-current-env -q

check-site: $(VENV)/.installed-test
	$(BIN)/python -m pytest tests/test_site.py -q -rs

exercises: $(VENV)/.installed-book
	$(BIN)/python scripts/make_exercises.py --out _build/exercises

lab: $(VENV)/.installed-lab
	$(BIN)/jupyter lab

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/bench_kmlib.py

clean:
	rm -rf _build .jupyter_cache .hypothesis .pytest_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
