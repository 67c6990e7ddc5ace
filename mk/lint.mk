# Linters, run by CI (.ci/run) after the tests:
#
#   make lint          all of the below
#   make lint-go       gofmt, go vet and staticcheck (installed from the Go module proxy into build/tools)
#   make lint-python   ruff and mypy on the Python package (installed into .venv; settings in pyproject.toml)
#   make lint-header   include/sompca.h compiled alone as C99 and C++17, include/sompca.hpp as C++17,
#                      with -Wall -Wextra -pedantic -Werror

STATICCHECK_VERSION := v0.8.2
STATICCHECK         := $(BUILD)/tools/staticcheck-$(STATICCHECK_VERSION)
# Pinned, so that a new release's rules cannot turn CI red on unchanged code.
PY_LINT_PACKAGES    := ruff==0.17.6 mypy==2.4.1
# staticcheck v0.8.2 is its release 2026.2.2.
GO_FILES             = $(shell find . -name '*.go' -not -path './.venv/*' -not -path './build/*')

.PHONY: lint lint-go lint-python lint-header

lint: lint-go lint-python lint-header
	@echo "make lint: clean"

lint-go: $(STATICCHECK) | deps-system
	@unformatted=$$(gofmt -l $(GO_FILES)); \
	if [ -n "$$unformatted" ]; then echo "gofmt: not formatted (run gofmt -w):" $$unformatted >&2; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	@mkdir -p $(BUILD)/tools
	GOBIN=$(CURDIR)/$(BUILD)/tools $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(BUILD)/tools/staticcheck $@

# The stamp's name carries a digest of the pins: changing them reinstalls.
PY_LINT_STAMP := $(VENV)/.lint-stamp-$(shell echo "$(PY_LINT_PACKAGES)" | md5sum | cut -c1-8)

$(PY_LINT_STAMP): $(PY_STAMP)
	$(PY) -m pip install -q $(PY_LINT_PACKAGES) || { echo "error: pip could not install $(PY_LINT_PACKAGES)" >&2; exit 1; }
	rm -f $(VENV)/.lint-stamp*
	touch $@

lint-python: $(PY_LINT_STAMP)
	cd $(PY_PKG) && $(CURDIR)/$(VENV)/bin/ruff check sompca
	cd $(PY_PKG) && $(CURDIR)/$(VENV)/bin/mypy sompca

lint-header: $(CTEST_DIR)/header.stamp
