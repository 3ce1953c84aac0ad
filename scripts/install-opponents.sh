#!/usr/bin/env bash
# Install what scripts/match.py needs: python-chess (PyPI package "chess") and
# the Debian opponent engines. Idempotent: anything already present is skipped,
# and apt-get update only runs when a package is actually missing.
#
#   scripts/install-opponents.sh          # install missing pieces, then list them
#   scripts/install-opponents.sh --check  # only report; exit 1 if something is missing
#
# Debian package -> binary (what match.py's presets use):
#   stockfish      -> /usr/games/stockfish       (Stockfish 15.1, UCI_Elo 1350..2850)
#   toga2          -> /usr/games/toga2           (Toga II 3.0)
#   glaurung       -> /usr/games/glaurung        (Glaurung 2.2)
#   ethereal-chess -> /usr/games/ethereal-chess  (Ethereal 12.00)
set -euo pipefail

CHECK_ONLY=0
[[ "${1:-}" == "--check" ]] && CHECK_ONLY=1

PY=${PYTHON:-python3}
declare -A BIN=(
  [stockfish]=/usr/games/stockfish
  [toga2]=/usr/games/toga2
  [glaurung]=/usr/games/glaurung
  [ethereal-chess]=/usr/games/ethereal-chess
)
PKGS=(stockfish toga2 glaurung ethereal-chess)

SUDO=""
if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

missing=0

# --- python-chess ---------------------------------------------------------
if "$PY" -c 'import chess, chess.engine' 2>/dev/null; then
  echo "python-chess: present ($("$PY" -c 'import chess; print(chess.__version__)'))"
elif [[ $CHECK_ONLY -eq 1 ]]; then
  echo "python-chess: MISSING"; missing=1
else
  echo "python-chess: installing (pip install chess)"
  if ! "$PY" -m pip --version >/dev/null 2>&1; then
    $SUDO apt-get update
    $SUDO apt-get install -y python3-pip
  fi
  # PEP 668 ("externally managed") Pythons refuse a plain pip install; retry with the override.
  "$PY" -m pip install chess || "$PY" -m pip install --break-system-packages chess
  "$PY" -c 'import chess, chess.engine'
fi

# --- engines --------------------------------------------------------------
todo=()
for p in "${PKGS[@]}"; do
  if [[ -x "${BIN[$p]}" ]]; then
    echo "$p: present (${BIN[$p]})"
  else
    todo+=("$p")
  fi
done
if (( ${#todo[@]} )); then
  if [[ $CHECK_ONLY -eq 1 ]]; then
    echo "MISSING Debian packages: ${todo[*]}"; missing=1
  else
    echo "installing Debian packages: ${todo[*]}"
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${todo[@]}"
    for p in "${todo[@]}"; do
      if [[ ! -x "${BIN[$p]}" ]]; then
        echo "error: package $p installed but ${BIN[$p]} not found; files:" >&2
        dpkg -L "$p" | grep -E '/(s?bin|games)/' >&2 || true
        exit 1
      fi
    done
  fi
fi

# --- report ---------------------------------------------------------------
for p in "${PKGS[@]}"; do
  b=${BIN[$p]}
  [[ -x "$b" ]] || continue
  id=$( (printf 'uci\nquit\n') | timeout 10 "$b" 2>/dev/null | sed -n 's/^id name //p' | head -1 || true)
  printf '  %-15s %-28s %s\n' "$p" "$b" "${id:-?}"
done
exit $missing
