package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
)

// readBufSize is the bufio buffer used by the readers; lines longer than this
// are still read whole, by accumulation.
const readBufSize = 1 << 20

// lineReader yields the lines of r without their '\n', counting them.
type lineReader struct {
	br   *bufio.Reader
	long []byte // accumulates lines longer than the buffer
	line int    // number of the line last returned, 1-based
	max  int64  // longest line accepted, in bytes
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return &lineReader{br: skipBOM(r), max: max}
}

// skipBOM returns a buffered reader over r without a leading UTF-8 byte
// order mark (which some editors and spreadsheets write).
func skipBOM(r io.Reader) *bufio.Reader {
	br := bufio.NewReaderSize(r, readBufSize)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	return br
}

// next returns the next line (valid until the following call) or io.EOF.
// Any other error is a read error (a truncated or corrupt compressed stream,
// say) or an over-long line.
func (lr *lineReader) next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		s, err := lr.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.long = append(lr.long, s...)
			if int64(len(lr.long)) > lr.max {
				lr.line++
				return nil, fmt.Errorf("%w: line longer than %d bytes", ErrTooLarge, lr.max)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			lr.line++
			return nil, fmt.Errorf("reading: %w", err)
		}
		if err != nil && len(s) == 0 && len(lr.long) == 0 {
			return nil, io.EOF
		}
		lr.line++
		if err == nil {
			s = s[:len(s)-1] // drop '\n'
		}
		if len(lr.long) > 0 {
			lr.long = append(lr.long, s...)
			s = lr.long
		}
		if int64(len(s)) > lr.max {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrTooLarge, lr.max)
		}
		return s, nil
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// nextToken returns the next whitespace-separated token of line at or after
// *pos, advancing *pos past it, or nil at the end of the line.
func nextToken(line []byte, pos *int) []byte {
	i := *pos
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	*pos = j
	if i == j {
		return nil
	}
	return line[i:j]
}

// libsvmRows receives the parsed examples: in compressed sparse rows (when
// the storage is sparse, and in ReadLibSVM's single pass over a stream,
// whose shape is not known in advance), or straight into a dense matrix of
// the shape Load's first pass found, so that the matrix is the only
// data-sized allocation.
type libsvmRows struct {
	y []float64
	n int // examples parsed so far

	// Sparse: row i's non-zeros are idx/val[off[i]:off[i+1]], idx 0-based.
	off    []int64
	idx    []int32
	val    []float32
	maxIdx int   // largest feature index seen (1-based)
	nnzCap int64 // Load: the first pass's count of non-zeros; more means the file changed (-1: no cap)

	// Dense: rows are written into x.
	dense bool
	x     pursuit.Matrix

	// Load: the examples and features the first pass found (rows -1: a
	// stream, not known).
	rows, cols int

	// Shard: skip example lines before parsing, and stop once rows are
	// read instead of reading on to check that the file ends there.
	skip         int
	stopWhenFull bool
	storage      Storage // the stream's storage asked for (its memory guard)

	// Check: every line is parsed and checked, and nothing is kept but the
	// count of non-zero values (kept).
	discard bool
	kept    int64
}

// errChanged reports a file whose second reading disagrees with its first.
var errChanged = errors.New("the file changed while it was being read (its two passes disagree)")

// ReadLibSVM reads LIBSVM/svmlight text from r: one example per line,
// "label index:value index:value ...", with 1-based, strictly increasing
// feature indices, an optional "qid:N" right after the label (ignored),
// comments from '#' to the end of the line, and blank lines skipped. Absent
// features are 0. name is used in error messages and as the Dataset's Name.
//
// The feature count is the largest index in the file unless WithDim forces
// it. Errors are *ParseError values naming name, the line, the token and the
// reason; see the package's Err* values for the reasons errors.Is recognises.
//
// A single pass over r cannot know the matrix's shape in advance, so the
// examples are held as sparse rows (8 bytes per non-zero value) until the
// end. In sparse storage (WithStorage) those rows are the result; in dense
// storage they are then copied into the dense matrix, and the memory limit
// counts both. Load reads a file twice instead and allocates only the
// storage it returns.
func ReadLibSVM(r io.Reader, name string, opts ...Option) (*Dataset, error) {
	o := buildOptions(opts)
	if o.badOption != nil {
		return nil, &ParseError{File: name, Err: o.badOption}
	}
	if err := errShardStream(&o); err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	sp := libsvmRows{rows: -1, nnzCap: -1, off: []int64{0}, storage: o.storage}
	if err := sp.read(r, name, &o); err != nil {
		return nil, err
	}
	if sp.n == 0 {
		return nil, noExamples(name)
	}
	d := sp.maxIdx
	if o.dim > 0 {
		d = o.dim
	}
	n := sp.n
	nnz := int64(len(sp.idx))
	if st, _ := ResolveStorageLimit(o.storage, n, d, nnz, o.memLimit); st == StorageSparse {
		x := pursuit.Matrix{Rows: n, Cols: d, Sparse: &pursuit.CSR{Offsets: sp.off, Indices: sp.idx, Values: sp.val}}
		return &Dataset{X: x, Y: sp.y, Name: name}, nil
	}
	if err := checkDenseHint(n, d, nnz, o.memLimit); err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	if sparse, dense := SparseBytes(n, nnz), int64(n)*int64(d)*4; sparse+dense > o.memLimit {
		return nil, &ParseError{File: name, Err: &LimitError{
			What: fmt.Sprintf("reading in one pass: %d stored values (%s) and the dense %d×%d float32 matrix they become (%s)",
				nnz, humanBytes(sparse), n, d, humanBytes(dense)),
			Need: sparse + dense, Limit: o.memLimit, SparseNeed: sparse}}
	}
	x := pursuit.NewMatrix(n, d)
	for i := range n {
		row := x.Row(i)
		for k := sp.off[i]; k < sp.off[i+1]; k++ {
			row[sp.idx[k]] = sp.val[k]
		}
	}
	return &Dataset{X: x, Y: sp.y, Name: name}, nil
}

func noExamples(name string) error {
	return &ParseError{File: name, Err: fmt.Errorf("%w: the file holds no example lines", ErrNoExamples)}
}

// maxIndexFor is the largest feature index the options accept: MaxIndex
// (or the forced feature count) for dense storage, MaxSparseIndex
// otherwise.
func maxIndexFor(o *options) int {
	if o.storage == StorageDense {
		return max(MaxIndex, o.dim)
	}
	return MaxSparseIndex
}

// read parses every line of r into sp.
func (sp *libsvmRows) read(r io.Reader, name string, o *options) error {
	lr := newLineReader(r, o.memLimit)
	maxIndex := maxIndexFor(o)
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &ParseError{File: name, Line: lr.line, Err: err}
		}
		if sp.skip > 0 {
			if len(exampleText(line)) > 0 {
				sp.skip--
			}
			continue
		}
		if err := sp.parseLine(line, name, lr.line, o, maxIndex); err != nil {
			return err
		}
		if sp.stopWhenFull && sp.n == sp.rows {
			return nil
		}
	}
}

// exampleText returns line without its comment and trailing white space:
// empty for a blank or comment-only line, which holds no example. Both of
// Load's passes count examples by it.
func exampleText(line []byte) []byte {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	end := len(line)
	for end > 0 && isSpace(line[end-1]) {
		end--
	}
	return line[:end]
}

// loadLibSVM reads the LIBSVM file f in two passes: the first counts the
// examples and their index:value pairs and finds the largest feature index
// (scanLibSVMShape), so the storage is chosen and the memory limit checked
// before anything data-sized is allocated; the second parses the values
// straight into the dense matrix or the compressed sparse rows.
func loadLibSVM(f *os.File, name string, o *options) (*Dataset, error) {
	r, err := decompress(f, name)
	if err != nil {
		return nil, err
	}
	// A shard's count of non-zeros (for sparse rows) needs each line's.
	sh, line, err := scanLibSVMShape(r, o.memLimit, maxIndexFor(o), o.sharded() && o.storage != StorageDense)
	if err != nil {
		return nil, &ParseError{File: name, Line: line, Err: err}
	}
	if sh.rows == 0 {
		return nil, noExamples(name)
	}
	d := sh.maxIdx
	if o.dim > 0 {
		d = o.dim
	}
	lo, hi := o.keepRange(sh.rows)
	n := hi - lo
	nnz := sh.nnz
	switch {
	case o.sharded() && sh.rowNNZ == nil: // dense: the share, for the error's hint only
		nnz = sh.nnz * int64(n) / int64(sh.rows)
	case o.sharded():
		nnz = 0
		for _, c := range sh.rowNNZ[lo:hi] {
			nnz += int64(c)
		}
	}
	// Every rank resolves the storage from the whole file, so they agree.
	st, _ := ResolveStorageLimit(o.storage, sh.rows, d, sh.nnz, o.memLimit)
	limit := checkSparse
	if st != StorageSparse {
		limit = func(n int, nnz, limit int64) error { return checkDenseHint(n, d, nnz, limit) }
	}
	if err := limit(n, nnz, o.memLimit); err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	dn := libsvmRows{rows: n, cols: d, skip: lo, stopWhenFull: o.sharded(), nnzCap: -1, discard: o.check != nil}
	if st == StorageSparse {
		dn.nnzCap = nnz
	}
	switch {
	case dn.discard: // Check: nothing data-sized
	case st == StorageSparse:
		dn.y = make([]float64, 0, n)
		dn.off = make([]int64, 1, n+1)
		dn.idx = make([]int32, 0, nnz)
		dn.val = make([]float32, 0, nnz)
	default:
		dn.y = make([]float64, 0, n)
		dn.dense, dn.x = true, pursuit.NewMatrix(n, d)
	}
	if n > 0 {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("load %s: %w", name, err)
		}
		if r, err = decompress(f, name); err != nil {
			return nil, err
		}
		if err := dn.read(r, name, o); err != nil {
			return nil, err
		}
		if dn.n != n {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %d examples, then %d", errChanged, sh.rows, lo+dn.n)}
		}
	}
	if dn.discard {
		*o.check = checkedShape(st, n, d, dn.kept)
		return nil, nil
	}
	x := dn.x
	if !dn.dense {
		x = pursuit.Matrix{Rows: n, Cols: d, Sparse: &pursuit.CSR{Offsets: dn.off, Indices: dn.idx, Values: dn.val}}
	}
	return &Dataset{X: x, Y: dn.y, Name: name}, nil
}

// libsvmShape is what Load's first pass finds.
type libsvmShape struct {
	rows   int     // example lines
	maxIdx int     // largest feature index (1-based)
	nnz    int64   // index:value pairs (qid not counted): at least the non-zeros
	rowNNZ []int32 // the pairs of each example line (only when asked for)
}

// scanLibSVMShape is Load's first pass over LIBSVM text: it counts the
// example lines and their index:value pairs and finds the largest feature
// index (each line's last, as indices increase) without parsing values. A
// line it cannot make sense of counts as an example and adds no index: the
// second pass reports what is wrong with it. perRow keeps each line's count
// of pairs (for a shard's share). line is the line of a read error.
func scanLibSVMShape(r io.Reader, maxLine int64, maxIndex int, perRow bool) (sh libsvmShape, line int, err error) {
	lr := newLineReader(r, maxLine)
	for {
		b, err := lr.next()
		if err == io.EOF {
			return sh, 0, nil
		}
		if err != nil {
			return libsvmShape{}, lr.line, err
		}
		b = exampleText(b)
		end := len(b)
		begin := end
		for begin > 0 && !isSpace(b[begin-1]) {
			begin--
		}
		if begin == end {
			continue // blank or comment-only
		}
		sh.rows++
		pairs := bytes.Count(b, colon)
		if pairs > 0 {
			// A qid right after the label is not a feature.
			pos := 0
			nextToken(b, &pos)
			if bytes.HasPrefix(nextToken(b, &pos), qidPrefix) {
				pairs--
			}
		}
		sh.nnz += int64(pairs)
		if perRow {
			sh.rowNNZ = append(sh.rowNNZ, int32(min(pairs, math.MaxInt32)))
		}
		first := true
		for _, c := range b[:begin] {
			if !isSpace(c) {
				first = false
				break
			}
		}
		if first {
			continue // the label alone
		}
		tok := b[begin:end]
		c := bytes.IndexByte(tok, ':')
		if c < 0 {
			continue
		}
		if idx, err := parseIndex(tok[:c], maxIndex); err == nil {
			sh.maxIdx = max(sh.maxIdx, idx)
		}
	}
}

var (
	colon     = []byte{':'}
	qidPrefix = []byte("qid:")
)

// checkDense returns a *LimitError when an n×d float32 matrix exceeds limit
// bytes.
func checkDense(n, d int, limit int64) error {
	if need := int64(n) * int64(d) * 4; need > limit {
		return &LimitError{What: fmt.Sprintf("a dense %d×%d float32 matrix", n, d), Need: need, Limit: limit}
	}
	return nil
}

// checkDenseHint is checkDense for data with nnz non-zeros: the error
// says what sparse storage would need when that is less.
func checkDenseHint(n, d int, nnz, limit int64) error {
	err := checkDense(n, d, limit)
	if le, ok := err.(*LimitError); ok {
		if sp := SparseBytes(n, nnz); sp < le.Need {
			le.SparseNeed = sp
		}
	}
	return err
}

func humanBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// parseLine parses one line into sp; blank and comment-only lines add nothing.
func (sp *libsvmRows) parseLine(line []byte, name string, lineNo int, o *options, maxIndex int) error {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	pos := 0
	tok := nextToken(line, &pos)
	if tok == nil {
		return nil
	}
	label, err := parseLabel(tok)
	if err != nil {
		return &ParseError{File: name, Line: lineNo, Token: shortToken(tok), Err: err}
	}
	if sp.rows >= 0 && sp.n == sp.rows {
		return &ParseError{File: name, Line: lineNo, Err: fmt.Errorf("%w: more than %d examples", errChanged, sp.rows)}
	}
	var row []float32
	if sp.dense {
		row = sp.x.Row(sp.n)
	}
	prev := 0
	first := true
	for {
		tok = nextToken(line, &pos)
		if tok == nil {
			break
		}
		colon := bytes.IndexByte(tok, ':')
		if colon < 0 {
			return parseErr(name, lineNo, tok, "%w: expected index:value", ErrSyntax)
		}
		key, val := tok[:colon], tok[colon+1:]
		if first && string(key) == "qid" {
			first = false
			if _, err := strconv.ParseInt(string(val), 10, 64); err != nil {
				return parseErr(name, lineNo, tok, "%w: qid must be an integer", ErrSyntax)
			}
			continue
		}
		first = false
		idx, err := parseIndex(key, maxIndex)
		if err != nil {
			return &ParseError{File: name, Line: lineNo, Token: shortToken(tok), Err: err}
		}
		switch {
		case idx == prev:
			return parseErr(name, lineNo, tok, "%w: feature index %d repeated (indices must be strictly increasing)", ErrSyntax, idx)
		case idx < prev:
			return parseErr(name, lineNo, tok, "%w: feature index %d after %d (indices must be strictly increasing)", ErrSyntax, idx, prev)
		}
		if o.dim > 0 && idx > o.dim {
			return parseErr(name, lineNo, tok, "%w: feature index %d but the model has %d features", ErrFeatureMismatch, idx, o.dim)
		}
		v, err := parseValue(val)
		if err != nil {
			return &ParseError{File: name, Line: lineNo, Token: shortToken(tok), Err: err}
		}
		prev = idx
		switch {
		case v == 0:
		case !sp.dense:
			if sp.nnzCap >= 0 && int64(len(sp.idx))+sp.kept == sp.nnzCap {
				return &ParseError{File: name, Line: lineNo, Err: fmt.Errorf("%w: more than %d feature values", errChanged, sp.nnzCap)}
			}
			if sp.discard {
				sp.kept++
				break
			}
			sp.idx = append(sp.idx, int32(idx-1))
			sp.val = append(sp.val, v)
		case idx <= len(row):
			row[idx-1] = v
		}
	}
	if sp.rows >= 0 {
		// Load: the shape is known.
		if prev > sp.cols {
			return &ParseError{File: name, Line: lineNo, Err: fmt.Errorf("%w: feature index %d, then %d features", errChanged, prev, sp.cols)}
		}
		sp.n++
		if sp.discard {
			return nil
		}
		sp.y = append(sp.y, label)
		if !sp.dense {
			sp.off = append(sp.off, int64(len(sp.idx)))
		}
		return nil
	}
	sp.maxIdx = max(sp.maxIdx, prev)
	// Guard memory as we go, so a huge file fails at the line that breaks the
	// budget rather than after reading it all: the sparse rows, and for dense
	// storage the dense matrix they become beside them.
	n := sp.n + 1
	nnz := int64(len(sp.idx))
	if sp.storage == StorageDense {
		d := max(sp.maxIdx, o.dim)
		if err := checkDenseHint(n, d, nnz, o.memLimit); err != nil {
			return &ParseError{File: name, Line: lineNo, Err: err}
		}
		if sparse, dense := SparseBytes(n, nnz), int64(n)*int64(d)*4; sparse+dense > o.memLimit {
			return &ParseError{File: name, Line: lineNo, Err: &LimitError{
				What: fmt.Sprintf("reading in one pass: %d stored values (%s) and the dense %d×%d float32 matrix they become (%s)",
					nnz, humanBytes(sparse), n, d, humanBytes(dense)),
				Need: sparse + dense, Limit: o.memLimit, SparseNeed: sparse}}
		}
	} else if err := checkSparse(n, nnz, o.memLimit); err != nil {
		return &ParseError{File: name, Line: lineNo, Err: err}
	}
	sp.y = append(sp.y, label)
	sp.off = append(sp.off, nnz)
	sp.n++
	return nil
}

// parseLabel parses a label or regression target: any finite float64
// ("+1", "-1", "3", "1.5e0").
func parseLabel(tok []byte) (float64, error) {
	y, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		if isRangeErr(err) {
			return 0, fmt.Errorf("%w: label out of float64 range", ErrNotFinite)
		}
		if bytes.IndexByte(tok, ':') >= 0 {
			return 0, fmt.Errorf("%w: expected a numeric label first, found a feature (missing label?)", ErrSyntax)
		}
		return 0, fmt.Errorf("%w: label is not a number", ErrSyntax)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return 0, fmt.Errorf("%w: label is %v", ErrNotFinite, y)
	}
	return y, nil
}

// pow10f32 holds the powers of ten that float32 represents exactly.
var pow10f32 = [...]float32{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// parseShortDecimal parses the common short forms "-1", "0.5", "+12.375":
// an optional sign, then digits with at most one '.', no exponent, at most
// 12 characters, whose value is m/10^k with the integer m ≤ 2^24 and k ≤ 10.
// Both m and 10^k are then exact in float32, so one float32 division gives
// the correctly rounded result, the same as strconv.ParseFloat(s, 32)
// (Clinger's fast path). ok is false for any other form.
func parseShortDecimal(b []byte) (v float32, ok bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 12 {
		return 0, false
	}
	m, digits, frac, dot := 0, 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + int(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || m > 1<<24 || frac >= len(pow10f32) {
		return 0, false
	}
	v = float32(m) / pow10f32[frac]
	if neg {
		v = -v
	}
	return v, true
}

// parseValue parses a feature value to the nearest float32, which must be
// finite.
func parseValue(b []byte) (float32, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: missing value after ':'", ErrSyntax)
	}
	if v, ok := parseShortDecimal(b); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(string(b), 32)
	if err != nil {
		if isRangeErr(err) {
			return 0, fmt.Errorf("%w: value overflows float32", ErrNotFinite)
		}
		return 0, fmt.Errorf("%w: value is not a number", ErrSyntax)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: value is %v", ErrNotFinite, v)
	}
	return float32(v), nil
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

// parseIndex parses a 1-based feature index no larger than maxIndex.
func parseIndex(b []byte, maxIndex int) (int, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: missing feature index before ':'", ErrSyntax)
	}
	neg := false
	s := b
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, fmt.Errorf("%w: feature index is not an integer", ErrSyntax)
	}
	n := 0
	big := false
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: feature index is not an integer", ErrSyntax)
		}
		if !big {
			n = n*10 + int(c-'0')
			if n > maxIndex {
				big = true
			}
		}
	}
	switch {
	case neg && (n != 0 || big):
		return 0, fmt.Errorf("%w: feature index is negative (indices are 1-based)", ErrSyntax)
	case n == 0:
		return 0, fmt.Errorf("%w: feature index 0 (indices are 1-based)", ErrSyntax)
	case big && maxIndex >= MaxSparseIndex:
		return 0, fmt.Errorf("%w: feature index above the limit of %d (2³¹−1, the largest 32-bit column index)", ErrTooLarge, maxIndex)
	case big:
		return 0, fmt.Errorf("%w: feature index above the limit of %d (corrupt file? a dense matrix that wide would not fit in memory; sparse storage takes indices up to %d)", ErrTooLarge, maxIndex, MaxSparseIndex)
	}
	return n, nil
}

// WriteLibSVM writes d in LIBSVM format: one line per example, the label as
// the shortest decimal that reads back to the same float64, then the non-zero
// features as 1-based index:value pairs with the shortest decimal that reads
// back to the same float32. Non-finite labels or features are an error.
func WriteLibSVM(w io.Writer, d *Dataset) error {
	if err := d.X.Validate(); err != nil {
		return fmt.Errorf("write %s: %w", d.Name, err)
	}
	if len(d.Y) != d.X.Rows {
		return fmt.Errorf("write %s: %d labels for %d rows", d.Name, len(d.Y), d.X.Rows)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 256)
	for i := range d.X.Rows {
		y := d.Y[i]
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("write %s: example %d: label %v is not finite", d.Name, i+1, y)
		}
		buf = strconv.AppendFloat(buf[:0], y, 'g', -1, 64)
		var err error
		if d.X.IsSparse() {
			idx, val := d.X.SparseRow(i)
			for k, j := range idx {
				if buf, err = appendFeature(buf, int(j), val[k]); err != nil {
					return fmt.Errorf("write %s: example %d: %w", d.Name, i+1, err)
				}
			}
		} else {
			for j, v := range d.X.Row(i) {
				if buf, err = appendFeature(buf, j, v); err != nil {
					return fmt.Errorf("write %s: example %d: %w", d.Name, i+1, err)
				}
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("write %s: %w", d.Name, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", d.Name, err)
	}
	return nil
}

// appendFeature appends " j+1:v" to buf for a non-zero v (nothing for 0);
// a non-finite v is an error.
func appendFeature(buf []byte, j int, v float32) ([]byte, error) {
	if v == 0 {
		return buf, nil
	}
	if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
		return buf, fmt.Errorf("feature %d is %v, not finite", j+1, v)
	}
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(j+1), 10)
	buf = append(buf, ':')
	return strconv.AppendFloat(buf, float64(v), 'g', -1, 32), nil
}

// WriteFile writes d to path in LIBSVM format (WriteLibSVM), gzip-compressed
// when the name ends in ".gz", creating or truncating the file. Errors name
// path.
func WriteFile(path string, d *Dataset) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write data: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
	}()
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zw = gzip.NewWriter(f)
		w = zw
	}
	if err := WriteLibSVM(w, d); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}
