#!/usr/bin/env bash
# MockAPNs benchmark: MockAPNs (default configuration: full validation and
# recording, no faults) against nghttpd serving an empty file, both HTTP/2 over
# TLS on loopback, driven by h2load; then MockAPNs with strict provider-token
# (JWT) authentication against MockAPNs without authentication. See bench/README.md.
#
#   bench/run.sh              full run (release build, 3 rounds, several minutes)
#   bench/run.sh --quick      1 round, fewer requests: under a minute (plus the build without --bin)
#   bench/run.sh --bin PATH   use this mock-apns binary instead of building
#   bench/run.sh --soak [S]   only the soak: S seconds (default 600) of h2load at full
#                             speed against MockAPNs with default settings, sampling RSS
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: bench/run.sh [--quick] [--rounds N] [--bin PATH] [--soak [SECONDS]] [--help]

  --quick       one round with fewer requests per run; under a minute (plus the build without --bin)
  --rounds N    rounds of alternating MockAPNs/nghttpd runs (default 3, quick 1)
  --tests LIST  only the throughput runs of these tests, comma-separated (small, 4KB, fan-out,
                devices); skips the JWT, start-up, memory and dump measurements
  --bin PATH    benchmark this mock-apns binary; skips `swift build`
  --soak [S]    run only the soak test: S seconds (default 600) of h2load at full
                speed (-c 4 -m 100, 100-byte payloads) against MockAPNs with its
                default settings (ring of 100,000 records), sampling its RSS every
                10 s; says whether RSS stayed flat once the ring was full
  -h, --help    print this help

Builds the release binary (swift build -c release --product mock-apns) unless
--bin is given, then measures throughput and latency against nghttpd, checks
that MockAPNs recorded every request, measures what strict JWT provider
authentication costs in throughput (--auth strict against --auth none), and
measures start-up time, memory per delivery record and the time to dump 100,000
records as JSON. Results: printed, and written to bench/out/results-*.json
(the soak: bench/out/soak-*.json).
Needs h2load and nghttpd (Debian nghttp2-client, nghttp2-server): scripts/install-deps.sh.
EOF
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HELPER=(python3 "$ROOT/bench/helper.py")
MODE=full
ROUNDS=""
BIN=""
SOAK=""
TESTS=""

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) MODE=quick ;;
    --rounds) [ $# -ge 2 ] || { echo "error: --rounds needs a value" >&2; exit 2; }; ROUNDS="$2"; shift ;;
    --rounds=*) ROUNDS="${1#*=}" ;;
    --bin) [ $# -ge 2 ] || { echo "error: --bin needs a path" >&2; exit 2; }; BIN="$2"; shift ;;
    --bin=*) BIN="${1#*=}" ;;
    --tests) [ $# -ge 2 ] || { echo "error: --tests needs a list" >&2; exit 2; }; TESTS="$2"; shift ;;
    --tests=*) TESTS="${1#*=}" ;;
    --soak)
      SOAK=600
      if [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]]; then SOAK="$2"; shift; fi ;;
    --soak=*) SOAK="${1#*=}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$ROUNDS" ] && ! [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: --rounds must be a positive integer" >&2; exit 2
fi
if [ -n "$SOAK" ] && ! [[ "$SOAK" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: --soak takes a positive number of seconds" >&2; exit 2
fi

# ---------------------------------------------------------------- tools
missing=()
for tool in h2load nghttpd python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "error: missing ${missing[*]} (h2load: Debian nghttp2-client, nghttpd: nghttp2-server)." >&2
  echo "       Install them with scripts/install-deps.sh (make bench does this), then run again." >&2
  exit 1
fi

cd "$ROOT"
if [ -z "$BIN" ]; then
  command -v swift >/dev/null 2>&1 || {
    echo "error: swift is not on PATH; install the toolchain (see scripts/install-deps.sh) or pass --bin PATH" >&2
    exit 1
  }
  echo "==> building: swift build -c release --product mock-apns"
  swift build -c release --product mock-apns
  BIN="$ROOT/.build/release/mock-apns"
fi
[ -x "$BIN" ] || { echo "error: $BIN is not an executable mock-apns binary" >&2; exit 1; }
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
CERT="$ROOT/tls/server.pem"
KEY="$ROOT/tls/server-key.pem"
[ -r "$CERT" ] && [ -r "$KEY" ] || { echo "error: test certificate $CERT / $KEY missing" >&2; exit 1; }
# Strict JWT run: the fixture key manifest and one of its keys (team scope, sandbox and production).
AUTH_KEYS="$ROOT/fixtures/auth/keys.json"
JWT_ARGS=(--key "$ROOT/fixtures/auth/AuthKey_TEAMUNI001.p8" --key-id TEAMUNI001 --team-id TEAM000001)
[ -r "$AUTH_KEYS" ] || { echo "error: provider-token fixtures $AUTH_KEYS missing" >&2; exit 1; }
# Fail now rather than after the throughput runs if this binary cannot sign a provider token.
if ! jwt_check="$("$BIN" jwt "${JWT_ARGS[@]}" 2>&1)" || [ -z "$jwt_check" ]; then
  echo "error: '$BIN jwt ${JWT_ARGS[*]}' failed (a mock-apns without provider authentication?):" >&2
  echo "$jwt_check" >&2
  exit 1
fi

# ---------------------------------------------------------------- plan
# Requests per h2load run: ~2-5 s per run in full mode on a 2-core machine.
if [ "$MODE" = quick ]; then
  ROUNDS="${ROUNDS:-1}"
  N_C1M1=6000; N_M100=25000; N_C64=25000; N_C1000=5000; N_4K=10000; N_RECORDS=200000
  STARTS=5
else
  ROUNDS="${ROUNDS:-3}"
  N_C1M1=20000; N_M100=200000; N_C64=200000; N_C1000=100000; N_4K=100000; N_RECORDS=1000000
  STARTS=11
fi
# test name | shape label | -c | -m | requests | payload file
SHAPES=(
  "small|-c1 -m1|1|1|$N_C1M1|small"
  "small|-c1 -m100|1|100|$N_M100|small"
  "small|-c4 -m100|4|100|$N_M100|small"
  "small|-c64 -m10|64|10|$N_C64|small"
  "small|-c1000 -m1|1000|1|$N_C1000|small"
  "4KB|-c4 -m100|4|100|$N_4K|4k"
  "fan-out|-c4 -m100|4|100|$N_M100|small"
  "devices|-c4 -m100|4|100|$N_M100|small"
)
if [ -n "$TESTS" ]; then
  chosen=()
  IFS=',' read -r -a wanted <<<"$TESTS"
  for name in "${wanted[@]}"; do
    found=0
    for spec in "${SHAPES[@]}"; do
      if [ "${spec%%|*}" = "$name" ]; then chosen+=("$spec"); found=1; fi
    done
    if [ "$found" -eq 0 ]; then echo "error: --tests: unknown test $name (small, 4KB, fan-out, devices)" >&2; exit 2; fi
  done
  SHAPES=("${chosen[@]}")
fi
# The strict JWT auth run: one shape, MockAPNs --auth strict (label "strict") against
# MockAPNs --auth none (label "no-auth"), alternating like the runs above.
JWT_SHAPE="jwt|-c4 -m100|4|100|$N_M100|small"
JWT=""   # the provider token, minted once just before those runs
NWARM=1000
TOKEN="$(printf 'ab%.0s' $(seq 32))"   # 64 hex characters
PATH_URL="/3/device/$TOKEN"
# The fan-out run pushes to FANOUT device tokens in turn (h2load -i), as a sender notifying many
# devices does: no push repeats the one before it on its connection.
FANOUT=1000
# The devices run: the fan-out traffic with each of those tokens an online, foreground virtual
# device (docs/device-model.md), registered by a configuration file; nghttpd as for fan-out.
HEADERS=(-H "apns-topic: com.example.app" -H "apns-push-type: alert")

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mockapns-bench.XXXXXX")"
OUT_DIR="$ROOT/bench/out"
mkdir -p "$OUT_DIR"
STAMP="$(date +%Y%m%d-%H%M%S)"
JSONL="$WORK/results.jsonl"
: > "$JSONL"

MA_PID=""
NG_PID=""
cleanup() {
  local pid
  for pid in "$MA_PID" "$NG_PID"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  MA_PID=""; NG_PID=""
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

"${HELPER[@]}" payload 25 "$WORK/small.json"     # {"aps":{"alert":"hello"}}
"${HELPER[@]}" payload 4096 "$WORK/4k.json"      # the APNs maximum for an alert
"${HELPER[@]}" payload 100 "$WORK/100.json"      # for bytes per record
payload_bytes() { wc -c < "$WORK/$1.json" | tr -d ' '; }

# nghttpd serves the empty file at the same path MockAPNs is pushed to.
DOCROOT="$WORK/docroot"
mkdir -p "$DOCROOT/3/device"
: > "$DOCROOT$PATH_URL"
"${HELPER[@]}" tokens "$FANOUT" >"$WORK/tokens.txt"
while read -r t; do : > "$DOCROOT/3/device/$t"; done <"$WORK/tokens.txt"
python3 - "$WORK/tokens.txt" "$WORK/devices.json" <<'PY'
import json, sys
tokens = open(sys.argv[1]).read().split()
devices = [{"token": t, "environment": "sandbox", "topic": "com.example.app", "virtual": True,
            "connectivity": "online", "appState": "foreground"} for t in tokens]
json.dump({"devices": devices}, open(sys.argv[2], "w"))
PY

# ---------------------------------------------------------------- servers
MA_APNS=""; MA_CONTROL=""
start_mockapns() {   # $1 = --max-records ("" for the default), then extra options; sets MA_PID, MA_APNS, MA_CONTROL
  local log="$WORK/mockapns.log" ports max="$1" limit=()
  shift
  if [ -n "$max" ]; then limit=(--max-records "$max"); fi
  : > "$log"
  "$BIN" --listen 127.0.0.1:0 --control 127.0.0.1:0 --tls-cert "$CERT" --tls-key "$KEY" \
    "${limit[@]}" "$@" >"$log" 2>&1 &
  MA_PID=$!
  if ! ports="$("${HELPER[@]}" ports "$log" 15)"; then
    echo "error: MockAPNs did not report its ports; its output:" >&2; cat "$log" >&2; exit 1
  fi
  read -r MA_APNS MA_CONTROL <<<"$ports"
  "${HELPER[@]}" wait-port "$MA_APNS" 10 || { echo "error: MockAPNs port $MA_APNS never accepted" >&2; exit 1; }
}
stop_mockapns() {
  local rc=0
  kill -TERM "$MA_PID" 2>/dev/null || true
  wait "$MA_PID" || rc=$?
  MA_PID=""
  if [ "$rc" -ne 0 ]; then
    echo "    ! MockAPNs exited with status $rc on SIGTERM; its output:" >&2
    tail -n 20 "$WORK/mockapns.log" >&2
  fi
}
NG_PORT=""
start_nghttpd() {
  local try
  for try in 1 2 3; do
    NG_PORT="$("${HELPER[@]}" freeport)"
    nghttpd -d "$DOCROOT" "$NG_PORT" "$KEY" "$CERT" >"$WORK/nghttpd.log" 2>&1 &
    NG_PID=$!
    if "${HELPER[@]}" wait-port "$NG_PORT" 5 && kill -0 "$NG_PID" 2>/dev/null; then
      return 0
    fi
    kill -TERM "$NG_PID" 2>/dev/null || true; wait "$NG_PID" 2>/dev/null || true; NG_PID=""
  done
  echo "error: nghttpd would not start; its output:" >&2; cat "$WORK/nghttpd.log" >&2; exit 1
}
stop_nghttpd() {
  kill -TERM "$NG_PID" 2>/dev/null || true
  wait "$NG_PID" 2>/dev/null || true
  NG_PID=""
}

# One run against a fresh server: a warm-up, a throughput pass of n requests, then a
# latency pass of n/4 with h2load's per-request log (writing that log costs
# h2load 15-25% of its request rate, so requests/s come from the pass without
# it). Appends a JSON line and prints a line.
# Servers: mockapns (default configuration), nghttpd, and for the JWT run no-auth
# (MockAPNs --auth none) and strict (MockAPNs --auth strict --keys), every request of
# both carrying the provider token $JWT.
run_one() {   # server test shape c m n payload round
  local server="$1" test="$2" shape="$3" c="$4" m="$5" n="$6" payload="$7" round="$8"
  local port warmexit=0 h2exit=0 latexit=0 hwm=0 stats="$WORK/stats.json" identity="$WORK/identity.json"
  local nlat=$(( n / 4 > c ? n / 4 : c ))
  local max=$(( NWARM + n + nlat > 100000 ? NWARM + n + nlat : 100000 ))
  local headers=("${HEADERS[@]}")
  rm -f "$WORK/h2.log" "$WORK/h2.out" "$WORK/h2lat.out" "$stats" "$identity"
  # A fresh MockAPNs per run keeps every run's store and RSS separate. The
  # retention cap is raised to the run's size only so nothing is evicted and
  # the store count can be compared with the requests sent.
  case "$server" in
    mockapns)
      if [ "$test" = devices ]; then start_mockapns "$max" --config "$WORK/devices.json"
      else start_mockapns "$max"; fi
      port="$MA_APNS" ;;
    no-auth)
      # The same traffic as the strict run, token included: only the server's check differs.
      start_mockapns "$max" --auth none; port="$MA_APNS"
      headers+=(-H "authorization: bearer $JWT") ;;
    strict)
      start_mockapns "$max" --auth strict --keys "$AUTH_KEYS"; port="$MA_APNS"
      # One token for every connection of every pass; MockAPNs verifies it once per connection.
      headers+=(-H "authorization: bearer $JWT") ;;
    nghttpd) start_nghttpd; port="$NG_PORT" ;;
    *) echo "error: unknown server $server" >&2; exit 1 ;;
  esac
  local target=("https://127.0.0.1:$port$PATH_URL")
  if [ "$test" = fan-out ] || [ "$test" = devices ]; then
    sed "s#^#https://127.0.0.1:$port/3/device/#" "$WORK/tokens.txt" >"$WORK/uris.txt"
    target=(-i "$WORK/uris.txt")
  fi
  # Warm-up: 1,000 requests on one connection, not measured (but recorded).
  h2load -n "$NWARM" -c 1 -m 10 -t 1 -d "$WORK/$payload.json" "${headers[@]}" "${target[@]}" \
    >"$WORK/h2warm.out" 2>&1 || warmexit=$?
  h2load -n "$n" -c "$c" -m "$m" -t 1 -d "$WORK/$payload.json" "${headers[@]}" "${target[@]}" \
    >"$WORK/h2.out" 2>&1 || h2exit=$?
  h2load -n "$nlat" -c "$c" -m "$m" -t 1 -d "$WORK/$payload.json" "${headers[@]}" \
    --log-file="$WORK/h2.log" "${target[@]}" >"$WORK/h2lat.out" 2>&1 || latexit=$?
  if [ "$server" != nghttpd ]; then
    "${HELPER[@]}" stats "$MA_CONTROL" >"$stats" 2>"$WORK/stats.err" || cp "$WORK/stats.err" "$stats"
    if [ "$server" = strict ]; then
      # How MockAPNs authenticated the first request: a verified token of the key above.
      "${HELPER[@]}" identity "$MA_CONTROL" >"$identity" 2>"$WORK/identity.err" || cp "$WORK/identity.err" "$identity"
    fi
    read -r _ hwm <<<"$("${HELPER[@]}" rss "$MA_PID")"
    stop_mockapns
  else
    stop_nghttpd
  fi
  local extra=()
  if [ "$server" = strict ]; then extra=(--identity "$identity" --key-id TEAMUNI001); fi
  "${HELPER[@]}" run --jsonl "$JSONL" --test "$test" --shape "$shape" --server "$server" \
    --round "$round" --n "$n" --n-lat "$nlat" --n-warm "$NWARM" \
    --payload-bytes "$(payload_bytes "$payload")" --warm-exit "$warmexit" \
    --h2exit "$h2exit" --lat-exit "$latexit" --h2out "$WORK/h2.out" --lat-out "$WORK/h2lat.out" \
    --log "$WORK/h2.log" --stats "$stats" --hwm "$hwm" "${extra[@]}"
  if [ "$h2exit" -ne 0 ]; then tail -n 5 "$WORK/h2.out" | sed 's/^/    h2load: /'; fi
  if [ "$latexit" -ne 0 ]; then tail -n 5 "$WORK/h2lat.out" | sed 's/^/    h2load: /'; fi
  return 0
}

# ---------------------------------------------------------------- soak
# --soak: only this. MockAPNs with its default settings (no --max-records: the default ring
# of 100,000 records), h2load at full speed for the whole duration; the helper samples RSS
# and /v1/stats every 10 s and judges flatness from the moment the ring is full.
if [ -n "$SOAK" ]; then
  VERSION="$("$BIN" --version 2>&1 | head -n 1)"
  echo "==> soak: $SOAK s of h2load -c 4 -m 100 -t 1 ($(payload_bytes 100)-byte payloads) against MockAPNs with default settings"
  echo "    $VERSION; $(uname -srm), $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  start_mockapns ""
  sleep 0.3
  rc=0
  "${HELPER[@]}" soak --pid "$MA_PID" --control "$MA_CONTROL" --seconds "$SOAK" --interval 10 \
    --h2out "$WORK/h2soak.out" --out "$OUT_DIR/soak-$STAMP.json" -- \
    h2load -D "$SOAK" -c 4 -m 100 -t 1 -d "$WORK/100.json" "${HEADERS[@]}" \
    "https://127.0.0.1:$MA_APNS$PATH_URL" || rc=$?
  stop_mockapns
  echo "    load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
  exit "$rc"
fi

# ---------------------------------------------------------------- run
VERSION="$("$BIN" --version 2>&1 | head -n 1)"
H2VERSION="$(h2load --version 2>&1 | head -n 1)"
HOST="$(uname -srm), $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "==> $MODE mode, $ROUNDS round(s): $VERSION vs nghttpd, $H2VERSION; $HOST"
echo "    binary: $BIN"
LOAD1="$(cut -d' ' -f1 /proc/loadavg)"
if python3 -c "import sys; sys.exit(0 if float('$LOAD1') >= 0.5 else 1)"; then
  echo "    note: the machine is busy (load average $LOAD1 on $(nproc) cores); absolute figures and ratios will be noisy"
fi
T0=$SECONDS

echo "==> throughput and latency (h2load -t 1, TLS on loopback; A/B order alternates each round)"
for round in $(seq 1 "$ROUNDS"); do
  for spec in "${SHAPES[@]}"; do
    IFS='|' read -r test shape c m n payload <<<"$spec"
    if [ $(( round % 2 )) -eq 1 ]; then order=(mockapns nghttpd); else order=(nghttpd mockapns); fi
    for server in "${order[@]}"; do
      run_one "$server" "$test" "$shape" "$c" "$m" "$n" "$payload" "$round"
    done
  done
done

if [ -z "$TESTS" ]; then
echo "==> strict JWT auth: MockAPNs --auth strict --keys fixtures/auth/keys.json (strict) against"
echo "    MockAPNs --auth none (no-auth), h2load $(cut -d'|' -f2 <<<"$JWT_SHAPE"), both sent one provider token (key TEAMUNI001) on every request"
JWT="$("$BIN" jwt "${JWT_ARGS[@]}")"
IFS='|' read -r test shape c m n payload <<<"$JWT_SHAPE"
for round in $(seq 1 "$ROUNDS"); do
  if [ $(( round % 2 )) -eq 1 ]; then order=(no-auth strict); else order=(strict no-auth); fi
  for server in "${order[@]}"; do
    run_one "$server" "$test" "$shape" "$c" "$m" "$n" "$payload" "$round"
  done
done

echo "==> start-up time: exec to the first accepted connect() on the APNs port"
"${HELPER[@]}" startup --bin "$BIN" --count "$STARTS" --label "test certificate" --jsonl "$JSONL" \
  -- --tls-cert "$CERT" --tls-key "$KEY"
"${HELPER[@]}" startup --bin "$BIN" --count "$STARTS" --label "ephemeral self-signed certificate" \
  --jsonl "$JSONL"

# Memory per record, twice: one push repeated (each connection's repeats are stored as deltas of
# its first push), then 1,000 device tokens in turn (every record in full). The first store,
# full, also times GET /v1/deliveries.
measure_records() {   # repeated|tokens
  local shape="$1" h2exit=0 label target
  start_mockapns "$N_RECORDS"
  if [ "$shape" = tokens ]; then
    label="1,000 device tokens in turn"
    sed "s#^#https://127.0.0.1:$MA_APNS/3/device/#" "$WORK/tokens.txt" >"$WORK/uris.txt"
    target=(-i "$WORK/uris.txt")
  else
    label="one push repeated"
    target=("https://127.0.0.1:$MA_APNS$PATH_URL")
  fi
  echo "==> memory per delivery record ($label): $N_RECORDS pushes of $(payload_bytes 100)-byte payloads, --max-records $N_RECORDS"
  sleep 0.3
  read -r rss_start _ <<<"$("${HELPER[@]}" rss "$MA_PID")"
  h2load -n "$N_RECORDS" -c 4 -m 100 -t 1 -d "$WORK/100.json" "${HEADERS[@]}" "${target[@]}" >"$WORK/h2.out" 2>&1 || h2exit=$?
  sleep 0.3
  read -r rss_after hwm <<<"$("${HELPER[@]}" rss "$MA_PID")"
  "${HELPER[@]}" stats "$MA_CONTROL" >"$WORK/stats.json" 2>"$WORK/stats.err" || echo '{}' >"$WORK/stats.json"
  "${HELPER[@]}" records --jsonl "$JSONL" --stats "$WORK/stats.json" --n "$N_RECORDS" --label "$label" \
    --payload-bytes "$(payload_bytes 100)" --rss-start "$rss_start" --rss-after "$rss_after" \
    --hwm "$hwm" --h2exit "$h2exit"
  if [ "$shape" = repeated ]; then
    echo "==> dump: GET /v1/deliveries?limit=100000 from that store (JSON of 100,000 records)"
    "${HELPER[@]}" dump --port "$MA_CONTROL" --pid "$MA_PID" --limit 100000 --jsonl "$JSONL" || true
  fi
  stop_mockapns
}
measure_records repeated
measure_records tokens
fi

echo "==> finished in $(( SECONDS - T0 )) s"
rc=0
"${HELPER[@]}" summary --jsonl "$JSONL" --out "$OUT_DIR/results-$STAMP.json" --mode "$MODE" \
  --rounds "$ROUNDS" --date "$(date -Iseconds)" \
  --host "$HOST; load average at end $(cut -d' ' -f1-3 /proc/loadavg)" \
  --version "$VERSION" --h2load-version "$H2VERSION" || rc=$?
exit "$rc"
