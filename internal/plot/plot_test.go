package plot

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	}, 20)
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
		err := LearningCurve(filepath.Join(dir, c.path), "t", "x", "y", c.series, math.NaN())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	err := LearningCurve(filepath.Join(dir, "missing", "d.png"), "t", "x", "y", []Series{{Name: "x", X: []float64{1, 2}, Y: []float64{1, 2}}}, math.NaN())
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
