package data

import "fmt"

// DefaultMemoryLimit is the largest dense feature matrix, in bytes, that the
// readers allocate unless WithMemoryLimit says otherwise (8 GiB).
const DefaultMemoryLimit int64 = 8 << 30

// MaxIndex is the largest feature index a LIBSVM file read into dense
// storage may use (1<<24) unless WithDim asks for more features. Larger
// indices are almost always a corrupt file, and a dense matrix that wide
// would not fit in memory anyway. Sparse storage (and StorageAuto) takes
// indices up to MaxSparseIndex.
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
	storage   Storage // LIBSVM: how the features are held (WithStorage)
	badOption error
	linesHint int // CSV: Load's count of the file's lines, an upper bound on its records
	// WithShard: this rank's share of the rows (shardSize 0: all of them).
	shardRank, shardSize int
	// The example rows [rowLo, rowHi) to keep, in file order, when Load
	// resolved a shard (rowHi < 0: every row).
	rowLo, rowHi int
	// How error messages name the options they suggest (WithHintNames).
	headerName, libsvmName string
	// Check: the shape found, and nothing kept (Load then returns no
	// Dataset from a regular file).
	check *Shape
}

func buildOptions(opts []Option) options {
	o := options{rowHi: -1, memLimit: DefaultMemoryLimit, storage: DefaultStorage, headerName: "WithHeader(true)", libsvmName: "WithFormat(FormatLibSVM)"}
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

// WithShard makes Load keep only rank's contiguous block of the examples when
// the file's l examples are split over size ranks: rows [rank·l/size,
// (rank+1)·l/size) in file order, so that the blocks of ranks 0, 1, …,
// size−1 concatenated are the file. Load reads the file twice: the first
// pass counts the examples (and, for LIBSVM, finds the largest feature
// index over the whole file, so every rank gets the same feature count);
// the second parses only the block, stops after it, and allocates only
// the block's rows (the memory limit applies to them). A rank's block may
// be empty (more ranks than examples); a file without examples is still an
// error. Lines outside the block are not parsed, so an error in them is
// reported by the rank that owns them. It needs a regular file (a pipe
// cannot be read twice) and Load: the stream readers ReadLibSVM and ReadCSV
// refuse it.
func WithShard(rank, size int) Option {
	return func(o *options) {
		if size < 1 || rank < 0 || rank >= size {
			o.badOption = fmt.Errorf("WithShard(%d, %d): want 0 ≤ rank < size", rank, size)
			return
		}
		o.shardRank, o.shardSize = rank, size
	}
}

// ShardRange returns the rows [lo, hi) that rank of size keeps of n
// examples under WithShard.
func ShardRange(n, rank, size int) (lo, hi int) {
	return int(int64(n) * int64(rank) / int64(size)), int(int64(n) * int64(rank+1) / int64(size))
}

// sharded reports whether a shard was asked for (with size > 1 or not).
func (o *options) sharded() bool { return o.shardSize > 0 }

// keepRange returns the rows of n examples to keep.
func (o *options) keepRange(n int) (lo, hi int) {
	if !o.sharded() {
		return 0, n
	}
	return ShardRange(n, o.shardRank, o.shardSize)
}

// errShardStream is returned when a shard is asked of a stream.
func errShardStream(o *options) error {
	if o.sharded() && o.rowHi < 0 {
		return fmt.Errorf("WithShard needs Load on a regular file (the rows are counted in a first pass, so the file is read twice), not a stream")
	}
	return nil
}
