# `make demo` and `make test` bootstrap .venv on a fresh machine (only Python 3.11 needed).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench bench-jax docs clean dot chromium grammar-tables catalogue-index

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,docs,notebook,dask,onnx,lowp,xarray]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kantensor demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks signatures notebooks docs/_ext

test: $(STAMP) lint dot chromium
	$(BIN)/python -m pytest --durations=25

# A program the tests need: installed with apt-get where root can (Debian/Ubuntu), else
# an error saying how. $(1) the program, $(2) its package, $(3) how to install it by hand.
define need
	@command -v $(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $(2) with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2); \
	  else \
	    echo "error: the tests need the $(1) program; install it ($(3)) and rerun"; \
	    exit 1; \
	  fi; }
endef

# The tests render graph pictures (kt.graphviz), which needs Graphviz's `dot`.
dot:
	$(call need,dot,graphviz,Debian/Ubuntu: sudo apt-get install graphviz; macOS: brew install graphviz)

# The tests look at pictures and rich displays in headless Chromium (tests/chromium.py).
chromium:
	$(call need,chromium,chromium,Debian: sudo apt-get install chromium; Ubuntu: sudo snap install chromium)

# The parser's LALR tables, derived from src/kantensor/syntax/grammar.lark (run after
# editing the grammar; tests/test_syntax_tables.py fails until then).
grammar-tables: $(STAMP)
	$(BIN)/python -c "from kantensor.syntax.tables import main; main()"

# The catalogue's tables already read, as JSON: signatures/tables.jsonl (the NumPy Ops',
# read at import) and signatures/onnx/tables.jsonl (the ONNX index), derived from the TOML
# files (run after editing one; tests/test_startup.py and tests/test_onnx_lazy.py fail
# until then; a stale file is never used).
catalogue-index: $(STAMP)
	$(BIN)/python -c "from kantensor.ops.keyed import main; main()"

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench,dask,onnx]'
	$(BIN)/python benchmarks/run.py

bench-jax: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[jax]'
	$(BIN)/python benchmarks/eval_shape_jax.py
	$(BIN)/python benchmarks/real_size.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info

docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	$(BIN)/sphinx-build -W -b html docs docs/_build/html
