# MockAPNs: `make run` starts the gateway, `make test` runs the whole suite.
# Both install missing Debian packages first (scripts/install-deps.sh).

SWIFT ?= swift
BIN := .build/release/mock-apns
# Extra flags for `make run`, e.g. make run ARGS="--environment production".
ARGS ?=

.PHONY: all deps build run test format format-check bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product mock-apns

run: build
	$(BIN) --tls-cert tls/server.pem --tls-key tls/server-key.pem $(ARGS)

# The Swift sources as `swift format` (the toolchain's) writes them, by `.swift-format`.
FORMAT_PATHS := Package.swift Sources Tests

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

bench: build
	bench/run.sh

clean:
	rm -rf .build
