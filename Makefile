# The project's script runner. `make test` is what CI runs (through .ci/run) and what a
# newcomer runs on a fresh clone: it installs what the tests need first.

GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
BUILD     := build
PKGS      := ./...
# The engine's own packages: they must build and test under GOOS=js too.
ENGINE    := ./session/... ./loop/...

.PHONY: test-times browser-table module package test-package bench-peers bench-compare chaos chaos-sweep hostile soak test-types size test test-quick test-native test-race test-js bench fuzz check check-clone check-generated check-imports deps demo wasm test-wasm-js

## test: every test layer (native, the .wasm under wazero, Chromium, Firefox, WebKit), from a
## fresh clone. BROWSERS=firefox (or chromium,webkit…) runs the browser tests in those only.
test: deps test-native test-race test-js test-wasm-js test-types size test-package

## deps: what the tests need: Go modules, the dev-only npm packages (internal/npm, exact
## versions from its package-lock.json, no install scripts: esbuild runs without its
## postinstall; never shipped), Debian's chromium and brotli
NPM_DEV := internal/npm
deps:
	$(GO) mod download
	cd $(NPM_DEV) && npm ci --ignore-scripts --no-audit --no-fund
	cd internal/integration_test/pkgtest && npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error
	bash .ci/install-chromium.sh
	bash .ci/install-browsers.sh
	@command -v brotli >/dev/null || bash .ci/install-debian.sh brotli

## CHAOS_FRESH: random seeds the chaos suite plays beside its fixed ones in make test (the
## first also in the browser), new every run, printed here so that a failure's seed is
## in the log (the worker-mode races were found so). CHAOS_FRESH= plays the fixed ones alone.
ifeq ($(origin CHAOS_FRESH),undefined)
CHAOS_FRESH := $(shell od -An -N8 -tu4 /dev/urandom | awk '{print $$1 "," $$2}')
endif
## go test starts packages in the order it is given them, two at a time on two cores: the
## longest suites go first (SLOWEST, longest first, from make test-times), so that none
## starts last and runs alone. NATIVE is every package but the npm package's (test-package).
SLOWEST := langmodel/internal/integration_test/gguf langmodel/internal/integration_test/llamacpp langmodel/internal/integration_test/browser \
	langmodel/demo/demotest langmodel/internal/testing/toygguf
NATIVE   = $(SLOWEST) $$($(GO) list $(PKGS) | grep -v -x $(foreach p,$(SLOWEST) langmodel/internal/integration_test/pkgtest,-e $(p)))
test-native:
	@echo "chaos: fresh seeds this run: $(CHAOS_FRESH) (replay one with CHAOS_SEED=<seed> make chaos)"
	CHAOS_FRESH=$(CHAOS_FRESH) $(GO) test -count=1 -timeout=60m $(NATIVE)

## test-quick: the inner loop, under 3 minutes on a quiet 2-core machine (51 s measured with
## a warm build cache at a load average of 11 to 14, the machine busy with other runs). The
## native tests of the engine, the binding and the internal packages linked into the
## module, with -short, then one Chromium smoke of the real module (README's browser
## table, TestBrowser_Engines). No Firefox, no WebKit, no npm package tests: make test
## runs those before a merge. Needs what make deps installs, once.
QUICK := $(ENGINE) ./wasm/ ./wasm/internal/... ./internal/clock/... ./internal/jsonv/ \
	./internal/order/ ./internal/redact/ ./internal/relin/ ./internal/sfmt/
test-quick:
	$(GO) test -count=1 -short $(QUICK)
	BROWSERS=chromium $(GO) test -count=1 -short -run='^TestBrowser_Engines$$' ./internal/integration_test/browser/

## test-times: where the native tests' time goes (make test's test-native, its longest
## stage, with go test -json): each package's seconds, the slowest tests, each browser
## engine's share of them (internal/tools/testtimes), written to build/test-times.md
test-times:
	@mkdir -p $(BUILD)
	CHAOS_FRESH= $(GO) test -json -count=1 -timeout=60m $(NATIVE) | \
	  $(GO) run ./internal/tools/testtimes -top 40 > $(BUILD)/test-times.md
	@cat $(BUILD)/test-times.md

## test-race: the concurrent engine and binding under the race detector
test-race:
	$(GO) test -race -count=1 $(ENGINE) ./wasm/

## test-js: the engine's tests compiled to GOOS=js and run by Go's wasm runner
test-js:
	PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 $(ENGINE) ./internal/jsonv/ ./internal/relin/ ./internal/order/

## bench: the engine benchmarks of DESIGN.md §5 (medians: run with COUNT=6 and compare)
COUNT ?= 3
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=$(COUNT) $(ENGINE)

## chaos: the chaos suite (internal/testing/chaos) longer than make test plays it: random seeds,
## more steps, in the wazero host and in Chromium. A failure names its seed; replay it with
## CHAOS_SEED=<seed> make chaos.
CHAOS_SEED  ?= random
CHAOS_RUNS  ?= 8
CHAOS_STEPS ?= 150
chaos:
	CHAOS_SEED=$(CHAOS_SEED) CHAOS_RUNS=$(CHAOS_RUNS) CHAOS_STEPS=$(CHAOS_STEPS) \
	  $(GO) test -count=1 -timeout=60m -run='Chaos' ./internal/integration_test/wazero/ ./internal/integration_test/browser/
## chaos-sweep: many random seeds of the chaos suite under wazero only (TestModule_Chaos,
## about 5 s a seed on a shared 2-core machine), niced, for a stop that touched the loop:
## prints each failure (its violations and seed) as it happens, then the failing seeds
## with the command that replays each (go test reports parallel subtests at the end) and
## how many seeds it played (the whole log in build/chaos-sweep.log).
SWEEP_RUNS  ?= 300
SWEEP_STEPS ?= 40
chaos-sweep:
	@mkdir -p $(BUILD)
	@CHAOS_SEED=random CHAOS_RUNS=$(SWEEP_RUNS) CHAOS_STEPS=$(SWEEP_STEPS) \
	  nice -n 10 $(GO) test -count=1 -timeout=0 -v -run='^TestModule_Chaos$$' ./internal/integration_test/wazero/ 2>&1 | \
	  tee $(BUILD)/chaos-sweep.log | awk ' \
	    /--- PASS: TestModule_Chaos\// { pass++ } \
	    /--- FAIL: TestModule_Chaos\// { fail++; split($$3, p, "/"); print "chaos-sweep: seed " p[2] " failed (CHAOS_SEED=" p[2] " CHAOS_STEPS=$(SWEEP_STEPS) go test -count=1 -run '"'"'TestModule_Chaos$$'"'"' ./internal/integration_test/wazero/ replays it)" } \
	    /^[ \t]+(Error|Messages):/ { print "  " substr($$0, 1, 400) } \
	    END { print "chaos-sweep: " pass + fail " seeds of $(SWEEP_STEPS) steps played, " fail + 0 " failed (build/chaos-sweep.log)"; exit pass + fail == 0 || fail > 0 }'
## hostile: the hostile-server property test (internal/testing/chaos/hostile.go, docs/testing.md "Hostile servers") under
## wazero and in Chromium (page and worker mode): every hostile act alone (HOSTILE_ACTS=each; or a list of acts, or all), seed 1
## and a fresh one (HOSTILE_SEED=<seeds> replays), HOSTILE_STEPS steps each. make test
## plays the acts the module holds against (HostileOn in internal/testing/moduletest/hostile.go).
HOSTILE_ACTS  ?= each
HOSTILE_STEPS ?= 20
hostile:
	HOSTILE_ACTS=$(HOSTILE_ACTS) HOSTILE_STEPS=$(HOSTILE_STEPS) \
	  $(GO) test -count=1 -timeout=30m -run='^Test(Module|Browser)_Hostile$$' ./internal/integration_test/wazero/ ./internal/integration_test/browser/
## bench-peers: the module against the Vercel AI SDK in one headless Chromium page
## (internal/integration_test/peerbench): prints the table of ratios the performance claims (docs/testing.md,
## RATIONALE.md) quote.
## The SDK and esbuild are pinned in internal/integration_test/peerbench/package.json and installed here,
## never shipped; not part of make test. ROUNDS=n interleaved rounds.
ROUNDS ?= 5
bench-peers: deps
	cd internal/integration_test/peerbench && npm ci --no-audit --no-fund
	$(GO) test -run='^$$' -bench=Peers -benchtime=1x -timeout=60m ./internal/integration_test/peerbench/ -peers.rounds=$(ROUNDS)

## bench-compare: the module at BASE (a git revision, built from `git archive BASE` under
## build/compare/, the work tree untouched) against the module of the work tree, or against
## NEW=<rev> when set, in one headless Chromium as alternated pairs (internal/integration_test/peerbench
## BenchmarkCompare): the closed-loop step at 1, 10, 100 and 1,000 steps in page and worker
## mode (batch-timed), create() on 10,000 messages, install() to the first answer and the
## .wasm's brotli size, each build's median and the per-round ratio new ÷ base. Each side is
## built by its own Makefile's `make module`; BASE_MAKE / NEW_MAKE add make arguments
## there (e.g. NEW_MAKE='NOINLINE='). ROUNDS=n rounds. Not part of make test.
BASE ?= main
NEW ?=
BASE_MAKE ?=
NEW_MAKE ?=
COMPARE := $(CURDIR)/$(BUILD)/compare
bench-compare:
	rm -rf $(COMPARE) && mkdir -p $(COMPARE)/base-src
	git archive $(BASE) | tar -x -C $(COMPARE)/base-src
	$(MAKE) -s -C $(COMPARE)/base-src module BUILD=$(COMPARE)/base $(BASE_MAKE)
ifeq ($(NEW),)
	$(MAKE) -s module BUILD=$(COMPARE)/new $(NEW_MAKE)
else
	mkdir -p $(COMPARE)/new-src && git archive $(NEW) | tar -x -C $(COMPARE)/new-src
	$(MAKE) -s -C $(COMPARE)/new-src module BUILD=$(COMPARE)/new $(NEW_MAKE)
endif
	$(GO) test -run='^$$' -bench='^BenchmarkCompare$$' -benchtime=1x -timeout=60m ./internal/integration_test/peerbench/ \
	  -peers.rounds=$(ROUNDS) -compare.base=$(COMPARE)/base -compare.new=$(COMPARE)/new \
	  -compare.names='$(BASE)$(if $(BASE_MAKE), $(BASE_MAKE)),$(if $(NEW),$(NEW),work tree)$(if $(NEW_MAKE), $(NEW_MAKE))'

## soak: 10,000 sessions and 10,000-step closed loops in headless Chromium, with forced
## garbage collections between phases; prints the JS heap and the module's linear memory
## and fails if either grows with the work. Not part of make test (~2 min).
soak:
	$(GO) test -count=1 -timeout=30m -run='^$$' -bench='BenchmarkBrowser_Soak' -benchtime=1x -v ./internal/integration_test/bench/

## fuzz: a short run of every fuzz target
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./session/ -run='^$$' -fuzz=FuzzNormalize -fuzztime=$(FUZZTIME)
	$(GO) test ./session/ -run='^$$' -fuzz=FuzzHistory -fuzztime=$(FUZZTIME)
	$(GO) test ./session/schema/ -run='^$$' -fuzz=FuzzValidate -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/jsonv/ -run='^$$' -fuzz=FuzzAgreesWithEncodingJSON -fuzztime=$(FUZZTIME)
	$(GO) test ./internal/relin/ -run='^$$' -fuzz=FuzzAgreesWithGoRegexp -fuzztime=$(FUZZTIME)

## check: formatting, vet, import rules, tidy go.mod
check: check-imports check-clone check-generated
	@test -z "$$(gofmt -l .)" || (gofmt -l . && echo "gofmt wants to change the files above" && exit 1)
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $(ENGINE)

## check-generated: wasm/protocol_easyjson.go is what `go generate ./wasm/` writes (easyjson,
## bootstrapped with the easyjson_generate tag, then the jsonw rewrite and trimjson: the
## go:generate lines in wasm/protocol.go); change protocol.go, never the generated file
check-generated:
	@mkdir -p $(BUILD) && cp wasm/protocol_easyjson.go $(BUILD)/protocol_easyjson.go.before
	$(GO) generate ./wasm/
	@cmp -s $(BUILD)/protocol_easyjson.go.before wasm/protocol_easyjson.go || { diff -u $(BUILD)/protocol_easyjson.go.before wasm/protocol_easyjson.go | head -40; echo "check-generated: wasm/protocol_easyjson.go was not what go generate ./wasm/ writes (now it is; the diff above): change wasm/protocol.go or the go:generate lines, not the generated file" >&2; exit 1; }

## check-clone: a clone tests itself: nothing in the repository (tests, scripts, documents)
## reaches for files beside it; what the tests read lives inside (the JSON Schema Test
## Suite in session/schema/testdata/, with its licence)
check-clone:
	@out=$$(git grep -n -I -e '\.\./shar[e]d' -e 'shar[e]d/testdata' -- ':!Makefile' ':!docs/docs_test.go' || true); \
	  test -z "$$out" || (echo "$$out" && echo "check-clone: the lines above reach outside the repository, which a clone does not have" && exit 1)

## check-imports: the import rules of docs/design.md ("The layout"), over the files git
## tracks (bench-compare's sources under build/ are another revision's); and no test-only
## package linked into the module: nothing under internal/testing/, internal/tools/ or
## internal/integration_test/, no package named as Go names its test helpers (…test:
## internal/clock/clocktest, demo/demotest), nor testify, wazero, goja or chromedp
check-imports:
	@leaks=$$(git grep -l '"syscall/js"' -- '*.go' | grep -v '^wasm/' || true); \
	  test -z "$$leaks" || (echo "syscall/js outside wasm/ (docs/design.md): $$leaks" && exit 1)
	@deps=$$($(GO) list -deps $(ENGINE) | grep -x -e net/http -e syscall/js || true); \
	  test -z "$$deps" || (echo "the engine links $$deps (docs/design.md: no I/O in session/ and loop/)" && exit 1)
	@deps=$$(GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/cmd/langmodel | grep -x -e net/http -e net -e github.com/mailru/easyjson || true); \
	  test -z "$$deps" || (echo "the module links $$deps (net/http adds ~8 MB, net 53 KB brotli; easyjson's root package pulls net/http: use jlexer and wasm/internal/jsonw)" && exit 1)
	@leaks=$$(grep -l '"syscall/js"' $$(find wasm -name '*.go' -not -path 'wasm/cmd/*' -not -path '*/testdata/*') || true); \
	  test -z "$$leaks" || (echo "syscall/js in the binding's core, which must run natively in go test: $$leaks (only wasm/cmd/ may import it)" && exit 1)
	@deps=$$(GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/cmd/langmodel | grep -E -e '^langmodel/internal/(testing|tools|integration_test)(/|$$)' -e '^langmodel/.*test$$' \
	    -e '^github\.com/(stretchr/testify|tetratelabs/wazero|dop251/goja|chromedp)(/|$$)' | tr '\n' ' ' || true); \
	  test -z "$$deps" || (echo "the module links test-only packages: $$deps(internal/testing/, internal/tools/, internal/integration_test/, packages named …test, testify, wazero, goja and chromedp serve the tests and tools, never the module: docs/design.md, The layout)" && exit 1)

## demo: build the module and serve the demo page on 127.0.0.1 (ADDR=host:port to move it);
## wllama (dev only, internal/npm) is installed first, for the demo's in-page model
ADDR ?= 127.0.0.1:8080
demo: wasm
	@test -d $(NPM_DEV)/node_modules/@wllama/wllama || (cd $(NPM_DEV) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) \
	  || echo "make demo: npm could not install wllama, so the demo's in-page model (llama.cpp) will not load; the rest works" >&2
	$(GO) run ./demo/serve -addr $(ADDR) -root .

## wasm: the module the page loads, with wasm_exec.js from the Go that built it; prints
## its sizes (budget: SIZE_BUDGET B brotli, see size) and sha256
wasm: module
	@command -v brotli >/dev/null || echo "make wasm: brotli is missing, so no brotli size (make deps installs it)" >&2
	@raw=$$(wc -c < $(BUILD)/langmodel.wasm); gz=$$(gzip -9 -c $(BUILD)/langmodel.wasm | wc -c); \
	  br=$$(brotli -q 11 -c $(BUILD)/langmodel.wasm 2>/dev/null | wc -c); \
	  printf 'langmodel.wasm  raw %d  gzip %d  brotli %d bytes (budget $(SIZE_BUDGET))\n' $$raw $$gz $$br; \
	  sha256sum $(BUILD)/langmodel.wasm; \
	  test $$br -le $(SIZE_BUDGET) || echo "make wasm: OVER the $(SIZE_BUDGET) B brotli budget (make size)" >&2

## NOINLINE: the project's packages that the module's build compiles without inlining (-l):
## the cold ones, which no closed-loop step, create() or stream runs (the custom, chain and record
## backends, the MCP client and its fetch port, sfmt's error messages, the redactor of
## secrets, the sort helpers), and those measured not to move a step without it: the
## openai backend's stream reading (BenchmarkReadStream, the eighth round) and the schema
## validator (BenchmarkClosedLoopStep natively 9.0 against 9.3 µs, medians of three; a
## realistic schema's BenchmarkValidateJSON 11.9 against 9.5 µs, against a model's seconds).
## An inlined call leaves its body at every call, with an inline tree and its pc tables in
## the data, which brotli compresses badly. The seventh and eighth rounds built the binding,
## the engine and the scripted backend without inlining too, for 20 KB brotli under the
## budget of the time (850,000), and a step paid for it (BenchmarkBrowser_ClosedLoopStep
## 1.09x); the budget was raised to SIZE_BUDGET to buy their inlining back; the text
## protocol's parser keeps its own (BenchmarkParser_ManyCalls 1.55x without). See
## RATIONALE.md "How does the module stay within its size budget?". This line is the one
## list: the tests' builds read it (internal/testing/browsertest.NoInline). A function of another
## package is kept out of line by //go:noinline, its comment giving the bytes it saves.
NOINLINE := loop/custom loop/chain loop/record loop/mcp loop/internal/fetchport loop/internal/toolrank loop/openai session/schema internal/sfmt internal/order internal/redact
MODULE_GCFLAGS := $(foreach p,$(NOINLINE),-gcflags=langmodel/$(p)=-l)

## module: what make wasm builds, without the size report (brotli -q 11 takes 10-30 s)
module:
	@mkdir -p $(BUILD)
	GOOS=js GOARCH=wasm $(GO) build -trimpath $(MODULE_GCFLAGS) -ldflags='-s -w -buildid=' -o $(BUILD)/langmodel.wasm ./wasm/cmd/langmodel
	cp "$(GOROOT)/lib/wasm/wasm_exec.js" $(BUILD)/wasm_exec.js
	cp js/*.js js/language-model.d.ts $(BUILD)/

## package: the npm package (never published: "private" in npm/package.json, the one place
## its version is written): build/package/ holds the face, its types, the .wasm and Go's
## wasm_exec.js (with Go's LICENSE), and README.md with its links into the repository made
## plain text (npm/readme.mjs); `npm pack` makes build/langmodel.tgz from it
PKG := $(BUILD)/package
package: module
	rm -rf $(PKG) && mkdir -p $(PKG)
	cp npm/package.json js/*.js js/language-model.d.ts $(BUILD)/langmodel.wasm $(PKG)/
	node npm/readme.mjs README.md $(PKG)/README.md
	cp "$(GOROOT)/lib/wasm/wasm_exec.js" $(PKG)/wasm_exec.js
	cp "$(GOROOT)/LICENSE" $(PKG)/LICENSE-go
	cd $(BUILD) && rm -f langmodel-*.tgz && npm pack --silent ./package >/dev/null && mv langmodel-*.tgz langmodel.tgz
	@printf 'build/langmodel.tgz  %d bytes\n' $$(wc -c < $(BUILD)/langmodel.tgz)

## test-package: the npm package as users use it (internal/integration_test/pkgtest): the tarball installed
## into scratch apps built with esbuild, vite build, vite dev and webpack (pinned in
## internal/integration_test/pkgtest/package.json, installed by make deps), and plain files, run in
## Chromium; the same API in Node (node main.js, node --test)
test-package:
	$(GO) test -count=1 ./internal/integration_test/pkgtest/

## test-types: compile-test js/language-model.d.ts under tsc --strict (TypeScript and
## @types/dom-chromium-ai from internal/npm, pinned, never shipped): code a page would write
## (js/types-check.ts, misuses marked @ts-expect-error), page code typed for Chrome
## (js/types-check-chrome.ts, against @types/dom-chromium-ai), and docs/backends.md's
## global-LanguageModel example with and without those types (js/types-check-globals.ts)
TSC       := $(NPM_DEV)/node_modules/.bin/tsc --noEmit --strict --target es2022 --module es2022 \
  --moduleResolution bundler --lib es2022,dom,dom.iterable,dom.asynciterable
CHROME_TYPES := --typeRoots $(NPM_DEV)/node_modules/@types --types dom-chromium-ai
test-types:
	@test -x $(NPM_DEV)/node_modules/.bin/tsc || (echo "test-types: no TypeScript; run make deps" && exit 1)
	@node -e 'const fs = require("fs"); const m = /A closed loop against Ollama[\s\S]*?```js\n([\s\S]*?)```\n/.exec(fs.readFileSync("docs/backends.md", "utf8")); if (!m || !fs.readFileSync("js/types-check-globals.ts", "utf8").includes(m[1])) { console.error("test-types: js/types-check-globals.ts must hold the example of docs/backends.md (A closed loop against Ollama) verbatim"); process.exit(1); }'
	$(TSC) js/types-check.ts js/types-check-globals.ts
	$(TSC) $(CHROME_TYPES) js/types-check-globals.ts js/types-check-chrome.ts

## size: the module must stay within SIZE_BUDGET bytes brotli with every backend (the one
## place the budget's figure is written; docs point here), and must not link encoding/json (not even for its types), fmt, errors.As, slices.Sort's
## pdqsort, nor packages time and context (startup: V8 validates all code first; fmt keeps most
## of reflect: use internal/sfmt; time links internal/godebug and its initialisation, context
## links time: use internal/clock and loop.Context). It prints
## where the bytes go, package by package, the Go runtime's share apart (internal/tools/wasmsize,
## on a build that keeps function names, with NOINLINE as make module builds). See RATIONALE.md "How does the module stay within its
## size budget?" for the cuts and their figures.
SIZE_BUDGET := 900000
size: wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath $(MODULE_GCFLAGS) -ldflags='-buildid=' -o $(BUILD)/langmodel-names.wasm ./wasm/cmd/langmodel
	$(GO) run ./internal/tools/wasmsize -pkg ./wasm/cmd/langmodel $(BUILD)/langmodel-names.wasm $(BUILD)/langmodel.wasm
	@br=$$(brotli -q 11 -c $(BUILD)/langmodel.wasm | wc -c); \
	  test $$br -le $(SIZE_BUDGET) || { echo "size: langmodel.wasm is $$br bytes brotli, over the $(SIZE_BUDGET) budget" >&2; exit 1; }
	@GOOS=js GOARCH=wasm $(GO) build -trimpath $(MODULE_GCFLAGS) -o /dev/null -ldflags=-dumpdep ./wasm/cmd/langmodel 2> $(BUILD)/langmodel.deps
	@refl=$$(grep -o -m1 -e '-> encoding/json\.[A-Za-z(*.]*' $(BUILD)/langmodel.deps || true); \
	  test -z "$$refl" || { echo "size: the module links encoding/json ($$refl): importing it even for json.RawMessage links its initialisation and, through fmt, os's (34.6 KB brotli); its reflection coder is 450 KB of code more; use internal/jsonv (RawMessage, Number, Compact, Valid)" >&2; exit 1; }
	@fmt=$$(grep -o -m1 -e '-> fmt\.[A-Za-z(*]*' $(BUILD)/langmodel.deps || true); \
	  test -z "$$fmt" || { echo "size: the module links fmt ($$fmt): with reflect, about 55 KB brotli; use internal/sfmt" >&2; exit 1; }
	@pkgs=$$(GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/cmd/langmodel | grep -x -e time -e context | tr '\n' ' ' || true); \
	  test -z "$$pkgs" || { echo "size: the module links package $$pkgs: time imports internal/godebug, which links bisect, sync.Map and runtime metrics and runs their initialisation at start, about 34 KB brotli; context imports time. Use internal/clock (Duration, Now, Unix, AfterFunc on the page's timers) and loop.Context, loop.WithCancel, loop.AfterFunc, loop.Canceled" >&2; exit 1; }
	@pdq=$$(grep -o -m1 -e '-> slices\.pdqsortOrdered\[[^]]*\]' $(BUILD)/langmodel.deps || true); \
	  test -z "$$pdq" || { echo "size: the module links slices.Sort's pdqsort ($$pdq): about 17 KB of code per element type; use internal/order" >&2; exit 1; }
	@as=$$(grep -o -m1 -e '-> errors\.As$$' $(BUILD)/langmodel.deps || true); \
	  test -z "$$as" || { echo "size: the module links errors.As ($$as): internal/reflectlite's assignability, about 10 KB brotli; use errors.AsType" >&2; exit 1; }

## test-wasm-js: the binding's Handler tests compiled to GOOS=js and run by Go's wasm runner,
## and the module's timers on Node's setTimeout (wasm/cmd/langmodel/timers_js_test.go)
test-wasm-js:
	PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 ./wasm/ ./wasm/internal/jsonw/ ./wasm/cmd/langmodel/

## browser-table: play TestBrowser_Engines in every engine and write its table into README.md,
## between the "browsers:begin" and "browsers:end" markers of the "Browsers" section
browser-table:
	@mkdir -p $(BUILD)
	BROWSER_TABLE=$(CURDIR)/$(BUILD)/browsers.md $(GO) test -count=1 -run '^TestBrowser_Engines$$' ./internal/integration_test/browser/
	awk -v table=$(BUILD)/browsers.md '/<!-- browsers:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next } \
	  /<!-- browsers:end -->/ { skip = 0 } !skip' README.md > $(BUILD)/README.md.new
	mv $(BUILD)/README.md.new README.md
