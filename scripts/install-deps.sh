#!/usr/bin/env bash
# Installs what building, running and testing MockAPNs needs, when it is missing:
# Debian packages (C libraries, curl/nghttp/h2load), and with --test the live tests' own: pytest and
# friends from PyPI, Chromium and its WebDriver (Debian) for the web console's browser tests.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

packages=(pkg-config libnghttp2-dev libssl-dev libevent-dev libyajl-dev curl nghttp2-client nghttp2-server openssl python3)
# tests/live/test_console.py drives a headless Chromium through Selenium.
[ "${1:-}" = "--test" ] && packages+=(chromium chromium-driver)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--test" ] && ! python3 -c 'import pytest, xdist, h2, jwt, cryptography, prometheus_client, selenium' 2>/dev/null; then
  echo "installing the live tests' Python packages (tests/live/requirements.txt)"
  python3 -m pip install --quiet --disable-pip-version-check -r "$(dirname "$0")/../tests/live/requirements.txt"
fi

command -v swift >/dev/null || { echo "error: the Swift toolchain (swift) is not on PATH; install Swift 6 first" >&2; exit 1; }
