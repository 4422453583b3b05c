# Sourced by scripts/beamtalk and scripts/test: installs, on first run, what
# beamtalk needs from a fresh checkout: Erlang/OTP (Debian packages) and a
# virtual environment with the package and its test extras.
# shellcheck shell=bash

BT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

bt_as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

bt_ensure_erlang() {
  # Mnesia keeps a workspace's durable state (erl_support/beamtalk_store.erl).
  if command -v erl >/dev/null 2>&1 && command -v erlc >/dev/null 2>&1 \
     && erl -noshell -eval 'halt(case code:which(mnesia) of non_existing -> 1; _ -> 0 end)' >/dev/null 2>&1; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "beamtalk: Erlang/OTP is missing and this system has no apt-get; install Erlang/OTP 25 or newer and try again." >&2
    exit 1
  fi
  echo "beamtalk: installing Erlang/OTP from Debian (erlang-base, erlang-eunit, erlang-mnesia)..." >&2
  bt_as_root apt-get update -q >&2
  bt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    erlang-base erlang-eunit erlang-mnesia >&2
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
