# servbench's usual tasks. `bash scripts/test` (make test) is what CI runs.
GO ?= go

.PHONY: test test-short race lint bench integration faults fuzz build

build:
	$(GO) build ./...

# Lint, the fast tests under the race detector, then the integration suite.
test:
	bash scripts/test

# Every test that needs no server, no browser and no YCSB; eight tests of a
# package at once (-parallel 8) and four packages (-p 4): most wait on a
# rate or on client processes, not on the cores. Without cgo: the test
# binaries then link without the external linker that pebble's C zstd calls
# for (a tenth of the suite's CPU); the race suite and CI's whole suite
# build with it. Not under the race detector (race, and CI's scripts/test):
# slowed down eight at a time, an SLO test's light cells broke their bound.
test-short:
	CGO_ENABLED=0 $(GO) test -short -count=1 -parallel 8 -p 4 ./...

race:
	$(GO) test -race -short -count=1 ./...

# gofmt, go vet, staticcheck (staticcheck.conf).
lint:
	bash scripts/lint

# The whole suite with the database servers started on 127.0.0.1.
integration:
	bash scripts/integration

# The fault tests alone: each server killed and paused under a run (the
# servers are started first and left running).
faults:
	scripts/servers start all && eval "$$(scripts/servers env all)" && \
		SERVBENCH_FAULTS=1 SERVBENCH_REQUIRE_SERVERS=1 $(GO) test -count=1 -p 1 -run '^TestFault' ./db/...

# Micro-benchmarks of the hot path; scripts/bench-bindings measures bindings.
bench:
	$(GO) test -run X -bench . -benchmem ./generator ./workload ./measure ./workload/customer

# Each fuzz target for FUZZTIME (the seed corpora run in every go test).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run X -fuzz FuzzParse -fuzztime $(FUZZTIME) ./props
	$(GO) test -run X -fuzz FuzzParse -fuzztime $(FUZZTIME) ./plan
	$(GO) test -run X -fuzz FuzzDecode -fuzztime $(FUZZTIME) ./result
	$(GO) test -run X -fuzz FuzzMerge -fuzztime $(FUZZTIME) ./result
