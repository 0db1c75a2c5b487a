#!/usr/bin/env bash
# Instructions per request, MockAPNs against nghttpd, counted by callgrind (valgrind): the same
# count whatever else the machine is doing, so it can be compared across builds and busy
# machines where requests/s cannot. See bench/README.md, "Instructions per request".
#
#   bench/callgrind.sh [--bin PATH] [-n REQUESTS] [--shapes "varied fan-out repeat devices"] [--keep]
#
# --shapes runs only the named shapes; --keep copies each run's callgrind file to
# bench/out/callgrind-<shape>-<server>.out, for callgrind_annotate (the per-function split).
#
# Shapes, each on a fresh server after a 1,000-request warm-up on another connection:
#   varied   bench/varied.py -c 1 -m 100: every push differs from the one before it in device
#            token (1,000 in turn) and in payload, as a sender notifying many devices sends them
#   fan-out  h2load -c 4 -m 100 -i: 1,000 device tokens in turn, the same 25-byte payload
#   repeat   h2load -c 4 -m 100: one device token, one payload
#   devices  fan-out with each of the 1,000 tokens a virtual device (online, foreground),
#            registered through the control API first (PUT /v1/devices/{token}); nghttpd as
#            for fan-out. Not in the default set (opt in: --shapes devices)
# Prints instructions per request for both servers and MockAPNs's ratio to nghttpd; writes
# bench/out/callgrind-*.json. Needs valgrind, h2load, nghttpd and Python's h2 (scripts/install-deps.sh
# --test, and apt-get install valgrind).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HELPER=(python3 "$ROOT/bench/helper.py")
BIN=""
N=10000
SHAPES="varied fan-out repeat"
KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) [ $# -ge 2 ] || { echo "error: --bin needs a path" >&2; exit 2; }; BIN="$2"; shift ;;
    -n) [ $# -ge 2 ] || { echo "error: -n needs a count" >&2; exit 2; }; N="$2"; shift ;;
    --shapes) [ $# -ge 2 ] || { echo "error: --shapes needs a list" >&2; exit 2; }; SHAPES="$2"; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "error: -n must be a positive integer" >&2; exit 2; }
for shape in $SHAPES; do
  case "$shape" in varied|fan-out|repeat|devices) ;; *) echo "error: unknown shape $shape (varied, fan-out, repeat, devices)" >&2; exit 2 ;; esac
done
for tool in valgrind callgrind_control h2load nghttpd python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool is missing (apt-get install valgrind nghttp2-client nghttp2-server)" >&2; exit 1; }
done
python3 -c 'import h2' 2>/dev/null || { echo "error: Python's h2 is missing (pip install -r tests/live/requirements.txt)" >&2; exit 1; }
cd "$ROOT"
if [ -z "$BIN" ]; then
  swift build -c release --product mock-apns
  BIN="$ROOT/.build/release/mock-apns"
fi
CERT="$ROOT/tls/server.pem"
KEY="$ROOT/tls/server-key.pem"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mockapns-callgrind.XXXXXX")"
PID=""
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"${HELPER[@]}" payload 25 "$WORK/small.json"
"${HELPER[@]}" tokens 1000 >"$WORK/tokens.txt"
mkdir -p "$WORK/docroot/3/device"
while read -r t; do : >"$WORK/docroot/3/device/$t"; done <"$WORK/tokens.txt"
ONE="$(head -n 1 "$WORK/tokens.txt")"

start() {   # server [shape] -> sets PID and PORT
  PORT="$("${HELPER[@]}" freeport)"
  local vg=(valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" --dump-instr=no)
  local control=(--control off)
  if [ "${2:-}" = devices ]; then CONTROL="$("${HELPER[@]}" freeport)"; control=(--control "127.0.0.1:$CONTROL"); fi
  case "$1" in
    mockapns)
      # Control API off (on for devices), a store large enough that nothing is evicted; one worker.
      "${vg[@]}" "$BIN" --listen "127.0.0.1:$PORT" "${control[@]}" --tls-cert "$CERT" --tls-key "$KEY" \
        --max-records 200000 >"$WORK/server.log" 2>&1 & ;;
    nghttpd)
      "${vg[@]}" nghttpd -d "$WORK/docroot" "$PORT" "$KEY" "$CERT" >"$WORK/server.log" 2>&1 & ;;
  esac
  PID=$!
  "${HELPER[@]}" wait-port "$PORT" 60 || { echo "error: $1 did not start under valgrind:" >&2; cat "$WORK/server.log" >&2; exit 1; }
  if [ "$1" = mockapns ] && [ "${2:-}" = devices ]; then
    "${HELPER[@]}" wait-port "$CONTROL" 60 || { echo "error: no control API:" >&2; cat "$WORK/server.log" >&2; exit 1; }
    register_devices "$CONTROL"
  fi
}

register_devices() {   # control-port: each token of tokens.txt a virtual device, online, foreground
  python3 - "$1" "$WORK/tokens.txt" <<'EOF'
import json, sys, urllib.request
port, tokens = sys.argv[1], open(sys.argv[2]).read().split()
body = json.dumps({"environment": "sandbox", "topic": "com.example.app", "virtual": True,
                   "connectivity": "online", "appState": "foreground"}).encode()
for token in tokens:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/devices/{token}", data=body, method="PUT",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        if response.status != 201:
            sys.exit(f"error: PUT /v1/devices/{token}: {response.status}")
EOF
}

load() {   # shape requests
  case "$1" in
    varied) python3 bench/varied.py --port "$PORT" --tokens "$WORK/tokens.txt" -n "$2" -c 1 -m 100 ;;
    fan-out|devices)
      sed "s#^#https://127.0.0.1:$PORT/3/device/#" "$WORK/tokens.txt" >"$WORK/uris.txt"
      h2load -n "$2" -c 4 -m 100 -t 1 -d "$WORK/small.json" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -i "$WORK/uris.txt" | grep -E '^requests:' ;;
    repeat)
      h2load -n "$2" -c 4 -m 100 -t 1 -d "$WORK/small.json" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" "https://127.0.0.1:$PORT/3/device/$ONE" | grep -E '^requests:' ;;
  esac
}

# The last dump of $PID.
lastdump() { ls -t "$WORK"/cg."$PID"* | head -n 1; }

# Instructions of the last dump of $PID.
instructions() {
  local file
  file="$(lastdump)"
  awk '/^(summary|totals):/ { print $2; exit }' "$file"
}

RESULTS="$WORK/results.txt"
: >"$RESULTS"
mkdir -p bench/out
for shape in $SHAPES; do
  for server in mockapns nghttpd; do
    start "$server" "$shape"
    load "$shape" 1000 >/dev/null
    callgrind_control -z "$PID" >/dev/null
    out="$(load "$shape" "$N")" || { echo "error: $shape against $server: $out" >&2; exit 1; }
    callgrind_control -d "$PID" >/dev/null
    ir="$(instructions)"
    if [ -n "$KEEP" ]; then cp "$(lastdump)" "bench/out/callgrind-$shape-$server.out"; fi
    kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=""
    per=$(( ir / N ))
    echo "$shape $server $per" >>"$RESULTS"
    printf '%-8s %-9s %8d instructions per request\n' "$shape" "$server" "$per"
  done
done

python3 - "$RESULTS" "bench/out/callgrind-$(date +%Y%m%d-%H%M%S).json" <<'EOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    shape, server, per = line.split()
    rows.setdefault(shape, {})[server] = int(per)
for shape, r in rows.items():
    r["ratio"] = round(r["mockapns"] / r["nghttpd"], 2)
    print("%-8s MockAPNs %d, nghttpd %d: %.2fx nghttpd's instructions" % (shape, r["mockapns"], r["nghttpd"], r["ratio"]))
json.dump(rows, open(sys.argv[2], "w"), indent=2)
print("written:", sys.argv[2])
EOF
