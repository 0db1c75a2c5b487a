# MockAPNs: `make run` starts the gateway, `make test` runs the whole suite.
# Both install missing Debian packages first (scripts/install-deps.sh).

SWIFT ?= swift
BIN := .build/release/mock-apns
# Extra flags for `make run`, e.g. make run ARGS="--environment production".
ARGS ?=

.PHONY: all deps build run test unit-test live-test bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product mock-apns

run: build
	$(BIN) --tls-cert tls/server.pem --tls-key tls/server-key.pem $(ARGS)

test: build
	@scripts/install-deps.sh --test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	MOCK_APNS_BIN=$(BIN) python3 -m pytest -q tests/live

bench: build
	bench/run.sh

clean:
	rm -rf .build
