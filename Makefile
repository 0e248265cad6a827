# offload-kit. `make demo` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
BIN := $(CURDIR)/bin
LLVM := /usr/lib/llvm-22/bin
FUZZTIME ?= 3s

.PHONY: all deps build test unit fuzz fuzz-long bench demo clean

all: build

deps:
	@scripts/install-deps.sh

# Static binaries plus the argv[0] personalities that `clang -B$(BIN)` finds.
build:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/ ./cmd/...
	@cd $(BIN) && ln -sf offload-packager llvm-offload-binary && \
	  ln -sf offload-packager clang-offload-packager && \
	  ln -sf offload-packager clang-offload-bundler && \
	  ln -sf linker-wrapper clang-linker-wrapper && \
	  ln -sf sycl-linker clang-sycl-linker

test: deps build unit fuzz

# Every test, no skips allowed for missing tools (make deps installs them);
# ends with "N passed, N failed, N skipped".
unit:
	$(GO) vet ./...
	set -o pipefail; $(GO) test -json -count=1 -timeout 30m ./... | $(GO) run ./scripts/testsummary

# Every fuzz target runs briefly; crashers land in testdata/fuzz and fail the run.
fuzz:
	@scripts/fuzz-all.sh $(FUZZTIME)

fuzz-long:
	@scripts/fuzz-all.sh 60s

# Exit status 3 means a target was missed (reported in docs/performance.md).
bench: deps build
	$(GO) build -o $(BIN)/bench-harness ./bench
	$(BIN)/bench-harness -bin $(BIN) -llvm $(LLVM) -out docs/performance.md

demo: deps build
	@scripts/demo.sh

clean:
	rm -rf $(BIN)
