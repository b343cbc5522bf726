#!/usr/bin/env bash
# Debian packages that the real-X tests (cue record: Xvfb, a window manager, X clients driven
# by xdotool) and the real-browser tests (ctx ui: Chromium + ChromeDriver) need — SPEC §5.
# Installs what is missing when run as root with apt-get. Otherwise it says what is missing
# and those tests skip with the reason — except under CI, where a missing package is an
# error: CI must never silently run less.
set -euo pipefail
PACKAGES=(xvfb openbox xdotool xterm x11-utils chromium chromium-driver)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif [ -n "${CI:-}" ]; then
  echo "system packages missing and cannot be installed here (not root or no apt-get): ${missing[*]}" >&2
  exit 1
else
  echo "system packages missing (the tests that need them will skip): ${missing[*]}" >&2
fi
