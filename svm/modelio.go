package svm

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// WriteLIBSVM writes the model in LIBSVM's text model format (as
// svm-train writes it), readable by svm-predict.
func (m *Model) WriteLIBSVM(w io.Writer) error {
	if err := m.check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	list := func(v []float64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = g(x)
		}
		return strings.Join(s, " ")
	}
	fmt.Fprintf(bw, "svm_type %s\n", m.Type)
	k := m.Kernel
	switch k.Kind {
	case pursuit.Linear:
		fmt.Fprintf(bw, "kernel_type linear\n")
	case pursuit.Polynomial:
		fmt.Fprintf(bw, "kernel_type polynomial\ndegree %d\ngamma %s\ncoef0 %s\n", k.Degree, g(k.Gamma), g(k.Coef0))
	case pursuit.RBF:
		fmt.Fprintf(bw, "kernel_type rbf\ngamma %s\n", g(k.Gamma))
	case pursuit.Sigmoid:
		fmt.Fprintf(bw, "kernel_type sigmoid\ngamma %s\ncoef0 %s\n", g(k.Gamma), g(k.Coef0))
	}
	fmt.Fprintf(bw, "nr_class %d\ntotal_sv %d\nrho %s\n", m.NumClasses(), m.SV.Rows, list(m.Rho))
	if m.Type == CSVC {
		fmt.Fprintf(bw, "label %s\n", list(m.Labels))
		if len(m.ProbA) > 0 {
			fmt.Fprintf(bw, "probA %s\nprobB %s\n", list(m.ProbA), list(m.ProbB))
		}
		ns := make([]string, len(m.NumSV))
		for i, n := range m.NumSV {
			ns[i] = strconv.Itoa(n)
		}
		fmt.Fprintf(bw, "nr_sv %s\n", strings.Join(ns, " "))
	}
	fmt.Fprintf(bw, "SV\n")
	last := m.SV.Cols - 1
	var buf []byte
	feature := func(j int, v float32) {
		buf = strconv.AppendInt(buf[:0], int64(j+1), 10)
		buf = append(buf, ':')
		buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
		buf = append(buf, ' ')
		bw.Write(buf)
	}
	for s := range m.SV.Rows {
		for _, c := range m.Coef {
			bw.WriteString(g(c[s]))
			bw.WriteByte(' ')
		}
		// The first support vector names the last feature even when it is
		// zero, so that the feature count survives the text format
		// (LIBSVM's readers take an explicit zero as a zero). Sparse
		// support vectors are written from their non-zeros.
		if m.SV.IsSparse() {
			cols, vals := m.SV.SparseRow(s)
			for p, j := range cols {
				if v := vals[p]; v != 0 || s == 0 && int(j) == last {
					feature(int(j), v)
				}
			}
			if s == 0 && last >= 0 && (len(cols) == 0 || int(cols[len(cols)-1]) != last) {
				feature(last, 0)
			}
		} else {
			for j, v := range m.SV.Row(s) {
				if v != 0 || s == 0 && j == last {
					feature(j, v)
				}
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// MaxLIBSVMModelBytes is the default bound on the support-vector matrix
// that ReadLIBSVMModel allocates (8 GiB), so that a file with a huge
// total_sv or too many non-zeros fails with an error instead of exhausting
// memory. WithModelMemoryLimit sets another.
const MaxLIBSVMModelBytes int64 = 8 << 30

// ReadOption changes how ReadLIBSVMModel reads.
type ReadOption func(*readOptions)

type readOptions struct{ maxBytes int64 }

// WithModelMemoryLimit bounds the support-vector matrix the reader
// allocates to bytes (a caller's memory budget): a model whose sparse
// support vectors need more (8 bytes a non-zero and 8 a row) is refused,
// naming the support vector that went over; one whose dense matrix would
// need more is kept sparse.
func WithModelMemoryLimit(bytes int64) ReadOption {
	return func(o *readOptions) { o.maxBytes = bytes }
}

// ErrModelTooLarge is wrapped by ReadLIBSVMModel's error for a model whose
// support vectors would exceed the memory limit.
var ErrModelTooLarge = errors.New("the model's support vectors exceed the memory limit")

// maxClasses bounds nr_class: one-vs-one with more classes would need over
// 2^31 decision functions.
const maxClasses = 1 << 16

// ReadLIBSVMModel reads a model in LIBSVM's text format (as svm-train
// writes it). C-SVC and ε-SVR models with linear, polynomial, RBF or
// sigmoid kernels are supported; other types give an error naming them.
// The support vectors are held as a data set is: compressed sparse rows
// when their density is below data.SparseDensity (or the dense matrix
// would exceed the limit), dense rows otherwise; reading is O(non-zeros)
// in memory either way. Feature indices go up to 2³¹−1; repeated indices
// in a row keep the last value. Models whose sparse support vectors would
// take more than MaxLIBSVMModelBytes (or WithModelMemoryLimit's bound) are
// refused. Every
// count the file declares is checked against what it holds before memory
// is allocated for it, and parsing is linear in the file's size.
func ReadLIBSVMModel(r io.Reader, opts ...ReadOption) (*Model, error) {
	o := readOptions{maxBytes: MaxLIBSVMModelBytes}
	for _, opt := range opts {
		opt(&o)
	}
	return readLIBSVMModel(r, o.maxBytes)
}

// readLIBSVMModel is ReadLIBSVMModel with the memory limit maxBytes.
func readLIBSVMModel(r io.Reader, maxBytes int64) (*Model, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	m := &Model{}
	line := 0
	nrClass, totalSV := -1, -1
	kernelSet := false
	fail := func(format string, args ...any) (*Model, error) {
		return nil, fmt.Errorf("svm: LIBSVM model line %d: %s", line, fmt.Sprintf(format, args...))
	}
	tooLarge := func(format string, args ...any) (*Model, error) {
		return nil, fmt.Errorf("svm: LIBSVM model line %d: %s: %w", line, fmt.Sprintf(format, args...), ErrModelTooLarge)
	}
	floats := func(f []string) ([]float64, error) {
		out := make([]float64, len(f))
		for i, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("bad number %q", s)
			}
			out[i] = v
		}
		return out, nil
	}
	for {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("svm: reading LIBSVM model: %w", err)
			}
			line++
			return fail("unexpected end of file before the SV section")
		}
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		key, args := f[0], f[1:]
		if key == "SV" {
			break
		}
		need := func(n int) error {
			if len(args) != n {
				return fmt.Errorf("%s needs %d value(s), got %d", key, n, len(args))
			}
			return nil
		}
		var err error
		switch key {
		case "svm_type":
			if err = need(1); err == nil {
				switch args[0] {
				case "c_svc":
					m.Type = CSVC
				case "epsilon_svr":
					m.Type = EpsilonSVR
				default:
					return fail("svm_type %q is not supported (c_svc and epsilon_svr are)", args[0])
				}
			}
		case "kernel_type":
			if err = need(1); err == nil {
				kernelSet = true
				switch args[0] {
				case "linear":
					m.Kernel.Kind = pursuit.Linear
				case "polynomial":
					m.Kernel.Kind = pursuit.Polynomial
				case "rbf":
					m.Kernel.Kind = pursuit.RBF
				case "sigmoid":
					m.Kernel.Kind = pursuit.Sigmoid
				default:
					return fail("kernel_type %q is not supported (linear, polynomial, rbf, sigmoid are)", args[0])
				}
			}
		case "degree":
			if err = need(1); err == nil {
				m.Kernel.Degree, err = strconv.Atoi(args[0])
			}
		case "gamma", "coef0":
			var v []float64
			if err = need(1); err == nil {
				if v, err = floats(args); err == nil {
					if key == "gamma" {
						m.Kernel.Gamma = v[0]
					} else {
						m.Kernel.Coef0 = v[0]
					}
				}
			}
		case "nr_class":
			if err = need(1); err == nil {
				if nrClass, err = strconv.Atoi(args[0]); err == nil && (nrClass > maxClasses || nrClass < 0) {
					err = fmt.Errorf("%d classes is out of range (0 to %d)", nrClass, maxClasses)
				}
			}
		case "total_sv":
			if err = need(1); err == nil {
				totalSV, err = strconv.Atoi(args[0])
			}
		case "rho":
			m.Rho, err = floats(args)
		case "label":
			if nrClass >= 0 && len(args) != nrClass {
				err = fmt.Errorf("%d labels for nr_class %d", len(args), nrClass)
			} else if len(args) > maxClasses {
				err = fmt.Errorf("%d labels, more than the %d classes a model may have", len(args), maxClasses)
			} else if m.Labels, err = floats(args); err == nil {
				seen := make(map[float64]bool, len(m.Labels))
				for _, l := range m.Labels {
					if seen[l] {
						err = fmt.Errorf("class label %v is listed twice", l)
						break
					}
					seen[l] = true
				}
			}
		case "probA":
			m.ProbA, err = floats(args)
		case "probB":
			m.ProbB, err = floats(args)
		case "nr_sv":
			m.NumSV = make([]int, len(args))
			for i, s := range args {
				if m.NumSV[i], err = strconv.Atoi(s); err != nil {
					break
				}
			}
		case "prob_density_marks":
			return fail("one-class models are not supported")
		default:
			return fail("unknown header keyword %q", key)
		}
		if err != nil {
			return fail("%s: %v", key, err)
		}
	}
	switch {
	case !kernelSet:
		return fail("the header has no kernel_type")
	case nrClass < 2:
		return fail("the header gives nr_class %d (need ≥ 2)", nrClass)
	case totalSV < 0:
		return fail("the header has no total_sv")
	}
	if m.Type == EpsilonSVR {
		if nrClass != 2 {
			return fail("an epsilon_svr model must have nr_class 2, got %d", nrClass)
		}
		m.Labels, m.NumSV = nil, nil
	} else if len(m.Labels) != nrClass || len(m.NumSV) != nrClass {
		return fail("nr_class %d but %d labels and %d nr_sv counts", nrClass, len(m.Labels), len(m.NumSV))
	}
	if len(m.Rho) != nrClass*(nrClass-1)/2 {
		return fail("nr_class %d needs %d rho values, got %d", nrClass, nrClass*(nrClass-1)/2, len(m.Rho))
	}
	if m.Type == CSVC && (len(m.ProbA) != len(m.ProbB) || len(m.ProbA) != 0 && len(m.ProbA) != len(m.Rho)) {
		return fail("nr_class %d needs 0 or %d probA and probB values, got %d and %d", nrClass, len(m.Rho), len(m.ProbA), len(m.ProbB))
	}
	ncoef := nrClass - 1
	if m.Type == EpsilonSVR {
		ncoef = 1
	}
	// The coefficients and support vectors grow line by line: total_sv is
	// not trusted for an allocation before the lines are there. The
	// support vectors are read into compressed sparse rows (O(non-zeros));
	// at the end they are held dense when their density is at least
	// data.SparseDensity (as data sets are) and the dense matrix fits the
	// limit, else kept sparse.
	if int64(totalSV) > maxBytes/8 {
		return tooLarge("total_sv %d needs at least %s for the support vectors, over the %s limit",
			totalSV, engine.FormatBytes(int64(min(float64(totalSV)*8, 1<<62))), engine.FormatBytes(maxBytes))
	}
	m.Coef = make([][]float64, ncoef)
	type entry struct {
		j   int32
		v   float32
		v64 float64 // the value as written, for the float64 path (Decision64)
	}
	var row []entry
	m.sv64 = &Rows64{Index: make([][]int32, totalSV), Value: make([][]float64, totalSV)}
	off := []int64{0}
	var ind []int32
	var val []float32
	dim := 0
	for s := range totalSV {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("svm: reading LIBSVM model: %w", err)
			}
			line++
			return fail("the file ends after %d of %d support vectors", s, totalSV)
		}
		line++
		f := strings.Fields(sc.Text())
		if len(f) < ncoef {
			return fail("support vector %d has %d fields, need %d coefficients", s+1, len(f), ncoef)
		}
		for c := range ncoef {
			v, err := strconv.ParseFloat(f[c], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fail("support vector %d: bad coefficient %q", s+1, f[c])
			}
			m.Coef[c] = append(m.Coef[c], v)
		}
		row = row[:0]
		sorted := true
		for _, tok := range f[ncoef:] {
			is, vs, ok := strings.Cut(tok, ":")
			if !ok {
				return fail("support vector %d: %q is not index:value", s+1, tok)
			}
			j, err := strconv.Atoi(is)
			if err != nil || j < 1 {
				return fail("support vector %d: bad feature index %q", s+1, is)
			}
			v, err := strconv.ParseFloat(vs, 32)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fail("support vector %d: bad value %q", s+1, vs)
			}
			if j > math.MaxInt32 {
				return fail("support vector %d: feature index %d is above %d", s+1, j, math.MaxInt32)
			}
			if n := len(row); n > 0 && int32(j-1) <= row[n-1].j {
				sorted = false
			}
			v64, _ := strconv.ParseFloat(vs, 64) // finite: it is as a float32
			row = append(row, entry{int32(j - 1), float32(v), v64})
			dim = max(dim, j)
		}
		if !sorted {
			// Out of order or repeated indices: in index order, the last
			// value of a repeated index kept (as a dense matrix's writes).
			slices.SortStableFunc(row, func(a, b entry) int { return cmp.Compare(a.j, b.j) })
			w := 0
			for t := range row {
				if w > 0 && row[w-1].j == row[t].j {
					row[w-1] = row[t]
					continue
				}
				row[w] = row[t]
				w++
			}
			row = row[:w]
		}
		for _, en := range row {
			if en.v != 0 {
				ind = append(ind, en.j)
				val = append(val, en.v)
			}
		}
		m.sv64.set(s, len(row), func(t int) (int, float64) { return int(row[t].j), row[t].v64 })
		off = append(off, int64(len(ind)))
		// The float32 rows (8 bytes a non-zero, 8 a row of total_sv) and
		// their float64 copy for Decision64 (12 a non-zero, 48 a row read).
		if need := 20*int64(len(ind)) + 8*int64(totalSV+1) + 48*int64(s+1); need > maxBytes {
			return tooLarge("support vector %d: the sparse support vectors need %s so far (20 bytes a non-zero, 8 a row of total_sv %d and 48 a row read, for float32 and float64 copies), over the %s limit",
				s+1, engine.FormatBytes(need), totalSV, engine.FormatBytes(maxBytes))
		}
	}
	m.sv64.Cols = dim
	nnz := int64(len(ind))
	m.SV = pursuit.Matrix{Rows: totalSV, Cols: dim, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
	if dense := int64(totalSV) * int64(dim) * 4; dim > 0 && data.Density(totalSV, dim, nnz) >= data.SparseDensity && dense <= maxBytes {
		// At this density the dense matrix is at most 16 bytes a
		// non-zero: bounded by the file's size.
		d := pursuit.NewMatrix(totalSV, dim)
		for s := range totalSV {
			m.SV.RowTo(d.Row(s), s)
		}
		m.SV = d
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	return m, nil
}
