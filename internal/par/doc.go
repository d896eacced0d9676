// Package par is the one worker pool of the module, with the small helpers
// the algorithm packages share. The CPU backends' blocked driver
// (backend.CPU) and the algorithm packages' row loops (kmp, greedy) run
// their parallel work through it: work is cut into tasks that goroutines
// (the calling one included) claim in order from a shared counter, so
// uneven tasks and busy cores balance out; no goroutine outlives a call.
package par
