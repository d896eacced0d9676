package data

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pursuit-ml/pursuit"
)

// Sentinel reasons, to be tested with errors.Is on the errors this package
// returns.
var (
	ErrSyntax          = pursuit.Tag(errors.New("malformed input"), pursuit.ErrBadInput)
	ErrNotFinite       = pursuit.Tag(errors.New("value is not finite"), pursuit.ErrBadInput)
	ErrOutOfRange      = pursuit.Tag(errors.New("value out of range"), pursuit.ErrBadInput)
	ErrNoExamples      = pursuit.Tag(errors.New("no examples"), pursuit.ErrBadInput)
	ErrFeatureMismatch = pursuit.Tag(errors.New("feature-count mismatch at prediction"), pursuit.ErrBadInput)
	ErrTooLarge        = pursuit.Tag(errors.New("data too large"), pursuit.ErrBadInput)
	ErrSingleClass     = pursuit.Tag(errors.New("only one class present"), pursuit.ErrBadInput)
	ErrNotBinary       = pursuit.Tag(errors.New("labels are not binary -1/+1"), pursuit.ErrBadInput)
)

// LimitError reports data that would not fit the WithMemoryLimit budget:
// what would be allocated, how many bytes it needs and the limit it was
// checked against. It wraps ErrTooLarge; readers return it (inside a
// *ParseError naming the file) before allocating, so a caller can restate it
// in its own terms (a command-line flag, say) with errors.As.
type LimitError struct {
	What  string // e.g. "a dense 1000×750000 float32 matrix"
	Need  int64  // bytes needed
	Limit int64  // bytes allowed
}

// Error formats the error as "data too large: WHAT needs N, over the L
// budget (raise it with WithMemoryLimit)".
func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: %s needs %s, over the %s budget (raise it with WithMemoryLimit)",
		ErrTooLarge, e.What, humanBytes(e.Need), humanBytes(e.Limit))
}

// Unwrap returns ErrTooLarge.
func (e *LimitError) Unwrap() error { return ErrTooLarge }

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
