# ktune's build, test and benchmark targets. `make test` is what CI runs (.ci/run).
GO ?= go
FUZZTIME ?= 20s
FUZZ_TARGETS = \
	./expr:FuzzParse \
	./format/internal/jsonio:FuzzScannerAgreesWithValid \
	./format/t1:FuzzRead \
	./format/kerneltuner:FuzzRead \
	./format/t4:FuzzRead \
	./format/ktt:FuzzRead \
	./spec:FuzzParse \
	./spec:FuzzReadNPY

.PHONY: build test check unit fuzz bench clean

build:
	CGO_ENABLED=0 $(GO) build -o bin/ktune ./cmd/ktune

test: check unit fuzz

check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...

unit:
	$(GO) test -count=1 ./...

# Each fuzz target runs briefly; FUZZTIME=5m make fuzz for a longer local run.
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(FUZZ_TARGETS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

clean:
	rm -rf bin
