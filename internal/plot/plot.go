package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named curve.
type Series struct {
	Name string
	X, Y []float64 // equal lengths; NaN values of Y are left out
}

// Size of the pictures.
const (
	width  = 16 * vg.Centimeter
	height = 12 * vg.Centimeter
)

var seriesColors = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
}

// LearningCurve writes a line chart of the series (error against number of
// basis functions, typically training, validation and test) to path, a
// .png file, with a dashed vertical line at x = mark (the size training
// kept, say) unless mark is NaN. Series with no finite point are left out;
// it is an error when none is left.
func LearningCurve(path, title, xLabel, yLabel string, series []Series, mark float64) error {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	drawn := 0
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot %s: series %q has %d x and %d y values", path, s.Name, len(s.X), len(s.Y))
		}
		var xy plotter.XYs
		for j := range s.X {
			if isFinite(s.X[j]) && isFinite(s.Y[j]) {
				xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("plot %s: series %q: %w", path, s.Name, err)
		}
		l.Color = seriesColors[i%len(seriesColors)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("plot %s: no finite points to draw", path)
	}
	p.Y.Min = math.Min(p.Y.Min, 0)
	if isFinite(mark) {
		l, err := plotter.NewLine(plotter.XYs{{X: mark, Y: p.Y.Min}, {X: mark, Y: p.Y.Max}})
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		l.Color = color.Gray{Y: 0x60}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("kept (%g)", mark), l)
	}
	return save(p, path)
}

// Surface is a decision surface over a rectangle of the plane: Values[r][c]
// is the model's output at (X[c], Y[r]), with X and Y increasing.
type Surface struct {
	Title  string
	X, Y   []float64
	Values [][]float64
	// Classes, when non-nil, says the values are class indices (a
	// multi-class prediction), drawn as flat colours without a contour;
	// otherwise the values are real-valued outputs whose sign is the class,
	// drawn on a blue–white–red scale with the zero contour.
	Classes []string

	// Points are the training points and Labels their class: +1/−1 for a
	// binary surface, the class index for a multi-class one.
	Points [][2]float64
	Labels []int
	// Basis are the basis points (support or expansion vectors), circled.
	Basis [][2]float64
}

// DecisionSurface writes the surface s to path, a .png file.
func DecisionSurface(path string, s *Surface) error {
	if len(s.X) < 2 || len(s.Y) < 2 {
		return fmt.Errorf("plot %s: the grid needs at least 2×2 points, got %d×%d", path, len(s.X), len(s.Y))
	}
	if len(s.Values) != len(s.Y) {
		return fmt.Errorf("plot %s: %d value rows for %d y coordinates", path, len(s.Values), len(s.Y))
	}
	for r, row := range s.Values {
		if len(row) != len(s.X) {
			return fmt.Errorf("plot %s: value row %d has %d values for %d x coordinates", path, r, len(row), len(s.X))
		}
	}
	if len(s.Labels) != len(s.Points) {
		return fmt.Errorf("plot %s: %d labels for %d points", path, len(s.Labels), len(s.Points))
	}
	g := &grid{x: s.X, y: s.Y, z: s.Values}
	p := gplot.New()
	p.Title.Text = s.Title
	p.X.Label.Text = "x₁"
	p.Y.Label.Text = "x₂"
	if s.Classes != nil {
		k := max(len(s.Classes), 1)
		h := plotter.NewHeatMap(g, categorical{n: k, light: true})
		h.Min, h.Max = 0, float64(k-1) // value i ↦ colour i
		h.Rasterized = true
		p.Add(h)
	} else {
		m := 0.0
		for _, row := range s.Values {
			for _, v := range row {
				if isFinite(v) {
					m = math.Max(m, math.Abs(v))
				}
			}
		}
		if m == 0 {
			m = 1
		}
		h := plotter.NewHeatMap(g, diverging{n: 64})
		h.Min, h.Max = -m, m
		h.Underflow, h.Overflow = color.RGBA{B: 0xff, A: 0xff}, color.RGBA{R: 0xff, A: 0xff}
		h.Rasterized = true
		p.Add(h)
		c := plotter.NewContour(g, []float64{0}, flat{color.Black})
		c.LineStyles = []draw.LineStyle{{Color: color.Black, Width: vg.Points(1.5)}}
		p.Add(c)
	}
	// Training points, one scatter per class.
	byClass := map[int]plotter.XYs{}
	var keys []int
	for i, pt := range s.Points {
		l := s.Labels[i]
		if _, ok := byClass[l]; !ok {
			keys = append(keys, l)
		}
		byClass[l] = append(byClass[l], plotter.XY{X: pt[0], Y: pt[1]})
	}
	for _, l := range keys {
		sc, err := plotter.NewScatter(byClass[l])
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		sc.GlyphStyle = pointStyle(l, s.Classes != nil)
		p.Add(sc)
		p.Legend.Add(className(l, s.Classes), sc)
	}
	if len(s.Basis) > 0 {
		var xy plotter.XYs
		for _, b := range s.Basis {
			xy = append(xy, plotter.XY{X: b[0], Y: b[1]})
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", path, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("basis (%d)", len(s.Basis)), sc)
	}
	p.X.Min, p.X.Max = s.X[0], s.X[len(s.X)-1]
	p.Y.Min, p.Y.Max = s.Y[0], s.Y[len(s.Y)-1]
	p.Legend.Top = true
	return save(p, path)
}

func pointStyle(label int, multi bool) draw.GlyphStyle {
	if multi {
		return draw.GlyphStyle{Color: categorical{}.color(label, false), Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	}
	if label > 0 {
		return draw.GlyphStyle{Color: color.RGBA{R: 0xb2, G: 0x18, B: 0x2b, A: 0xff}, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
	}
	return draw.GlyphStyle{Color: color.RGBA{R: 0x21, G: 0x66, B: 0xac, A: 0xff}, Radius: vg.Points(2.2), Shape: draw.SquareGlyph{}}
}

func className(l int, classes []string) string {
	if classes != nil {
		if l >= 0 && l < len(classes) {
			return "class " + classes[l]
		}
		return fmt.Sprintf("class #%d", l)
	}
	if l > 0 {
		return "class +1"
	}
	return "class −1"
}

// save writes p to path (the extension picks the format; PNG expected).
func save(p *gplot.Plot, path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".png") {
		return fmt.Errorf("plot %s: the file name must end in .png", path)
	}
	if err := p.Save(width, height, path); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("plot: %w", err)
		}
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// grid adapts the surface to plotter.GridXYZ.
type grid struct {
	x, y []float64
	z    [][]float64
}

func (g *grid) Dims() (c, r int)   { return len(g.x), len(g.y) }
func (g *grid) Z(c, r int) float64 { return g.z[r][c] }
func (g *grid) X(c int) float64    { return g.x[c] }
func (g *grid) Y(r int) float64    { return g.y[r] }

// diverging is a blue–white–red palette of n colours for signed outputs.
type diverging struct{ n int }

func (d diverging) Colors() []color.Color {
	cols := make([]color.Color, d.n)
	lo := [3]float64{0x43, 0x93, 0xc3} // light-ish blue
	hi := [3]float64{0xd6, 0x60, 0x4d} // light-ish red
	for i := range cols {
		t := float64(i)/float64(d.n-1)*2 - 1 // −1 … 1
		end := lo
		if t > 0 {
			end = hi
		}
		a := math.Abs(t)
		mix := func(k int) uint8 { return uint8(math.Round(255*(1-a) + end[k]*a)) }
		cols[i] = color.RGBA{R: mix(0), G: mix(1), B: mix(2), A: 0xff}
	}
	return cols
}

// categorical is a palette of n distinct colours (lightened for areas).
type categorical struct {
	n     int
	light bool
}

func (c categorical) color(i int, light bool) color.Color {
	base := seriesColors[((i%len(seriesColors))+len(seriesColors))%len(seriesColors)]
	if !light {
		return base
	}
	l := func(v uint8) uint8 { return uint8((int(v) + 2*255) / 3) }
	return color.RGBA{R: l(base.R), G: l(base.G), B: l(base.B), A: 0xff}
}

func (c categorical) Colors() []color.Color {
	cols := make([]color.Color, c.n)
	for i := range cols {
		cols[i] = c.color(i, c.light)
	}
	return cols
}

// flat is a one-colour palette.
type flat struct{ c color.Color }

func (f flat) Colors() []color.Color { return []color.Color{f.c} }
