# ktune's build, test and benchmark targets. `make test` is what CI runs (.ci/run).
GO ?= go
# The fuzz step's time: FUZZBUDGET shared equally by the targets (at least 5 s each), or
# FUZZTIME for each target where it is set.
FUZZBUDGET ?= 110s
FUZZTIME ?=
FUZZ_TARGETS = \
	./expr:FuzzParse \
	./format/internal/jsonio:FuzzScannerAgreesWithValid \
	./format/internal/jsonio:FuzzAnyAndObjectPtr \
	./format/t1:FuzzRead \
	./format/kerneltuner:FuzzRead \
	./format/t4:FuzzRead \
	./format/t4:FuzzScanResult \
	./format/ktt:FuzzRead \
	./format/ktt:FuzzScanResult \
	./spec:FuzzParse \
	./spec:FuzzReadNPY

# The packages whose goroutines share state (the pipeline's supervisor and pre-compilers,
# the tuning session, the benchmark's workers, the simulator, the results store) run
# again under the race detector.
RACE_PACKAGES = ./worker ./tuning ./benchmark ./simulator ./store/... ./runner

.PHONY: build test check unit race fuzz bench clean

build:
	CGO_ENABLED=0 $(GO) build -o bin/ktune ./cmd/ktune

test: check unit race fuzz

check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...

# The examples compile a few hundred kernels on PoCL: with its cache cold and the other packages
# testing beside them they can pass go test's default limit of 10 minutes.
unit:
	$(GO) test -count=1 -timeout 25m ./...

# The race detector needs cgo and a C compiler; without them it is skipped, saying so.
race:
	@if [ "$$($(GO) env CGO_ENABLED)" = 1 ] && command -v "$$($(GO) env CC)" >/dev/null 2>&1; then \
		echo "$(GO) test -race -short -count=1 $(RACE_PACKAGES)"; \
		$(GO) test -race -short -count=1 $(RACE_PACKAGES); \
	else echo "race: skipped (the race detector needs cgo and a C compiler)"; fi

# Each fuzz target runs briefly; FUZZTIME=5m make fuzz for a longer local run.
fuzz:
	@GO=$(GO) FUZZBUDGET=$(FUZZBUDGET) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(FUZZ_TARGETS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

clean:
	rm -rf bin
