package pursuit

import "errors"

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
