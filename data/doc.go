// Package data loads, checks and prepares the example sets that Pursuit's
// learners train and predict on.
//
// It reads LIBSVM/svmlight files (sparse on disk; in memory dense float32, or
// compressed sparse rows in O(non-zeros) memory, chosen by WithStorage; with
// StorageAuto by the measured speed of kernel rows for the file's density
// and number of features, and by memory: see ResolveStorageLimit) and CSV
// files (always dense) with a label column, decompressing .gz and .bz2
// transparently, and
// writes LIBSVM files back. Every parse error is a *ParseError naming the
// file, the line, the offending token and the reason; the parsers never panic
// on bad input (they are fuzzed) and refuse to allocate a dense matrix larger
// than a memory budget. Check reads a file as Load does, with the same
// errors, but keeps no rows: it returns the Shape Load's data would have.
// To fuzz longer than the seed corpus, run for example
// go test -run '^$' -fuzz '^FuzzReadLibSVM$' -fuzztime 5m -fuzzminimizetime 1s ./data
// (-fuzzminimizetime 1s: the default minute of minimising each new 1–2 kB
// input shows as long stretches of 0 execs/s; see internal/fuzzlimit).
//
// Around the readers it provides what every learner needs before training:
// feature scaling whose parameters are kept and re-applied at prediction
// (Scaler), seeded and optionally stratified train/validation/test splits and
// k-fold partitions, duplicate-row detection and removal, and label handling
// (binary ±1 labels, one-vs-rest targets from multi-class labels, regression
// targets).
//
// Shared benchmark data sets live outside the repository; SharedDir locates
// them (env PURSUIT_DATASETS, else ../shared/datasets next to the module
// root).
package data
