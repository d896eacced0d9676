// Package onnxrt runs ONNX models with onnxruntime, the peer that Pursuit's
// ONNX export is checked against: node runs scripts/onnx-predict.mjs with
// npm's onnxruntime-node, which scripts/onnxruntime.sh installs into
// .cache/onnxrt (.ci/run calls it). It is for tests: Require skips a test
// where node or onnxruntime-node is missing, and fails it under CI.
package onnxrt
