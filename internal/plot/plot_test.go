package plot

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	gplot "gonum.org/v1/plot"
)

// checkPNG decodes the PNG file at path and reports an error unless it is a
// picture of a sensible size that is not blank (not all one colour).
func checkPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s does not decode as PNG: %v", path, err)
	}
	b := img.Bounds()
	if b.Dx() < 200 || b.Dy() < 150 {
		t.Fatalf("%s is %d×%d pixels, too small", path, b.Dx(), b.Dy())
	}
	colours := map[[4]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}]++
		}
	}
	if len(colours) < 3 {
		t.Fatalf("%s is blank: %d distinct colours", path, len(colours))
	}
	return img
}

func TestLearningCurve(t *testing.T) {
	dir := t.TempDir()
	var x, tr, te []float64
	for n := 1; n <= 50; n++ {
		x = append(x, float64(n))
		tr = append(tr, 0.5*math.Exp(-float64(n)/10))
		te = append(te, 0.05+0.5*math.Exp(-float64(n)/12))
	}
	path := filepath.Join(dir, "curve.png")
	err := LearningCurve(path, "learning curve", "basis functions", "error", []Series{
		{Name: "train", X: x, Y: tr}, {Name: "test", X: x, Y: te}, {Name: "validation (none)", X: x, Y: make([]float64, len(x))},
	}, 20, "kept: step 20, 19 basis functions")
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path)
}

func TestLearningCurveErrors(t *testing.T) {
	dir := t.TempDir()
	nan := math.NaN()
	cases := []struct {
		name, path string
		series     []Series
		want       string
	}{
		{"all NaN", "a.png", []Series{{Name: "x", X: []float64{1, 2}, Y: []float64{nan, nan}}}, "no finite points"},
		{"length", "b.png", []Series{{Name: "x", X: []float64{1, 2}, Y: []float64{1}}}, "2 x and 1 y"},
		{"not png", "c.svg", []Series{{Name: "x", X: []float64{1, 2}, Y: []float64{1, 2}}}, ".png"},
	}
	for _, c := range cases {
		err := LearningCurve(filepath.Join(dir, c.path), "t", "x", "y", c.series, math.NaN(), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	err := LearningCurve(filepath.Join(dir, "missing", "d.png"), "t", "x", "y", []Series{{Name: "x", X: []float64{1, 2}, Y: []float64{1, 2}}}, math.NaN(), "")
	if err == nil {
		t.Error("writing into a missing directory: no error")
	}
}

func surface(classes []string) *Surface {
	s := &Surface{Title: "surface", Classes: classes}
	for i := 0; i < 40; i++ {
		s.X = append(s.X, -2+4*float64(i)/39)
		s.Y = append(s.Y, -1.5+3*float64(i)/39)
	}
	for _, y := range s.Y {
		row := make([]float64, len(s.X))
		for c, x := range s.X {
			v := math.Sin(2*x) - y
			if classes != nil {
				v = 0
				if x > 0 {
					v = 1
				}
				if y > 0.5 {
					v = 2
				}
			}
			row[c] = v
		}
		s.Values = append(s.Values, row)
	}
	for i := 0; i < 60; i++ {
		x, y := -2+4*float64(i)/59, math.Cos(float64(i))
		s.Points = append(s.Points, [2]float64{x, y})
		l := 1
		if math.Sin(2*x) < y {
			l = -1
		}
		if classes != nil {
			l = i % 3
		}
		s.Labels = append(s.Labels, l)
		if i%7 == 0 {
			s.Basis = append(s.Basis, [2]float64{x, y})
		}
	}
	return s
}

func TestDecisionSurface(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		classes []string
	}{{"binary", nil}, {"multi", []string{"a", "b", "c"}}} {
		path := filepath.Join(dir, c.name+".png")
		if err := DecisionSurface(path, surface(c.classes)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		img := checkPNG(t, path)
		if c.classes == nil {
			// The surface must show both sides of the boundary: reddish and
			// bluish pixels.
			var red, blue int
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y += 2 {
				for x := b.Min.X; x < b.Max.X; x += 2 {
					r, _, bl, _ := img.At(x, y).RGBA()
					switch {
					case r > bl+0x2000:
						red++
					case bl > r+0x2000:
						blue++
					}
				}
			}
			if red < 100 || blue < 100 {
				t.Errorf("binary surface: %d reddish and %d bluish pixels; want both sides of the boundary", red, blue)
			}
		}
	}
}

func TestDecisionSurfaceErrors(t *testing.T) {
	dir := t.TempDir()
	s := surface(nil)
	s.Values = s.Values[:3]
	if err := DecisionSurface(filepath.Join(dir, "a.png"), s); err == nil || !strings.Contains(err.Error(), "value rows") {
		t.Errorf("short values: got %v", err)
	}
	s = surface(nil)
	s.Labels = s.Labels[:2]
	if err := DecisionSurface(filepath.Join(dir, "b.png"), s); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Errorf("short labels: got %v", err)
	}
	s = surface(nil)
	s.X = s.X[:1]
	if err := DecisionSurface(filepath.Join(dir, "c.png"), s); err == nil || !strings.Contains(err.Error(), "2×2") {
		t.Errorf("tiny grid: got %v", err)
	}
}

func TestIntegerTicks(t *testing.T) {
	for _, r := range [][2]float64{{1, 40}, {1, 15}, {0, 3}, {1, 4}, {2, 12.5}, {0, 7}, {3, 1000}, {1, 60}, {-5, 5}, {1, 2}, {0.5, 1.5}} {
		ticks := niceTicks{integer: true}.Ticks(r[0], r[1])
		labelled := 0
		for _, tk := range ticks {
			if tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("range %v: tick %v outside", r, tk.Value)
			}
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("range %v: tick at %v is not an integer", r, tk.Value)
			}
			if tk.Label != "" {
				labelled++
				if strings.ContainsAny(tk.Label, ".e") {
					t.Errorf("range %v: label %q is not an integer", r, tk.Label)
				}
			}
		}
		if labelled < 1 || labelled > 7 || r[1]-r[0] >= 3 && labelled < 2 {
			t.Errorf("range %v: %d labelled ticks (%v)", r, labelled, ticks)
		}
	}
	// The demo's short curves (1…15 steps) gave labels 2.50, 12.50 before.
	p, err := curvePlot("t", "steps", "error", []Series{{Name: "a", X: []float64{1, 5, 10, 15}, Y: []float64{0.4, 0.2, 0.1, 0.1}}}, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "1 5 10 15" {
		t.Errorf("x labels of a 1…15 curve: %q, want \"1 5 10 15\"", got)
	}
	// Fractional x values keep gonum's ticks.
	p, err = curvePlot("t", "C", "error", []Series{{Name: "a", X: []float64{0.5, 1.5, 2.25}, Y: []float64{1, 2, 3}}}, math.NaN(), "")
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := p.X.Tick.Marker.(niceTicks); ok && m.integer {
		t.Error("fractional x values got integer ticks")
	}
}

// TestLegendOutside draws a surface of one flat colour with every point in
// its lower left: the top-right corner of the plotting area must stay that
// colour (no legend over it) and the legend must be drawn to its right.
func TestLegendOutside(t *testing.T) {
	s := &Surface{Title: "legend", Classes: []string{"a", "b"}}
	for i := range 20 {
		s.X = append(s.X, float64(i))
		s.Y = append(s.Y, float64(i))
	}
	for range s.Y {
		s.Values = append(s.Values, make([]float64, len(s.X))) // class 0 everywhere
	}
	s.Points = [][2]float64{{1, 1}, {2, 1}, {1, 2}}
	s.Labels = []int{0, 1, 0}
	s.Basis = [][2]float64{{2, 2}}
	path := filepath.Join(t.TempDir(), "legend.png")
	if err := DecisionSurface(path, s); err != nil {
		t.Fatal(err)
	}
	img := checkPNG(t, path)
	fill := categorical{}.color(0, true)
	fr, fg, fb, _ := fill.RGBA()
	isFill := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r == fr && g == fg && b == fb
	}
	bd := img.Bounds()
	box := image.Rectangle{Min: bd.Max, Max: bd.Min}
	right := plotRight(img) // not the legend's swatch of the region
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x <= right; x++ {
			if isFill(x, y) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if box.Dx() < bd.Dx()/2 || box.Dy() < bd.Dy()/2 {
		t.Fatalf("plotting area %v is too small in a %v picture", box, bd)
	}
	for y := box.Min.Y + 2; y < box.Min.Y+bd.Dy()/4; y++ {
		for x := box.Max.X - bd.Dx()/4; x < box.Max.X-2; x++ {
			if !isFill(x, y) {
				t.Fatalf("pixel (%d, %d) in the top-right corner of the plotting area %v is covered", x, y, box)
			}
		}
	}
	dark := 0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := box.Max.X + 1; x < bd.Max.X; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r+g+b < 3*0x8000 {
				dark++
			}
		}
	}
	if dark < 50 {
		t.Errorf("only %d dark pixels right of the plotting area: no legend there", dark)
	}
}

// TestTitleInside renders a learning curve and a surface and checks that
// the top rows of pixels are background: the title is not cut by the edge.
func TestTitleInside(t *testing.T) {
	dir := t.TempDir()
	curve := filepath.Join(dir, "curve.png")
	err := LearningCurve(curve, "Kkp ÅÉ title with ascenders", "steps", "error", []Series{{Name: "a", X: []float64{1, 2, 3}, Y: []float64{0.5, 0.2, 0.1}}}, math.NaN(), "")
	if err != nil {
		t.Fatal(err)
	}
	surf := filepath.Join(dir, "surface.png")
	s := surface(nil)
	s.Title = "Kkp ÅÉ title with ascenders"
	if err := DecisionSurface(surf, s); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{curve, surf} {
		img := checkPNG(t, path)
		b := img.Bounds()
		for y := b.Min.Y; y < b.Min.Y+6; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
					t.Fatalf("%s: pixel (%d, %d) in the top rows is not background: the title touches the edge", filepath.Base(path), x, y)
				}
			}
		}
	}
}

// TestCurveYRange: the y-axis starts at 0 for error rates and covers the
// largest value with some headroom (it used to end exactly at the largest
// value, 0.5 for a first step at chance, so step 1 ran along the top edge).
func TestCurveYRange(t *testing.T) {
	for _, first := range []float64{0.5, 0.8, 3} {
		p, err := curvePlot("t", "steps", "error", []Series{
			{Name: "a", X: []float64{1, 2, 3, 4}, Y: []float64{first, 0.3, 0.1, 0.05}},
			{Name: "b", X: []float64{1, 2, 3, 4}, Y: []float64{0.4, 0.2, math.NaN(), 0.1}},
		}, 2, "")
		if err != nil {
			t.Fatal(err)
		}
		if p.Y.Min != 0 {
			t.Errorf("first point %v: y-axis starts at %v, want 0", first, p.Y.Min)
		}
		if p.Y.Max <= first*1.02 || p.Y.Max > first*1.2 {
			t.Errorf("first point %v: y-axis ends at %v, want a little above it", first, p.Y.Max)
		}
		labelled := 0
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Label != "" {
				labelled++
			}
		}
		if labelled < 3 {
			t.Errorf("first point %v: %d labelled y ticks", first, labelled)
		}
	}
	// Negative values (log scale): below the smallest, above the largest.
	lo, hi := curveYRange(-3, -1)
	if lo >= -3 || hi <= -1 || hi > 0 {
		t.Errorf("curveYRange(-3, -1) = %v, %v", lo, hi)
	}
}

// TestTicksAtStart: the x-axis of a learning curve has a labelled tick at
// (or within half a step of) its start, and at most one unlabelled tick
// between labelled ones.
func TestTicksAtStart(t *testing.T) {
	for _, n := range []int{8, 15, 24, 37, 60, 150} {
		var x, y []float64
		for i := 1; i <= n; i++ {
			x, y = append(x, float64(i)), append(y, 1/float64(i))
		}
		p, err := curvePlot("t", "steps", "error", []Series{{Name: "a", X: x, Y: y}}, math.NaN(), "")
		if err != nil {
			t.Fatal(err)
		}
		checkStart(t, fmt.Sprintf("curve 1…%d", n), p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max), p.X.Min)
	}
	for _, r := range [][2]float64{{-1.63, 2.61}, {-1.2, 1.44}, {0, 0.525}, {0.013, 0.97}, {-40, 1210}} {
		checkStart(t, fmt.Sprint(r), niceTicks{}.Ticks(r[0], r[1]), r[0])
	}
}

func checkStart(t *testing.T, name string, ticks []gplot.Tick, lo float64) {
	t.Helper()
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
	var labels []float64
	between := 0
	for _, tk := range ticks {
		if tk.Label == "" {
			between++
			continue
		}
		if len(labels) > 0 && between > 1 {
			t.Errorf("%s: %d unlabelled ticks before %s", name, between, tk.Label)
		}
		between = 0
		labels = append(labels, tk.Value)
	}
	if len(labels) < 3 {
		t.Fatalf("%s: %d labelled ticks (%v)", name, len(labels), ticks)
	}
	step := labels[len(labels)-1] - labels[len(labels)-2]
	if labels[0]-lo > step/2 {
		t.Errorf("%s: first label at %v, %v after the start %v (step %v)", name, labels[0], labels[0]-lo, lo, step)
	}
}

// TestSurfaceColourScale: a binary surface has a colour bar of the decision
// value (reddish and bluish pixels right of the plotting area, where only
// the legend was before), and a multi-class one names the colour of each
// class region in its legend.
func TestSurfaceColourScale(t *testing.T) {
	s := surface(nil)
	p, bar, err := surfacePlot(s)
	if err != nil {
		t.Fatal(err)
	}
	if p == nil || bar == nil {
		t.Fatal("binary surface: no colour bar")
	}
	m := 0.0
	for _, row := range s.Values {
		for _, v := range row {
			m = math.Max(m, math.Abs(v))
		}
	}
	if bar.Y.Min != -m || bar.Y.Max != m || bar.Y.Label.Text == "" {
		t.Errorf("colour bar covers [%v, %v] labelled %q, want [%v, %v] and a label", bar.Y.Min, bar.Y.Max, bar.Y.Label.Text, -m, m)
	}
	dir := t.TempDir()
	strip := func(path string, want func(r, g, b uint32) bool) int {
		img := checkPNG(t, path)
		bd := img.Bounds()
		right := plotRight(img)
		n := 0
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			for x := right + 2; x < bd.Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if want(r>>8, g>>8, b>>8) {
					n++
				}
			}
		}
		return n
	}
	path := filepath.Join(dir, "binary.png")
	if err := DecisionSurface(path, s); err != nil {
		t.Fatal(err)
	}
	red := strip(path, func(r, g, b uint32) bool { return r > b+40 && g > 0x40 })
	blue := strip(path, func(r, g, b uint32) bool { return b > r+40 && g > 0x60 })
	if red < 1000 || blue < 1500 {
		t.Errorf("binary surface: %d reddish and %d bluish pixels in the legend strip; want a colour bar", red, blue)
	}
	path = filepath.Join(dir, "multi.png")
	if err := DecisionSurface(path, surface([]string{"a", "b", "c"})); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		cr, cg, cb, _ := categorical{}.color(i, true).RGBA()
		n := strip(path, func(r, g, b uint32) bool { return r == cr>>8 && g == cg>>8 && b == cb>>8 })
		if n < 50 {
			t.Errorf("multi-class surface: %d pixels of region colour %d in the legend strip; want a swatch", n, i)
		}
	}
}

// plotRight returns the right edge of the plotting area of a surface: the
// rightmost column that is mostly (3/4) not white.
func plotRight(img image.Image) int {
	bd := img.Bounds()
	for x := bd.Max.X - 1; x >= bd.Min.X; x-- {
		n := 0
		for y := bd.Min.Y; y < bd.Max.Y; y++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || b < 0xf000 {
				n++
			}
		}
		if 4*n > 3*bd.Dy() {
			return x
		}
	}
	return bd.Min.X
}
