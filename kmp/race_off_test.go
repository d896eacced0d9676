//go:build !race

package kmp

const raceEnabled = false
