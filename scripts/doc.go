// Package scripts holds the repository's shell scripts (the CUDA toolkit
// fetch, the CUDA and GPU checks); it has no Go code of its own, only the
// tests that run parts of the scripts on sample inputs.
package scripts
