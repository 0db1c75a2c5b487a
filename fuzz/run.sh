#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/Harnesses, declared in Package.swift when MOCK_APNS_FUZZ
# is set) with -sanitize=fuzzer,address and runs them (docs/fuzzing.md).
#
#   fuzz/run.sh [--smoke] [HARNESS...]
#
# Default: each harness for FUZZ_SECONDS (60) seconds from its seeds (fuzz/corpus/<harness>)
# plus what earlier runs found (.build/fuzz/corpus/<harness>), with its dictionary
# (fuzz/dictionaries/<harness>.dict) when there is one. --smoke: each harness over its seeds
# then generated inputs, FUZZ_SMOKE_RUNS (2000) runs in all, a few seconds each (make test).
# A crash, leak or timeout stops the script with a non-zero status; the input is written to
# .build/fuzz/artifacts/<harness>/ (add it to fuzz/corpus and as a regression test), and
# libFuzzer's full output, with the stack, to .build/fuzz/logs/<harness>.log.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
# A Swift runtime trap is libFuzzer's to report (a deadly signal, the input saved); the Swift
# backtracer would run first and trip AddressSanitizer itself.
export SWIFT_BACKTRACE=enable=no
SECONDS_EACH=${FUZZ_SECONDS:-60}
SMOKE_RUNS=${FUZZ_SMOKE_RUNS:-2000}
ALL=(LegacyBinaryFuzz PushValidationFuzz ControlAPIFuzz ConfigurationFuzz FaultRuleFuzz BroadcastFuzz
    ProviderTokenFuzz CertificateFuzz)

smoke=0
if [[ ${1:-} == --smoke ]]; then
    smoke=1
    shift
fi
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=("${ALL[@]}")

BUILD=.build/fuzz
build() {
    # ld.gold warns that it cannot export ASan's local symbols; that line is noise, not ours.
    MOCK_APNS_FUZZ=1 $SWIFT build --build-path "$BUILD" -c release \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product "$1" 2>&1 |
        grep -v "Cannot export local symbol" || true
    [[ -x $BUILD/release/$1 ]] || { echo "fuzz: $1 did not build" >&2; exit 1; }
}

for harness in "${harnesses[@]}"; do
    build "$harness"
    seeds=fuzz/corpus/$harness
    found=$BUILD/corpus/$harness
    artifacts=$BUILD/artifacts/$harness
    mkdir -p "$found" "$artifacts"
    options=(-artifact_prefix="$artifacts/" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1)
    dict=fuzz/dictionaries/$harness.dict
    [[ -f $dict ]] && options+=(-dict="$dict")
    if [[ $smoke == 1 ]]; then
        echo "fuzz: $harness, smoke ($SMOKE_RUNS runs, the seeds first)"
        # New inputs go to the first folder given: a scratch one, so the seeds stay as checked in.
        scratch=$(mktemp -d)
        "$BUILD/release/$harness" "${options[@]}" -runs="$SMOKE_RUNS" -seed=1 "$scratch" "$seeds" 2>&1 |
            grep -E "^#[0-9]+.*(INITED|DONE)|^Done|ERROR|SUMMARY|Test unit|artifact|leak" | tail -n 12
        status=${PIPESTATUS[0]}
        rm -rf "$scratch"
    else
        echo "fuzz: $harness for $SECONDS_EACH s"
        # libFuzzer's whole output (stacks included) goes to .build/fuzz/logs/<harness>.log.
        mkdir -p "$BUILD/logs"
        "$BUILD/release/$harness" "${options[@]}" -max_total_time="$SECONDS_EACH" "$found" "$seeds" 2>&1 |
            tee "$BUILD/logs/$harness.log" |
            grep -E "^#[0-9]+.*(pulse|DONE)|^(stat|Done)|ERROR|SUMMARY|Test unit|artifact|leak" | tail -n 20
        status=${PIPESTATUS[0]}
    fi
    if [[ $status != 0 ]]; then
        echo "fuzz: $harness failed (status $status); inputs in $artifacts" >&2
        exit 1
    fi
done
