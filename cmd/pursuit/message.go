package main

import "github.com/pursuit-ml/pursuit/learn"

// userMessage turns an error's text into the CLI's one line
// (learn.UserMessage): on one line, without the Go package names that
// prefix the wrapped errors, and without a part that only restates another.
func userMessage(msg string) string { return learn.UserMessage(msg) }
