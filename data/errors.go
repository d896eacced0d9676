package data

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel reasons, to be tested with errors.Is on the errors this package
// returns.
var (
	ErrSyntax          = errors.New("malformed input")
	ErrNotFinite       = errors.New("value is not finite")
	ErrNoExamples      = errors.New("no examples")
	ErrFeatureMismatch = errors.New("feature-count mismatch at prediction")
	ErrTooLarge        = errors.New("data too large")
	ErrSingleClass     = errors.New("only one class present")
	ErrNotBinary       = errors.New("labels are not binary -1/+1")
)

// ParseError reports bad input in a file: where (File, Line) and what
// (Token, Err). Line is 1-based and 0 when the error is about the whole file.
type ParseError struct {
	File  string
	Line  int
	Token string // the offending token, possibly shortened; empty if none
	Err   error
}

// Error formats the error as "file:line: token "t": reason".
func (e *ParseError) Error() string {
	b := make([]byte, 0, 64)
	b = append(b, e.File...)
	if e.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.Line), 10)
	}
	b = append(b, ": "...)
	if e.Token != "" {
		b = append(b, "token "...)
		b = strconv.AppendQuote(b, e.Token)
		b = append(b, ": "...)
	}
	if e.Err == nil {
		return string(append(b, "bad input"...))
	}
	b = append(b, e.Err.Error()...)
	return string(b)
}

// Unwrap returns the reason.
func (e *ParseError) Unwrap() error { return e.Err }

const maxTokenShown = 40

// shortToken copies tok for an error message, cut to a readable length.
func shortToken(tok []byte) string {
	if len(tok) > maxTokenShown {
		return string(tok[:maxTokenShown]) + "..."
	}
	return string(tok)
}

func parseErr(file string, line int, tok []byte, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Token: shortToken(tok), Err: fmt.Errorf(format, args...)}
}
