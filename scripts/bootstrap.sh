# Sourced by scripts/beamtalk and scripts/test: installs, on first run, what
# beamtalk needs from a fresh checkout: Erlang/OTP (Debian packages) and a
# virtual environment with the package and its test extras.
# shellcheck shell=bash

BT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

bt_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# TLS distribution (`beamtalk workspace start --tls`, `repl --credentials`)
# needs OTP's ssl application and what it stands on; Mnesia keeps a
# workspace's durable state (erl_support/beamtalk_store.erl).
BT_ERLANG_PACKAGES="erlang-base erlang-eunit erlang-ssl erlang-crypto erlang-public-key erlang-asn1 erlang-mnesia"

bt_has_erlang_libs() {   # without starting erl: a glob in the installation's lib/
  local root
  root="$(dirname "$(readlink -f "$(command -v erl)")")/.."
  compgen -G "$root/lib/ssl-*" >/dev/null && compgen -G "$root/lib/public_key-*" >/dev/null \
    && compgen -G "$root/lib/mnesia-*" >/dev/null
}

bt_ensure_erlang() {
  if command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1 && bt_has_erlang_libs; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "beamtalk: Erlang/OTP is missing and this system has no apt-get; install Erlang/OTP 25 or newer and try again." >&2
    exit 1
  fi
  echo "beamtalk: installing Erlang/OTP from Debian ($BT_ERLANG_PACKAGES)..." >&2
  bt_as_root apt-get update -q >&2
  # shellcheck disable=SC2086 # a list of package names
  bt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    $BT_ERLANG_PACKAGES >&2
}

bt_ensure_venv() {
  local venv="$BT_ROOT/.venv" stamp="$BT_ROOT/.venv/.beamtalk-installed"
  if [ -x "$venv/bin/beamtalk" ] && [ -f "$stamp" ] && [ "$stamp" -nt "$BT_ROOT/pyproject.toml" ]; then
    return 0
  fi
  local py="${PYTHON:-python3}"
  if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "beamtalk: Python 3.11 or newer is needed (found: $("$py" --version 2>&1))." >&2
    exit 1
  fi
  echo "beamtalk: creating $venv and installing beamtalk_ws..." >&2
  if ! "$py" -m venv "$venv" >&2; then
    bt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >&2
    "$py" -m venv "$venv" >&2
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$BT_ROOT[test]" >&2
  touch "$stamp"
}

bt_ensure_erlang
bt_ensure_venv
