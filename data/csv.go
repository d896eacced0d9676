package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
)

// ReadCSV reads comma-separated values from r: one example per record, every
// record with the same number of fields, the label in column 0 (see
// WithLabelColumn) and the features in the other columns in order. Fields may
// be quoted; spaces around a value (inside or outside the quotes) are ignored; blank lines and lines starting with '#'
// are skipped. With WithHeader(true) the first record is skipped. Empty
// fields, non-numeric fields and NaN/Inf are errors naming name and the line.
//
// WithDim(d) requires exactly d feature columns (CSV is dense: every feature
// is written out, so a different count means a different layout).
func ReadCSV(r io.Reader, name string, opts ...Option) (*Dataset, error) {
	o := buildOptions(opts)
	if o.badOption != nil {
		return nil, &ParseError{File: name, Err: o.badOption}
	}
	if err := errShardStream(&o); err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	cr := newCSVReader(r)
	record := 0 // data records seen (the header not counted)

	var (
		ys       []float64
		xs       []float32
		kept     int // records kept (in ys)
		nfields  = -1
		firstLn  int
		labelCol int
		header   = o.header
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &ParseError{File: name, Line: pe.Line, Err: fmt.Errorf("%w: %v", ErrSyntax, pe.Err)}
			}
			line, _ := cr.FieldPos(0)
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("reading: %w", err)}
		}
		line, _ := cr.FieldPos(0)
		if nfields < 0 {
			nfields, firstLn = len(rec), line
			labelCol = o.labelCol
			if labelCol < 0 {
				labelCol += nfields
			}
			if labelCol < 0 || labelCol >= nfields {
				return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%w: label column %d is out of range for %d columns", ErrSyntax, o.labelCol, nfields)}
			}
			if o.dim > 0 && nfields-1 != o.dim {
				return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %d feature columns but the model has %d features", ErrFeatureMismatch, nfields-1, o.dim)}
			}
		} else if len(rec) != nfields {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %d fields, but line %d has %d (ragged rows)", ErrSyntax, len(rec), firstLn, nfields)}
		}
		if header {
			header = false
			continue
		}
		if o.rowHi >= 0 { // Load's shard: the records [rowLo, rowHi) only
			if record >= o.rowHi {
				break
			}
			record++
			if record <= o.rowLo {
				continue
			}
		}
		if err := checkDense(kept+1, nfields-1, o.memLimit); err != nil {
			return nil, &ParseError{File: name, Line: line, Err: err}
		}
		kept++
		if xs == nil && o.linesHint > 0 && o.check == nil && checkDense(o.linesHint, nfields-1, o.memLimit) == nil {
			// Load counted the lines: at most that many records, so the
			// matrix is allocated once instead of grown by copying.
			xs = make([]float32, 0, o.linesHint*(nfields-1))
			ys = make([]float64, 0, o.linesHint)
		}
		for j, f := range rec {
			f = strings.TrimSpace(f) // spaces inside quotes too
			ln, col := cr.FieldPos(j)
			if j == labelCol {
				y, err := parseCSVLabel(f, &o)
				if err != nil {
					return nil, &ParseError{File: name, Line: ln, Token: shortToken([]byte(f)), Err: fmt.Errorf("column %d: %w", col, err)}
				}
				if o.check == nil {
					ys = append(ys, y)
				}
				continue
			}
			v, err := parseCSVValue(f, &o)
			if err != nil {
				return nil, &ParseError{File: name, Line: ln, Token: shortToken([]byte(f)), Err: fmt.Errorf("column %d: %w", col, err)}
			}
			if o.check == nil {
				xs = append(xs, v)
			}
		}
	}
	emptyShard := kept == 0 && nfields > 0 && o.rowHi >= 0
	if kept == 0 && !emptyShard {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: the file holds no data records", ErrNoExamples)}
	}
	if o.check != nil {
		*o.check = checkedShape(StorageDense, kept, nfields-1, 0)
		return nil, nil
	}
	if emptyShard {
		return &Dataset{X: pursuit.NewMatrix(0, nfields-1), Y: []float64{}, Name: name}, nil
	}
	x, err := pursuit.MatrixFrom(len(ys), nfields-1, xs)
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	return &Dataset{X: x, Y: ys, Name: name}, nil
}

// newCSVReader is the CSV reader of ReadCSV and of Load's counting pass.
func newCSVReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(skipBOM(r))
	cr.FieldsPerRecord = -1 // checked by ReadCSV, with a better message
	cr.ReuseRecord = true
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	return cr
}

// countCSVRecords is Load's first pass over CSV text for a shard: the number
// of data records (the header, if any, not counted). Malformed records are
// counted too: the second pass reports them.
func countCSVRecords(r io.Reader, header bool) (int, error) {
	cr := newCSVReader(r)
	n := 0
	for {
		_, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if err != nil && !errors.As(err, &pe) {
			return 0, err
		}
		if err != nil && !errors.Is(pe.Err, csv.ErrFieldCount) {
			return 0, err
		}
		n++
	}
	if header && n > 0 {
		n--
	}
	return n, nil
}

// csvHint guesses why field f is not a number: a LIBSVM line read as CSV
// (index:value pairs), or a header line when none was declared; "" when
// neither applies.
func csvHint(f string, o *options) string {
	switch {
	case strings.Contains(f, ":"):
		return " (a LIBSVM line? read the file with " + o.libsvmName + ")"
	case !o.header:
		return " (a header line? use " + o.headerName + ")"
	}
	return ""
}

func parseCSVLabel(f string, o *options) (float64, error) {
	if f == "" {
		return 0, fmt.Errorf("%w: empty label", ErrSyntax)
	}
	y, err := parseLabel([]byte(f))
	if err != nil && errors.Is(err, ErrSyntax) {
		return 0, fmt.Errorf("%w: label is not a number%s", ErrSyntax, csvHint(f, o))
	}
	return y, err
}

func parseCSVValue(f string, o *options) (float32, error) {
	if f == "" {
		return 0, fmt.Errorf("%w: empty value (missing values are not supported)", ErrSyntax)
	}
	v, err := strconv.ParseFloat(f, 32)
	if err != nil {
		if isRangeErr(err) {
			return 0, fmt.Errorf("%w: value overflows float32", ErrNotFinite)
		}
		return 0, fmt.Errorf("%w: value is not a number%s", ErrSyntax, csvHint(f, o))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: value is %v", ErrNotFinite, v)
	}
	return float32(v), nil
}
