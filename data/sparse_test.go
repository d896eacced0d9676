package data

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// sparseFixture is LIBSVM text covering the sparse reader's cases: an empty
// row, a row with one non-zero, an explicit zero, a qid, comments, blank
// lines and a last row reaching the largest index.
const sparseFixture = "# head\n" +
	"+1 qid:7 1:0.5 3:-2 # c\n" +
	"-1\n" +
	"\n" +
	"2 2:0 4:1e-3\n" +
	"-1 1:3\n" +
	"1 5:-0.25 9:4\n"

// loadAll reads text (as a file through Load, and as a stream through
// ReadLibSVM) in the given storage.
func loadAll(t *testing.T, text string, st Storage, opts ...Option) (*Dataset, *Dataset) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.svm")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	opts = append(opts, WithStorage(st))
	a, err := Load(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadLibSVM(strings.NewReader(text), "f.svm", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestSparseLoadEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := range 300 {
		b.WriteString([]string{"-1", "1", "3"}[i%3])
		for j := 1; j <= 60; j++ {
			if rng.IntN(10) == 0 {
				b.WriteString(" " + itoa(j) + ":" + ftoa(rng.NormFloat64()))
			}
		}
		b.WriteString("\n")
	}
	for name, text := range map[string]string{"fixture": sparseFixture, "random": b.String()} {
		t.Run(name, func(t *testing.T) {
			dl, dr := loadAll(t, text, StorageDense)
			sl, sr := loadAll(t, text, StorageSparse)
			for _, d := range []*Dataset{dl, dr} {
				if d.X.IsSparse() {
					t.Fatal("dense storage gave sparse rows")
				}
			}
			for _, s := range []*Dataset{sl, sr} {
				if !s.X.IsSparse() {
					t.Fatal("sparse storage gave dense rows")
				}
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
				sameData(t, s, dl)
				if nz := CountNonZeros(s.X); s.X.NNZ() != nz || nz != CountNonZeros(dl.X) {
					t.Errorf("%d stored values, %d non-zeros, dense %d: explicit zeros are not stored", s.X.NNZ(), nz, CountNonZeros(dl.X))
				}
			}
			sameData(t, dr, dl)
			// WithDim pads both alike.
			sw, _ := loadAll(t, text, StorageSparse, WithDim(dl.Dim()+5))
			dw, _ := loadAll(t, text, StorageDense, WithDim(dl.Dim()+5))
			sameData(t, sw, dw)
			if sw.Dim() != dl.Dim()+5 {
				t.Errorf("WithDim: %d features", sw.Dim())
			}
		})
	}
}

func TestSparseLoadSharedFiles(t *testing.T) {
	files := [][]string{{"mushrooms", "mushrooms.gz"}, {"uci", "sonar.gz"}}
	for _, f := range files {
		t.Run(f[1], func(t *testing.T) {
			path := sharedFile(t, f...)
			dense, err := Load(path, WithStorage(StorageDense))
			if err != nil {
				t.Fatal(err)
			}
			sparse, err := Load(path, WithStorage(StorageSparse))
			if err != nil {
				t.Fatal(err)
			}
			sameData(t, sparse, dense)
			auto, err := Load(path, WithStorage(StorageAuto))
			if err != nil {
				t.Fatal(err)
			}
			st, why := ResolveStorage(StorageAuto, dense.Len(), dense.Dim(), CountNonZeros(dense.X))
			if auto.X.IsSparse() != (st == StorageSparse) {
				t.Errorf("auto gave sparse=%v, ResolveStorage says %s (%s)", auto.X.IsSparse(), st, why)
			}
			t.Logf("%s: %d×%d, %d non-zeros, auto: %s (%s); dense %d B, sparse %d B",
				f[1], dense.Len(), dense.Dim(), sparse.X.NNZ(), st, why, dense.Bytes(), sparse.Bytes())
		})
	}
	// The small bzip2 test file too.
	dense, err := Load("testdata/small.svm.bz2", WithStorage(StorageDense))
	if err != nil {
		t.Fatal(err)
	}
	sparse, err := Load("testdata/small.svm.bz2", WithStorage(StorageSparse))
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, sparse, dense)
}

// TestResolveStorage checks each part of StorageAuto's rule on the shapes
// of the data sets it is reported for (mushrooms, the covtype-like set,
// rcv1 and news20) and at its edges: the crossover density, the memory
// factor and the memory limit.
func TestResolveStorage(t *testing.T) {
	cases := []struct {
		name      string
		asked     Storage
		rows, dim int
		nnz       int64
		limit     int64
		want      Storage
		frag      string
	}{
		{"mushrooms", StorageAuto, 8124, 112, 170_604, DefaultMemoryLimit, StorageDense, "faster at any density"},
		{"covtype-like", StorageAuto, 50_000, 54, 594_000, DefaultMemoryLimit, StorageDense, "at most 4 times"},
		{"rcv1", StorageAuto, 20242, 47236, 1_500_000, DefaultMemoryLimit, StorageSparse, "below 0.18"},
		{"news20", StorageAuto, 19996, 1_355_191, 9_100_000, DefaultMemoryLimit, StorageSparse, "below 0.18"},
		// 300 features: crossover 0.18 (nnz 5,399 and 5,400 of 30,000).
		{"below crossover", StorageAuto, 100, 300, 5399, DefaultMemoryLimit, StorageSparse, "faster"},
		{"at crossover", StorageAuto, 100, 300, 5400, DefaultMemoryLimit, StorageDense, "only below density 0.18"},
		// 100 features, no crossover: dense up to 4× the sparse bytes.
		// Dense 40,000 B; sparse 8·nnz + 808 B.
		{"within memory factor", StorageAuto, 100, 100, 1149, DefaultMemoryLimit, StorageDense, "at most 4 times"},
		{"over memory factor", StorageAuto, 100, 100, 1148, DefaultMemoryLimit, StorageSparse, "over 4 times"},
		{"over the limit", StorageAuto, 100, 100, 5000, 39_999, StorageSparse, "memory limit"},
		{"at the limit", StorageAuto, 100, 100, 5000, 40_000, StorageDense, "faster at any density"},
		{"empty", StorageAuto, 1, 0, 0, DefaultMemoryLimit, StorageDense, "no values"},
		{"dense asked", StorageDense, 10, 1000, 1, DefaultMemoryLimit, StorageDense, "asked for"},
		{"sparse asked", StorageSparse, 10, 10, 100, DefaultMemoryLimit, StorageSparse, "asked for"},
	}
	for _, c := range cases {
		got, why := ResolveStorageLimit(c.asked, c.rows, c.dim, c.nnz, c.limit)
		if got != c.want || !strings.Contains(why, c.frag) {
			t.Errorf("%s: ResolveStorageLimit(%s, %d, %d, %d, %d) = %s (%q), want %s (%q)", c.name, c.asked, c.rows, c.dim, c.nnz, c.limit, got, why, c.want, c.frag)
		}
		if c.limit == DefaultMemoryLimit {
			if got2, why2 := ResolveStorage(c.asked, c.rows, c.dim, c.nnz); got2 != got || why2 != why {
				t.Errorf("%s: ResolveStorage = %s (%q), ResolveStorageLimit at the default limit %s (%q)", c.name, got2, why2, got, why)
			}
		}
	}
	for cols, want := range map[int]float64{50: 0, 120: 0, 210: 0.1, 282: 0.18, 2000: 0.18, 1 << 20: 0.18} {
		if got := SparseCrossover(cols); math.Abs(got-want) > 1e-12 {
			t.Errorf("SparseCrossover(%d) = %v, want %v", cols, got, want)
		}
	}
	for in, want := range map[string]Storage{"auto": StorageAuto, " Dense": StorageDense, "SPARSE": StorageSparse} {
		if got, err := ParseStorage(in); err != nil || got != want {
			t.Errorf("ParseStorage(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseStorage("csr"); err == nil || !strings.Contains(err.Error(), "want auto, dense or sparse") {
		t.Errorf("ParseStorage(csr): %v", err)
	}
	if _, err := ReadLibSVM(strings.NewReader("1 1:1\n"), "f.svm", WithStorage("csr")); err == nil || !strings.Contains(err.Error(), `WithStorage("csr")`) {
		t.Errorf("WithStorage(csr): %v", err)
	}
}

// TestSparseErrors: bad indices get one error naming the file and line in
// every storage, through Load and ReadLibSVM.
func TestSparseErrors(t *testing.T) {
	cases := []struct {
		name, in string
		want     error
		frags    []string
	}{
		{"index above 2^31-1", "1 1:1\n1 2147483648:1\n", ErrTooLarge, []string{"f.svm:2:", `token "2147483648:1"`, "above the limit of 2147483647"}},
		{"huge index", "1 99999999999999999999999:1\n", ErrTooLarge, []string{"f.svm:1:", "above the limit"}},
		{"index 0", "1 1:1\n-1 0:1\n", ErrSyntax, []string{"f.svm:2:", `token "0:1"`, "index 0", "1-based"}},
		{"duplicate", "1 1:1\n\n1 2:1 2:3\n", ErrSyntax, []string{"f.svm:3:", `token "2:3"`, "index 2 repeated", "strictly increasing"}},
		{"unsorted", "1 5:1 3:1\n", ErrSyntax, []string{"f.svm:1:", `token "3:1"`, "index 3 after 5", "strictly increasing"}},
		{"negative", "1 -4:1\n", ErrSyntax, []string{"f.svm:1:", "negative"}},
	}
	for _, c := range cases {
		for _, st := range []Storage{StorageAuto, StorageSparse, StorageDense} {
			t.Run(c.name+"/"+string(st), func(t *testing.T) {
				if st == StorageDense && strings.HasPrefix(c.name, "index above") {
					c.frags = []string{"f.svm:2:", "above the limit of 16777216", "sparse storage takes indices up to 2147483647"}
				}
				_, err := ReadLibSVM(strings.NewReader(c.in), "f.svm", WithStorage(st))
				checkErr(t, err, c.want, c.frags...)
				path := filepath.Join(t.TempDir(), "f.svm")
				os.WriteFile(path, []byte(c.in), 0o644)
				_, err = Load(path, WithStorage(st))
				if err == nil {
					t.Fatal("Load: no error")
				}
				if !strings.Contains(err.Error(), path+":") || !errors.Is(err, c.want) || strings.Count(err.Error(), "\n") > 0 {
					t.Errorf("Load: %v", err)
				}
			})
		}
	}
	// The largest sparse index loads, sparse, as a 2³¹−1-wide matrix.
	d, err := ReadLibSVM(strings.NewReader("1 2147483647:2\n"), "w.svm", WithStorage(StorageAuto))
	if err != nil {
		t.Fatal(err)
	}
	if !d.X.IsSparse() || d.Dim() != MaxSparseIndex || d.X.At(0, MaxSparseIndex-1) != 2 {
		t.Fatalf("sparse=%v dim %d", d.X.IsSparse(), d.Dim())
	}
}

// TestDenseOverLimitSuggestsSparse: dense storage over the memory limit
// says that sparse storage would fit.
func TestDenseOverLimitSuggestsSparse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.svm")
	wideSparseFile(t, path, 1000, 750_000)
	_, err := Load(path, WithMemoryLimit(1<<30), WithStorage(StorageDense))
	var le *LimitError
	if !errors.As(err, &le) || le.SparseNeed == 0 || !strings.Contains(err.Error(), "use sparse storage") {
		t.Fatalf("err = %v, want a *LimitError suggesting sparse storage", err)
	}
	_, err = ReadLibSVM(strings.NewReader("1 1:1\n1 1000:1\n"), "f.svm", WithMemoryLimit(4000), WithStorage(StorageDense))
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "f.svm:2:") || !strings.Contains(err.Error(), "use sparse storage") {
		t.Fatalf("stream: err = %v", err)
	}
	// Sparse storage is charged its compressed rows.
	d, err := Load(path, WithMemoryLimit(1<<20), WithStorage(StorageAuto))
	if err != nil || !d.X.IsSparse() {
		t.Fatalf("auto: %v", err)
	}
	_, err = Load(path, WithMemoryLimit(10_000), WithStorage(StorageSparse))
	if !errors.As(err, &le) || le.Need != SparseBytes(1000, 1000) || !strings.Contains(err.Error(), "1000 sparse rows with 1000 non-zeros") {
		t.Fatalf("sparse over the limit: %v", err)
	}
}

// TestSparseLoadAllocatesNonZerosOnly loads a 1000×750,000 file with one
// non-zero a row: sparse storage allocates its compressed rows (16 KB), not
// anything 750,000 long.
func TestSparseLoadAllocatesNonZerosOnly(t *testing.T) {
	dir := t.TempDir()
	path, small := filepath.Join(dir, "wide.svm"), filepath.Join(dir, "one.svm")
	wideSparseFile(t, path, 1000, 750_000)
	os.WriteFile(small, []byte("1 1:1\n"), 0o644)
	base := allocated(func() { Load(small, WithStorage(StorageSparse)) })
	var d *Dataset
	var err error
	got := allocated(func() { d, err = Load(path, WithStorage(StorageAuto)) })
	if err != nil || !d.X.IsSparse() {
		t.Fatal(err)
	}
	want := uint64(d.Bytes())
	t.Logf("allocated %d B beyond a one-row load; the rows and labels are %d B", got-base, want)
	if got > base+want+64<<10 {
		t.Errorf("allocated %d B beyond a one-row load; the sparse rows and labels are %d B", got-base, want)
	}
}

func TestSparseShards(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.svm")
	var b strings.Builder
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 101 {
		b.WriteString(itoa(i%2*2 - 1))
		for j := 1; j <= 40; j++ {
			if rng.IntN(8) == 0 {
				b.WriteString(" " + itoa(j) + ":" + ftoa(rng.Float64()))
			}
		}
		b.WriteString("\n")
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	whole, err := Load(path, WithStorage(StorageDense))
	if err != nil {
		t.Fatal(err)
	}
	const ranks = 4
	for r := range ranks {
		blk, err := Load(path, WithStorage(StorageSparse), WithShard(r, ranks))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := ShardRange(whole.Len(), r, ranks)
		sameData(t, blk, whole.View(lo, hi))
		if got, want := blk.X.NNZ(), CountNonZeros(whole.View(lo, hi).X); got != want || int64(cap(blk.X.Sparse.Values)) > want+int64(hi-lo)*40/8*2 {
			t.Errorf("rank %d holds %d non-zeros (capacity %d), its rows have %d", r, got, cap(blk.X.Sparse.Values), want)
		}
	}
}

// sparseRandom returns a random dataset held both ways, with duplicate rows.
func sparseRandom(t *testing.T, n, d int, seed uint64) (dense, sparse *Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	dense = &Dataset{X: pursuit.NewMatrix(n, d), Y: make([]float64, n), Name: "r"}
	for i := range n {
		dense.Y[i] = float64(rng.IntN(3))
		if i > 0 && rng.IntN(4) == 0 {
			copy(dense.X.Row(i), dense.X.Row(rng.IntN(i)))
			continue
		}
		for j := range d {
			if rng.IntN(5) == 0 {
				dense.X.Set(i, j, float32(rng.NormFloat64()))
			}
		}
	}
	sparse = Sparsify(dense)
	if err := sparse.Validate(); err != nil {
		t.Fatal(err)
	}
	return dense, sparse
}

func TestSparseDatasetOps(t *testing.T) {
	dense, sparse := sparseRandom(t, 80, 17, 9)
	sameData(t, sparse, dense)
	back, err := Densify(sparse, 1<<20)
	if err != nil || back.X.IsSparse() {
		t.Fatal(err)
	}
	sameData(t, back, dense)
	if _, err := Densify(sparse, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Densify over the limit: %v", err)
	}
	idx := []int{5, 0, 5, 79, 33}
	sameData(t, sparse.Subset(idx), dense.Subset(idx))
	if !sparse.Subset(idx).X.IsSparse() {
		t.Error("Subset of sparse rows is dense")
	}
	sameData(t, sparse.View(10, 30), dense.View(10, 30))
	if got, want := sparse.Bytes(), 8*sparse.X.NNZ()+8*81+8*80; got != want {
		t.Errorf("Bytes %d, want %d", got, want)
	}
	// Reorder a view of the rows, as a split does, and the whole.
	order := rand.New(rand.NewPCG(1, 2)).Perm(40)
	dv, sv := dense.View(20, 60), sparse.View(20, 60)
	if err := dv.Reorder(order); err != nil {
		t.Fatal(err)
	}
	if err := sv.Reorder(order); err != nil {
		t.Fatal(err)
	}
	sameData(t, sparse, dense)
	if err := sparse.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := sparse.Reorder([]int{0}); err == nil {
		t.Error("Reorder with a short order: no error")
	}
	// Duplicates.
	if a, b := DuplicateRows(sparse.X), DuplicateRows(dense.X); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("DuplicateRows sparse %v, dense %v", a, b)
	}
	if a, b := LabelConflicts(sparse), LabelConflicts(dense); !slices.Equal(a, b) {
		t.Errorf("LabelConflicts sparse %v, dense %v", a, b)
	}
	ds, kd := Dedup(dense)
	ss, ks := Dedup(sparse)
	if !slices.Equal(kd, ks) || !ss.X.IsSparse() {
		t.Errorf("Dedup kept %v sparse, %v dense", ks, kd)
	}
	sameData(t, ss, ds)
	md, cd := MergeDuplicates(dense)
	ms, cs := MergeDuplicates(sparse)
	if !slices.Equal(cd, cs) {
		t.Errorf("MergeDuplicates counts %v sparse, %v dense", cs, cd)
	}
	sameData(t, ms, md)
	// A stored zero does not make a row differ.
	x, err := pursuit.SparseFrom(2, 3, []int64{0, 2, 3}, []int32{0, 2, 2}, []float32{0, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := DuplicateRows(x); !slices.Equal(got, []int{1}) {
		t.Errorf("DuplicateRows with a stored zero: %v", got)
	}
	// Write and read back.
	var wd, ws bytes.Buffer
	if err := WriteLibSVM(&wd, dense); err != nil {
		t.Fatal(err)
	}
	if err := WriteLibSVM(&ws, sparse); err != nil {
		t.Fatal(err)
	}
	if wd.String() != ws.String() {
		t.Errorf("WriteLibSVM differs:\n%s\nvs\n%s", ws.String(), wd.String())
	}
	rb, err := ReadLibSVM(&ws, "back", WithDim(17), WithStorage(StorageSparse))
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, rb, dense)
	// Split indices are the rows', whatever the storage.
	sets := Split(sparse.Len(), []float64{0.7, 0.3}, 1, sparse.Y)
	sameData(t, sparse.Subset(sets[1]), dense.Subset(sets[1]))
}

func TestSparseValidate(t *testing.T) {
	_, sparse := sparseRandom(t, 10, 5, 2)
	sparse.X.Sparse.Values[3] = float32(posInf())
	if err := sparse.Validate(); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("Validate with +Inf: %v", err)
	}
	if err := WriteLibSVM(new(bytes.Buffer), sparse); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("WriteLibSVM with +Inf: %v", err)
	}
	bad := &Dataset{X: pursuit.Matrix{Rows: 1, Cols: 3, Sparse: &pursuit.CSR{Offsets: []int64{0, 2}, Indices: []int32{2, 1}, Values: []float32{1, 1}}}, Y: []float64{1}, Name: "bad"}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "columns must increase") {
		t.Errorf("Validate with unsorted columns: %v", err)
	}
}

func TestScaleMaxAbsSparse(t *testing.T) {
	dense, sparse := sparseRandom(t, 60, 9, 4)
	if d := Density(dense.Len(), dense.Dim(), CountNonZeros(dense.X)); d >= SparseDensity {
		t.Fatalf("the fixture's density %.3g is not below %g", d, SparseDensity)
	}
	// The default follows the data, not their storage: the same sparse
	// numbers held dense get maxabs too.
	if DefaultScaleMode(sparse.X) != ScaleMaxAbs || DefaultScaleMode(dense.X) != ScaleMaxAbs {
		t.Fatalf("DefaultScaleMode: sparse rows %s, the same rows dense %s; want maxabs for both", DefaultScaleMode(sparse.X), DefaultScaleMode(dense.X))
	}
	sd, err := FitScaler(ScaleMaxAbs, dense.X)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := FitScaler(ScaleMaxAbs, sparse.X)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sd.Scale, ss.Scale) || !slices.Equal(sd.Offset, ss.Offset) {
		t.Fatalf("maxabs scalers differ: %v vs %v", ss.Scale, sd.Scale)
	}
	// Reference: x / max|x_j| column by column.
	for j := range 9 {
		m := 0.0
		for i := range 60 {
			m = max(m, abs(float64(dense.X.At(i, j))))
		}
		if want := 1 / m; m > 0 && sd.Scale[j] != want || m == 0 && sd.Scale[j] != 0 {
			t.Errorf("feature %d: scale %v, want 1/%v", j+1, sd.Scale[j], m)
		}
	}
	nnz := sparse.X.NNZ()
	if err := sd.Apply(dense.X); err != nil {
		t.Fatal(err)
	}
	if err := ss.Apply(sparse.X); err != nil {
		t.Fatal(err)
	}
	sameData(t, sparse, dense)
	if sparse.X.NNZ() != nnz {
		t.Error("maxabs scaling changed the non-zeros")
	}
	for i := range 60 {
		for j := range 9 {
			if v := dense.X.At(i, j); v > 1 || v < -1 {
				t.Fatalf("scaled value %v outside [-1, 1]", v)
			}
		}
	}
	// Scalings that fill in zeros are refused on sparse rows, naming the
	// ones that keep them.
	for _, m := range []ScaleMode{ScaleMinMax, ScaleStandard} {
		if _, err := FitScaler(m, sparse.X); err == nil || !strings.Contains(err.Error(), "fill in their zeros") || !strings.Contains(err.Error(), "use maxabs or none") {
			t.Errorf("FitScaler(%s) on sparse: %v", m, err)
		}
		s, _ := FitScaler(m, dense.X)
		if err := s.Apply(sparse.X); err == nil || !strings.Contains(err.Error(), "fill in their zeros") {
			t.Errorf("%s Apply on sparse: %v", m, err)
		}
	}
	none, err := FitScaler(ScaleNone, sparse.X)
	if err != nil || none.Apply(sparse.X) != nil {
		t.Errorf("none on sparse: %v", err)
	}
	bad := &Scaler{Mode: ScaleMaxAbs, Offset: []float64{1}, Scale: []float64{1}}
	if err := bad.Check(); err == nil {
		t.Error("a maxabs scaler with an offset passes Check")
	}
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(v float64) string { return strconv.FormatFloat(float64(float32(v)), 'g', -1, 32) }
func abs(v float64) float64 { return math.Abs(v) }
func posInf() float64       { return math.Inf(1) }

// TestDefaultScaleModeByDensity: dense rows at or above SparseDensity get
// minmax, below it maxabs; rows held sparse get maxabs at any density
// (minmax would fill in their zeros).
func TestDefaultScaleModeByDensity(t *testing.T) {
	// 4 rows × 4 columns: nnz non-zeros, filled row by row.
	rows := func(nnz int) pursuit.Matrix {
		m := pursuit.NewMatrix(4, 4)
		for k := range nnz {
			m.Row(k / 4)[k%4] = float32(k + 1)
		}
		return m
	}
	for _, c := range []struct {
		nnz  int
		want ScaleMode
	}{{0, ScaleMaxAbs}, {3, ScaleMaxAbs}, {4, ScaleMinMax}, {16, ScaleMinMax}} {
		m := rows(c.nnz)
		if got := DefaultScaleMode(m); got != c.want {
			t.Errorf("dense, %d of 16 non-zero: %s, want %s", c.nnz, got, c.want)
		}
		if got := DefaultScaleMode(Sparsify(&Dataset{X: m, Y: make([]float64, 4)}).X); got != ScaleMaxAbs {
			t.Errorf("sparse, %d of 16 non-zero: %s, want maxabs", c.nnz, got)
		}
		if n := CountNonZeros(m); n != int64(c.nnz) {
			t.Errorf("NonZeros = %d, want %d", n, c.nnz)
		}
	}
	if got := DefaultScaleModeOf(false, 0, 5, 0); got != ScaleMinMax {
		t.Errorf("no rows: %s, want minmax", got)
	}
}
