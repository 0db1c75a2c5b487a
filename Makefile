# MockAPNs: `make run` starts the gateway, `make test` runs the whole suite.
# Both install missing Debian packages first (scripts/install-deps.sh).

SWIFT ?= swift
BIN := .build/release/mock-apns
# Extra flags for `make run`, e.g. make run ARGS="--environment production".
ARGS ?=

.PHONY: all deps build run test format format-check bench fuzz fuzz-smoke soak clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product mock-apns

run: build
	$(BIN) --tls-cert tls/server.pem --tls-key tls/server-key.pem $(ARGS)

# The Swift sources as `swift format` (the toolchain's) writes them, by `.swift-format`.
FORMAT_PATHS := Package.swift Sources Tests fuzz/Harnesses

format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

# Fails, naming file and line, where the sources differ from what `make format` writes.
format-check:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

test: format-check build
	@scripts/install-deps.sh --test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	MOCK_APNS_BIN=$(BIN) python3 -m pytest -q tests/live
	fuzz/run.sh --smoke

# Each libFuzzer harness for FUZZ_SECONDS (default 60) seconds (docs/fuzzing.md), e.g.
# make fuzz FUZZ_SECONDS=600, or one harness: make fuzz FUZZ_HARNESSES=ControlAPIFuzz.
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_HARNESSES)

# Every harness over its seeds and a few thousand generated inputs: seconds each.
fuzz-smoke: deps
	fuzz/run.sh --smoke $(FUZZ_HARNESSES)

bench: build
	bench/run.sh

# The soak (README "Soak"): good and bad pushes, fault rules, waits, live streams, DELETEs and
# connection churn for SOAK_SECONDS (default an hour), then RSS, descriptors, seq and the record
# counts checked. `make soak SOAK_SECONDS=120` is the two-minute form; `make test` runs it for 25 s.
SOAK_SECONDS ?= 3600
soak: build
	@scripts/install-deps.sh --test
	MOCK_APNS_BIN=$(BIN) SOAK_SECONDS=$(SOAK_SECONDS) python3 -m pytest -q -s -m soak tests/live/test_soak_invariants.py

clean:
	rm -rf .build
