package pursuit

import (
	"errors"
	"fmt"
)

// The error vocabulary every package wraps, so that a caller can tell a
// mistake in how a learner was configured from a problem with the data it
// was given, and both from a shape mismatch between operands, with
// errors.Is whatever package returned the error.
var (
	// ErrConfig is wrapped by errors about a learner's or a command's
	// settings: a parameter out of range, options that contradict each
	// other, a kernel the method cannot use.
	ErrConfig = errors.New("invalid configuration")

	// ErrBadInput is wrapped by errors about the data or a model file: a
	// value that is not finite, too few rows or classes, a dimension that
	// does not match the model's.
	ErrBadInput = errors.New("bad input")

	// ErrShape is wrapped by every shape-mismatch error between operands of
	// a kernel operation (the backends' and the engine's).
	ErrShape = errors.New("shape mismatch")
)

// Tag returns err marked as being of kind (ErrConfig, ErrBadInput, …):
// its message is err's, unchanged, and errors.Is finds both err's chain
// and kind. It lets a package keep its own sentinel or message and still
// speak the shared vocabulary. Tag(nil, kind) is nil.
func Tag(err, kind error) error {
	if err == nil {
		return nil
	}
	return &tagged{err: err, kind: kind}
}

// Configf formats a configuration error: fmt.Errorf(format, args...)
// tagged with ErrConfig.
func Configf(format string, args ...any) error { return Tag(fmt.Errorf(format, args...), ErrConfig) }

// BadInputf formats a bad-input error: fmt.Errorf(format, args...) tagged
// with ErrBadInput.
func BadInputf(format string, args ...any) error {
	return Tag(fmt.Errorf(format, args...), ErrBadInput)
}

type tagged struct{ err, kind error }

func (t *tagged) Error() string   { return t.err.Error() }
func (t *tagged) Unwrap() []error { return []error{t.err, t.kind} }
