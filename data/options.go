package data

import "fmt"

// DefaultMemoryLimit is the largest dense feature matrix, in bytes, that the
// readers allocate unless WithMemoryLimit says otherwise (8 GiB).
const DefaultMemoryLimit int64 = 8 << 30

// MaxIndex is the largest feature index a LIBSVM file may use (1<<24) unless
// WithDim asks for more features. Larger indices are almost always a corrupt
// file, and a dense matrix that wide would not fit in memory anyway.
const MaxIndex = 1 << 24

// Format names an on-disk file format.
type Format string

// The formats Load understands.
const (
	FormatAuto   Format = ""       // decide from the file name: ".csv" → CSV, else LIBSVM
	FormatLibSVM Format = "libsvm" // LIBSVM / svmlight
	FormatCSV    Format = "csv"    // comma-separated values with a label column
)

// Option adjusts how a file is read.
type Option func(*options)

type options struct {
	dim       int   // forced feature count; 0 = from the data
	labelCol  int   // CSV label column; negative counts from the end
	header    bool  // CSV: first record is a header
	memLimit  int64 // dense matrix budget in bytes
	format    Format
	badOption error
	linesHint int // CSV: Load's count of the file's lines, an upper bound on its records
	// How error messages name the options they suggest (WithHintNames).
	headerName, libsvmName string
}

func buildOptions(opts []Option) options {
	o := options{memLimit: DefaultMemoryLimit, headerName: "WithHeader(true)", libsvmName: "WithFormat(FormatLibSVM)"}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// WithHintNames sets how error messages name the options they suggest, for
// a caller whose users set them otherwise (a command's flags): header for
// WithHeader(true), libsvm for WithFormat(FormatLibSVM).
func WithHintNames(header, libsvm string) Option {
	return func(o *options) { o.headerName, o.libsvmName = header, libsvm }
}

// WithDim forces the feature count to d, as at prediction time when a model
// was trained on d features. A LIBSVM file whose indices stop short of d is
// zero padded; an index above d is an error naming file and line
// (ErrFeatureMismatch). A CSV file must have exactly d feature columns.
func WithDim(d int) Option {
	return func(o *options) {
		if d < 0 {
			o.badOption = fmt.Errorf("WithDim(%d): the feature count cannot be negative", d)
			return
		}
		o.dim = d
	}
}

// WithLabelColumn sets the CSV column (0-based) holding the label; a negative
// c counts from the end (-1 is the last column). The default is 0. LIBSVM
// files ignore it.
func WithLabelColumn(c int) Option { return func(o *options) { o.labelCol = c } }

// WithHeader says whether the first CSV record is a header to skip (default
// false). LIBSVM files ignore it.
func WithHeader(h bool) Option { return func(o *options) { o.header = h } }

// WithMemoryLimit sets the largest dense feature matrix, in bytes, that a
// reader may allocate (default DefaultMemoryLimit). Past it, reading fails
// with ErrTooLarge instead of allocating.
func WithMemoryLimit(bytes int64) Option {
	return func(o *options) {
		if bytes <= 0 {
			o.badOption = fmt.Errorf("WithMemoryLimit(%d): the budget must be positive", bytes)
			return
		}
		o.memLimit = bytes
	}
}

// WithFormat makes Load read the file as the given format whatever its name.
func WithFormat(f Format) Option {
	return func(o *options) {
		switch f {
		case FormatAuto, FormatLibSVM, FormatCSV:
			o.format = f
		default:
			o.badOption = fmt.Errorf("WithFormat(%q): unknown format (want %q or %q)", string(f), FormatLibSVM, FormatCSV)
		}
	}
}
