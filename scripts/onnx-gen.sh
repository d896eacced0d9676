#!/usr/bin/env bash
# onnx-gen.sh — regenerate onnxexport/internal/onnxpb/onnx-ml.pb.go from the
# ONNX schema beside it (onnx-ml.proto, ONNX v1.22.0, Apache-2.0) with protoc
# (Debian's protobuf-compiler) and protoc-gen-go (google.golang.org/protobuf,
# the version go.mod names). Run by `go generate ./onnxexport/...`.
#
# The schema's protobuf package is renamed from onnx to pursuit.onnxpb on the
# way: package names never reach the wire format, so the files written are
# plain ONNX, and a program that links another Go copy of the ONNX schema
# does not get a protobuf registration conflict.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$REPO/onnxexport/internal/onnxpb"
command -v protoc >/dev/null || { echo "onnx-gen: protoc not found (apt-get install protobuf-compiler)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
version="$(go -C "$REPO" list -m -f '{{.Version}}' google.golang.org/protobuf)"
GOBIN="$tmp/bin" go -C "$REPO" install "google.golang.org/protobuf/cmd/protoc-gen-go@$version"
sed 's/^package onnx;$/package pursuit.onnxpb;/' "$DIR/onnx-ml.proto" > "$tmp/onnx-ml.proto"
grep -q '^package pursuit.onnxpb;$' "$tmp/onnx-ml.proto" || { echo "onnx-gen: no 'package onnx;' line in onnx-ml.proto" >&2; exit 1; }
PATH="$tmp/bin:$PATH" protoc --proto_path="$tmp" --go_out="$tmp" --go_opt=paths=source_relative \
  --go_opt=Monnx-ml.proto=github.com/pursuit-ml/pursuit/onnxexport/internal/onnxpb \
  "$tmp/onnx-ml.proto"
cp "$tmp/onnx-ml.pb.go" "$DIR/onnx-ml.pb.go"
