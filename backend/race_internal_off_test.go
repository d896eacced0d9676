//go:build !race

package backend

// raceBuild says whether the internal tests run under the race detector.
const raceBuild = false
