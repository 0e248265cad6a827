# offload-kit. `make demo` and `make test` work on a fresh Debian machine.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
BIN := $(CURDIR)/bin
LLVM := /usr/lib/llvm-22/bin
FUZZTIME ?= 3s

# make install PREFIX=... DESTDIR=...: the three tools, the LLVM names (links
# to them, made by `make build`), man pages, bash/zsh completions for every
# name, and the documentation the help texts cite (README.md and docs/ in
# DOCDIR).
PREFIX ?= /usr/local
DESTDIR ?=
BUILD := $(CURDIR)/build
TOOLS := offload-packager linker-wrapper sycl-linker
LLVM_NAMES := llvm-offload-binary clang-offload-packager clang-offload-bundler clang-linker-wrapper clang-sycl-linker
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
# Debian's zsh searches vendor-completions under /usr, site-functions elsewhere.
ZSHCOMPDIR = $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
DOCDIR = $(PREFIX)/share/doc/offload-kit
# Names the release in man pages and packages (packaging/mkdeb.sh turns it
# into a Debian version); the commit time dates them, reproducibly.
DESCRIBE := $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || date +%s)

.PHONY: all deps build test unit fuzz fuzz-long bench demo clean share install uninstall deb

all: build

deps:
	@scripts/install-deps.sh

# Static binaries plus the argv[0] personalities that `clang -B$(BIN)` finds.
build:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X github.com/offload-kit/offload-kit/internal/version.release=$$(git describe --tags --always --dirty 2>/dev/null)" -o $(BIN)/ ./cmd/...
	@cd $(BIN) && ln -sf offload-packager llvm-offload-binary && \
	  ln -sf offload-packager clang-offload-packager && \
	  ln -sf offload-packager clang-offload-bundler && \
	  ln -sf linker-wrapper clang-linker-wrapper && \
	  ln -sf sycl-linker clang-sycl-linker

test: deps build unit fuzz

# Every test, no skips allowed for missing tools (make deps installs them);
# ends with "N passed, N failed, N skipped". bench/ is a module of its own
# (go.mod there): its packages are vetted and tested beside the product's.
unit:
	$(GO) vet ./...
	$(GO) vet -C bench ./...
	set -o pipefail; { $(GO) test -json -count=1 -timeout 30m ./...; s=$$?; \
	  $(GO) test -C bench -json -count=1 -timeout 30m ./... || s=$$?; exit $$s; } | $(GO) run ./scripts/testsummary

# Every fuzz target runs briefly; crashers land in testdata/fuzz and fail the run.
fuzz:
	@scripts/fuzz-all.sh $(FUZZTIME)

fuzz-long:
	@scripts/fuzz-all.sh 60s

# Exit status 3 means a target was missed, an output was invalid or a row got
# more than 20% slower than in the committed docs/performance.md or than at
# COMPARE (all reported in docs/performance.md). COMPARE=<rev> runs each row's
# offload-kit side built at <rev> too, paired with this tree's; the default is
# the parent commit (about 4 more minutes); COMPARE= turns it off.
COMPARE ?= HEAD~1
bench: deps build
	$(GO) build -C bench -o $(BIN)/bench-harness .
	$(BIN)/bench-harness -bin $(BIN) -llvm $(LLVM) $(if $(COMPARE),-compare $(COMPARE)) -out docs/performance.md

demo: deps build
	@scripts/demo.sh

# Man pages and completions generated from the built tools (build/share).
share: build
	@GO=$(GO) packaging/gen-share.sh $(BIN) $(BUILD)/share $(DESCRIBE) $(DOCDIR)

install: build share
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 $(addprefix $(BIN)/,$(TOOLS)) $(DESTDIR)$(BINDIR)/
	cp -P $(addprefix $(BIN)/,$(LLVM_NAMES)) $(DESTDIR)$(BINDIR)/
	@for f in $(BUILD)/share/man/man1/*; do \
	  if [ -L "$$f" ]; then cp -P "$$f" $(DESTDIR)$(MANDIR)/; else install -m 0644 "$$f" $(DESTDIR)$(MANDIR)/; fi; \
	done
	cp -P $(BUILD)/share/bash-completion/* $(DESTDIR)$(BASHCOMPDIR)/
	cp -P $(BUILD)/share/zsh/* $(DESTDIR)$(ZSHCOMPDIR)/
	install -m 0644 LICENSE README.md docs/*.md docs/*.png $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DOCDIR)/formats
	install -m 0644 docs/formats/*.md $(DESTDIR)$(DOCDIR)/formats/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS) $(LLVM_NAMES))
	rm -f $(DESTDIR)$(MANDIR)/offload-packager.1 $(DESTDIR)$(MANDIR)/offload-packager-*.1 \
	  $(addprefix $(DESTDIR)$(MANDIR)/,$(addsuffix .1,$(LLVM_NAMES) linker-wrapper sycl-linker))
	rm -f $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(TOOLS) $(LLVM_NAMES)) $(addprefix $(DESTDIR)$(ZSHCOMPDIR)/_,$(TOOLS) $(LLVM_NAMES))
	rm -rf $(DESTDIR)$(DOCDIR)

# build/offload-kit_<version>_amd64.deb (dpkg-deb; installs under /usr).
deb:
	rm -rf $(BUILD)/deb
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(BUILD)/deb/root
	GO=$(GO) packaging/mkdeb.sh $(BUILD)/deb/root $(DESCRIBE) $(BUILD)

clean:
	rm -rf $(BIN) $(BUILD)
