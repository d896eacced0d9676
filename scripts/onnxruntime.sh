#!/usr/bin/env bash
# onnxruntime.sh — install onnxruntime (npm's onnxruntime-node, whose tarball
# ships the Linux x64 CPU library) into .cache/onnxrt, where
# scripts/onnx-predict.mjs and the ONNX export tests look for it. The
# versions are pinned by scripts/onnxrt/package-lock.json. Idempotent: a
# second run with the same lock file does nothing. Run by .ci/run; needs
# node and npm (Debian's nodejs and npm; installed here when missing and
# run as root).
#
# Install scripts are not run: onnxruntime-node's postinstall only fetches
# the CUDA execution provider, from a host outside the npm registry.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$REPO/scripts/onnxrt"
DEST="$REPO/.cache/onnxrt"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  else
    echo "onnxruntime.sh: node or npm missing and not root: the ONNX tests will skip" >&2
    exit 0
  fi
fi
if [ -f "$DEST/package-lock.json" ] && cmp -s "$SRC/package-lock.json" "$DEST/package-lock.json" \
  && [ -f "$DEST/node_modules/onnxruntime-node/package.json" ]; then
  echo "onnxruntime-node already installed in .cache/onnxrt"
  exit 0
fi
mkdir -p "$DEST"
cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
(cd "$DEST" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
# Check that it loads and runs here (the CPU library for this machine is there).
node -e "require('$DEST/node_modules/onnxruntime-node'); console.log('onnxruntime-node', require('$DEST/node_modules/onnxruntime-node/package.json').version, 'installed in .cache/onnxrt')"
