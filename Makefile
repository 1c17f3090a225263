# The project's script runner. `make test` is what CI runs (through .ci/run) and what a
# newcomer runs on a fresh clone: it installs what the tests need first.

GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
BUILD     := build
PKGS      := ./...
# The engine's own packages: they must build and test under GOOS=js too.
ENGINE    := ./session/... ./loop/...

.PHONY: chaos soak test-types size test test-native test-race test-js bench fuzz check check-imports deps demo wasm test-wasm-js

## test: every test layer (native, the .wasm under wazero, Chromium), from a fresh clone
test: deps test-native test-race test-js test-wasm-js test-types size

deps:
	$(GO) mod download
	bash .ci/install-chromium.sh
	@command -v brotli >/dev/null || bash .ci/install-debian.sh brotli

test-native:
	$(GO) test -count=1 $(PKGS)

## test-race: the concurrent engine and binding under the race detector
test-race:
	$(GO) test -race -count=1 $(ENGINE) ./wasm/

## test-js: the engine's tests compiled to GOOS=js and run by Go's wasm runner
test-js:
	PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -tags re2 -count=1 $(ENGINE) ./internal/jsonv/

## bench: the engine benchmarks of DESIGN.md §5 (medians: run with COUNT=6 and compare)
COUNT ?= 3
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=$(COUNT) $(ENGINE)

## chaos: the chaos suite (internal/chaos) longer than make test plays it: random seeds,
## more steps, in the wazero host and in Chromium. A failure names its seed; replay it with
## CHAOS_SEED=<seed> make chaos.
CHAOS_SEED  ?= random
CHAOS_RUNS  ?= 8
CHAOS_STEPS ?= 150
chaos:
	CHAOS_SEED=$(CHAOS_SEED) CHAOS_RUNS=$(CHAOS_RUNS) CHAOS_STEPS=$(CHAOS_STEPS) \
	  $(GO) test -count=1 -timeout=60m -run='Chaos' ./wasm/cmd/langmodel/

## soak: 10,000 sessions and 10,000-step closed loops in headless Chromium, with forced
## garbage collections between phases; prints the JS heap and the module's linear memory
## and fails if either grows with the work (issue 13). Not part of make test (~2 min).
soak:
	$(GO) test -count=1 -timeout=30m -run='^$$' -bench='BenchmarkBrowser_Soak' -benchtime=1x -v ./wasm/cmd/langmodel/

## fuzz: a short run of every fuzz target
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./session/ -run='^$$' -fuzz=FuzzNormalize -fuzztime=$(FUZZTIME)
	$(GO) test ./session/ -run='^$$' -fuzz=FuzzHistory -fuzztime=$(FUZZTIME)
	$(GO) test ./session/schema/ -run='^$$' -fuzz=FuzzValidate -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/jsonv/ -run='^$$' -fuzz=FuzzAgreesWithEncodingJSON -fuzztime=$(FUZZTIME)

## check: formatting, vet, import rules, tidy go.mod
check: check-imports
	@test -z "$$(gofmt -l .)" || (gofmt -l . && echo "gofmt wants to change the files above" && exit 1)
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $(ENGINE)

## check-imports: DESIGN.md §2's import rules
check-imports:
	@leaks=$$(grep -rl --include='*.go' '"syscall/js"' . | grep -v '^./wasm/' || true); \
	  test -z "$$leaks" || (echo "syscall/js outside wasm/ (DESIGN.md §2): $$leaks" && exit 1)
	@deps=$$($(GO) list -deps $(ENGINE) | grep -x -e net/http -e syscall/js || true); \
	  test -z "$$deps" || (echo "the engine links $$deps (DESIGN.md §2: no I/O in session/ and loop/)" && exit 1)
	@deps=$$(GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/cmd/langmodel | grep -x -e net/http -e net -e github.com/mailru/easyjson || true); \
	  test -z "$$deps" || (echo "the module links $$deps (net/http adds ~8 MB, net 53 KB brotli; easyjson's root package pulls net/http: use jlexer and wasm/internal/jsonw)" && exit 1)
	@leaks=$$(grep -l '"syscall/js"' $$(find wasm -name '*.go' -not -path 'wasm/cmd/*' -not -path 'wasm/jshost/*' -not -path '*/testdata/*') || true); \
	  test -z "$$leaks" || (echo "syscall/js in the binding's core, which must run natively in go test: $$leaks (only wasm/cmd/ may import it)" && exit 1)

## demo: build the module and serve the demo page on 127.0.0.1 (ADDR=host:port to move it)
ADDR ?= 127.0.0.1:8080
demo: wasm
	$(GO) run ./demo/serve -addr $(ADDR) -root .

## wasm: the module the page loads, with wasm_exec.js from the Go that built it; prints
## its sizes (budget: 1.0 MB brotli, DESIGN.md §5) and sha256
wasm:
	@mkdir -p $(BUILD)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w -buildid=' -o $(BUILD)/langmodel.wasm ./wasm/cmd/langmodel
	cp "$(GOROOT)/lib/wasm/wasm_exec.js" $(BUILD)/wasm_exec.js
	cp js/language-model.js js/language-model.d.ts js/protocol.js $(BUILD)/
	@command -v brotli >/dev/null || echo "make wasm: brotli is missing, so no brotli size (make deps installs it)" >&2
	@raw=$$(wc -c < $(BUILD)/langmodel.wasm); gz=$$(gzip -9 -c $(BUILD)/langmodel.wasm | wc -c); \
	  br=$$(brotli -q 11 -c $(BUILD)/langmodel.wasm 2>/dev/null | wc -c); \
	  printf 'langmodel.wasm  raw %d  gzip %d  brotli %d bytes (budget 1000000)\n' $$raw $$gz $$br; \
	  sha256sum $(BUILD)/langmodel.wasm; \
	  test $$br -le 1000000 || echo "make wasm: OVER the 1.0 MB brotli budget of DESIGN.md §5" >&2

## test-types: compile-test js/language-model.d.ts with code a page would write
## (js/types-check.ts). TypeScript is fetched by npx, pinned, and never shipped.
TYPESCRIPT ?= typescript@5.9.3
test-types:
	npx --yes --package $(TYPESCRIPT) tsc --noEmit --strict --target es2022 --module es2022 \
	  --moduleResolution bundler --lib es2022,dom,dom.iterable,dom.asynciterable js/types-check.ts

## size: the module must stay within DESIGN.md §5's 1.0 MB brotli, with every backend, and
## must not link encoding/json's reflection coder (startup: V8 validates all code first)
size: wasm
	@br=$$(brotli -q 11 -c $(BUILD)/langmodel.wasm | wc -c); \
	  test $$br -le 1000000 || { echo "size: langmodel.wasm is $$br bytes brotli, over the 1,000,000 budget" >&2; exit 1; }
	@refl=$$(GOOS=js GOARCH=wasm $(GO) build -trimpath -o /dev/null -ldflags=-dumpdep ./wasm/cmd/langmodel 2>&1 | \
	  grep -o -m1 -e 'encoding/json\.typeFields' -e 'encoding/json\.(\*decodeState)' || true); \
	  test -z "$$refl" || { echo "size: the module links encoding/json's reflection coder ($$refl): about 450 KB of code that delays startup; use internal/jsonv" >&2; exit 1; }

## test-wasm-js: the binding's Handler tests compiled to GOOS=js and run by Go's wasm runner
test-wasm-js:
	PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -tags re2 -count=1 ./wasm/ ./wasm/internal/jsonw/
