package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pursuit-ml/pursuit/internal/safefile"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named curve.
type Series struct {
	Name string
	X, Y []float64 // equal lengths; NaN values of Y are left out
}

// Size of the pictures: the plot itself, and a strip on its right for the
// legend (so the legend never covers data).
const (
	width     = 19 * vg.Centimeter
	height    = 12 * vg.Centimeter
	legendGap = 8 // points between the plot, the legend and the edge
	topPad    = 8 // points above the title, so that no glyph touches the edge
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
// .png file, with a dashed vertical line at x = mark (the step training
// kept, say) unless mark is NaN, named markLabel in the legend ("kept (x)"
// when empty). Series with no finite point are left out; it is an error
// when none is left.
func LearningCurve(path, title, xLabel, yLabel string, series []Series, mark float64, markLabel string) error {
	p, err := curvePlot(title, xLabel, yLabel, series, mark, markLabel)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return save(p, path)
}

// curvePlot builds LearningCurve's plot.
func curvePlot(title, xLabel, yLabel string, series []Series, mark float64, markLabel string) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	drawn, integral := 0, true
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		var xy plotter.XYs
		for j := range s.X {
			if isFinite(s.X[j]) && isFinite(s.Y[j]) {
				xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
				integral = integral && s.X[j] == math.Trunc(s.X[j])
				ymin, ymax = math.Min(ymin, s.Y[j]), math.Max(ymax, s.Y[j])
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		l.Color = seriesColors[i%len(seriesColors)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
		drawn++
	}
	if drawn == 0 {
		return nil, errors.New("no finite points to draw")
	}
	// Counts (steps, basis functions) get no 2.5 ticks.
	p.X.Tick.Marker = niceTicks{integer: integral}
	p.Y.Tick.Marker = niceTicks{}
	p.Y.Min, p.Y.Max = curveYRange(ymin, ymax)
	if isFinite(mark) {
		l, err := plotter.NewLine(plotter.XYs{{X: mark, Y: p.Y.Min}, {X: mark, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 0x60}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		if markLabel == "" {
			markLabel = fmt.Sprintf("kept (%g)", mark)
		}
		p.Legend.Add(markLabel, l)
	}
	return p, nil
}

// curveYRange returns the y-axis range of a learning curve whose finite
// values lie in [ymin, ymax]: from 0 (errors are not negative; below the
// smallest value when one is) to above the largest value, with a little
// headroom so that no point lies on the edge.
func curveYRange(ymin, ymax float64) (lo, hi float64) {
	lo, hi = math.Min(ymin, 0), ymax
	span := hi - lo
	if span == 0 {
		span = 1
	}
	const headroom = 0.05
	if ymin < 0 {
		lo -= headroom * span
	}
	return lo, hi + headroom*span
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

// DecisionSurface writes the surface s to path, a .png file, with a colour
// scale in the legend strip: a colour bar of the decision value for a
// binary surface, a swatch per class region for a multi-class one.
func DecisionSurface(path string, s *Surface) error {
	p, bar, err := surfacePlot(s)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return saveWithBar(p, bar, path)
}

// surfacePlot builds DecisionSurface's plot and, for a binary surface, the
// colour bar that goes below its legend (nil for a multi-class one, whose
// legend names the class regions).
func surfacePlot(s *Surface) (p, bar *gplot.Plot, err error) {
	if len(s.X) < 2 || len(s.Y) < 2 {
		return nil, nil, fmt.Errorf("the grid needs at least 2×2 points, got %d×%d", len(s.X), len(s.Y))
	}
	if len(s.Values) != len(s.Y) {
		return nil, nil, fmt.Errorf("%d value rows for %d y coordinates", len(s.Values), len(s.Y))
	}
	for r, row := range s.Values {
		if len(row) != len(s.X) {
			return nil, nil, fmt.Errorf("value row %d has %d values for %d x coordinates", r, len(row), len(s.X))
		}
	}
	if len(s.Labels) != len(s.Points) {
		return nil, nil, fmt.Errorf("%d labels for %d points", len(s.Labels), len(s.Points))
	}
	g := &grid{x: s.X, y: s.Y, z: s.Values}
	p = gplot.New()
	p.Title.Text = s.Title
	p.X.Label.Text = "x₁"
	p.Y.Label.Text = "x₂"
	var regions []string
	if s.Classes != nil {
		k := max(len(s.Classes), 1)
		h := plotter.NewHeatMap(g, categorical{n: k, light: true})
		h.Min, h.Max = 0, float64(k-1) // value i ↦ colour i
		h.Rasterized = true
		p.Add(h)
		regions = s.Classes
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
		cm := &divergingMap{min: -m, max: m}
		h := plotter.NewHeatMap(g, cm.Palette(64))
		h.Min, h.Max = -m, m
		h.Underflow, h.Overflow = color.RGBA{B: 0xff, A: 0xff}, color.RGBA{R: 0xff, A: 0xff}
		h.Rasterized = true
		p.Add(h)
		c := plotter.NewContour(g, []float64{0}, flat{color.Black})
		c.LineStyles = []draw.LineStyle{{Color: color.Black, Width: vg.Points(1.5)}}
		p.Add(c)
		bar = colourBar(cm)
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
			return nil, nil, err
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
			return nil, nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("basis (%d)", len(s.Basis)), sc)
	}
	for i, c := range regions {
		p.Legend.Add("region: class "+c, swatch{categorical{}.color(i, true)})
	}
	p.X.Min, p.X.Max = s.X[0], s.X[len(s.X)-1]
	p.Y.Min, p.Y.Max = s.Y[0], s.Y[len(s.Y)-1]
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	return p, bar, nil
}

// colourBar is the scale of a binary surface: the colours of the decision
// values from −m to m, with the zero of the boundary marked.
func colourBar(cm *divergingMap) *gplot.Plot {
	bar := gplot.New()
	bar.HideX()
	bar.Y.Label.Text = "decision value (sign: class)"
	bar.Y.Tick.Marker = niceTicks{noStart: true}
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 64})
	zero, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	zero.Color, zero.Width = color.Black, vg.Points(1.5)
	bar.Add(zero)
	bar.Y.Min, bar.Y.Max = cm.min, cm.max
	return bar
}

// swatch is a legend thumbnail filled with one colour: a class region.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(s.c, []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}})
	c.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.5)},
		[]vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}, r.Min})
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

// save writes p to path as a PNG, with p's legend in a strip to the right
// of the plot, top-aligned with the plotting area.
func save(p *gplot.Plot, path string) error { return saveWithBar(p, nil, path) }

// saveWithBar is save with, when bar is not nil, a colour bar (a plot of
// its own) drawn in the strip below the legend, its bar as tall as the
// space left there down to the bottom of p's plotting area.
func saveWithBar(p, bar *gplot.Plot, path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".png") {
		return fmt.Errorf("plot %s: the file name must end in .png", path)
	}
	c, err := draw.NewFormattedCanvas(width, height, "png")
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	dc := draw.New(c)
	leg := p.Legend
	p.Legend = gplot.NewLegend() // drawn below, outside the plot
	var strip vg.Length
	legSize := leg.Rectangle(dc).Size()
	if w := max(legSize.X, barWidth(bar)); w > 0 {
		strip = w + 2*legendGap
	}
	plotC := draw.Crop(dc, 0, -strip, 0, -topPad)
	p.Draw(plotC)
	if strip > 0 {
		top := vg.Length(topPad)
		if p.Title.Text != "" {
			top += p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		leg.Left, leg.Top, leg.XOffs, leg.YOffs = true, true, 0, 0
		legC := draw.Crop(dc, width-strip+legendGap, -legendGap, 0, -top)
		leg.Draw(legC)
		if bar != nil {
			data := p.DataCanvas(plotC)
			barC := legC
			barC.Min.Y = data.Min.Y
			barC.Max.Y = legC.Max.Y - legSize.Y - 2*legendGap
			barC.Max.X = barC.Min.X + barWidth(bar)
			bar.Draw(barC)
		}
	}
	err = safefile.WriteFile(path, 0o666, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// barWidth is the width given to a colour bar: its axis (ticks, labels and
// the axis label) and the bar itself.
func barWidth(bar *gplot.Plot) vg.Length {
	if bar == nil {
		return 0
	}
	var labels vg.Length
	for _, t := range bar.Y.Tick.Marker.Ticks(bar.Y.Min, bar.Y.Max) {
		labels = max(labels, bar.Y.Tick.Label.Width(t.Label))
	}
	const barThickness = 14
	return bar.Y.Label.TextStyle.Height(bar.Y.Label.Text) + bar.Y.Label.Padding + labels +
		bar.Y.Tick.Label.Height("0")/2 + bar.Y.Tick.Length + bar.Y.Width + barThickness + bar.X.Padding
}

// niceTicks marks an axis with labelled ticks at multiples of 1, 2 or 5 ×
// 10^k (at most 7 of them), one more labelled tick at the start of the
// range when the first multiple is half a step or more from it (so the
// reader sees where the axis begins), and an unlabelled tick midway between
// the labelled ones. For an axis of counts (integer) the step is at least 1
// and every tick is at an integer: there is no midway tick when it would
// fall between two integers.
// noStart leaves out the tick at the start (a colour bar: symmetric).
type niceTicks struct{ integer, noStart bool }

func (t niceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !isFinite(lo) || !isFinite(hi) || hi <= lo {
		return gplot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep(hi-lo, 6, t.integer)
	prec := 0 // decimals of the labels
	if !t.integer {
		prec = max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	}
	eps := step * 1e-9
	first := math.Ceil(lo/step-1e-9) * step
	var ticks []gplot.Tick
	for i := 0; first+float64(i)*step <= hi+eps; i++ {
		v := first + float64(i)*step
		ticks = append(ticks, gplot.Tick{Value: v, Label: formatTick(v, prec)})
	}
	if len(ticks) == 0 { // a range within one step: no round number to label
		return gplot.DefaultTicks{}.Ticks(lo, hi)
	}
	// The start, when no labelled tick is near it.
	start, sprec := lo, prec+1
	if t.integer {
		start, sprec = math.Ceil(lo), 0
	} else {
		u := math.Pow(10, -float64(sprec))
		start = math.Ceil(lo/u-1e-9) * u // rounded, inside the range
	}
	if !t.noStart && first-start >= step/2 {
		ticks = append(ticks, gplot.Tick{Value: start, Label: formatTick(start, sprec)})
	}
	for i := 0; first+(float64(i)-0.5)*step <= hi+eps; i++ {
		if v := first + (float64(i)-0.5)*step; v >= lo-eps && (!t.integer || v == math.Trunc(v)) {
			ticks = append(ticks, gplot.Tick{Value: v})
		}
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
	return ticks
}

// niceStep returns the smallest of 1, 2 or 5 × 10^k (at least 1 for
// counts) that divides span into at most n steps.
func niceStep(span float64, n int, integer bool) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(span/float64(n))))
	if integer && mag < 1 {
		mag = 1
	}
	for ; ; mag *= 10 {
		for _, b := range []float64{1, 2, 5} {
			if span/(b*mag) <= float64(n)+1e-9 {
				return b * mag
			}
		}
	}
}

func formatTick(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0"
	}
	return s
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

// divergingMap is the blue–white–red colour map of signed outputs over
// [min, max], min = −max: white at 0.
type divergingMap struct{ min, max float64 }

func (d *divergingMap) At(v float64) (color.Color, error) {
	if v < d.min || v > d.max || d.max <= d.min {
		return nil, palette.ErrOverflow
	}
	return divergingColor(2*(v-d.min)/(d.max-d.min) - 1), nil
}

func (d *divergingMap) Max() float64                  { return d.max }
func (d *divergingMap) SetMax(v float64)              { d.max = v }
func (d *divergingMap) Min() float64                  { return d.min }
func (d *divergingMap) SetMin(v float64)              { d.min = v }
func (d *divergingMap) Alpha() float64                { return 1 }
func (d *divergingMap) SetAlpha(float64)              {}
func (d *divergingMap) Palette(n int) palette.Palette { return diverging{n: n} }

// divergingColor is the colour of t ∈ [−1, 1]: blue, white at 0, red.
func divergingColor(t float64) color.Color {
	lo := [3]float64{0x43, 0x93, 0xc3} // light-ish blue
	hi := [3]float64{0xd6, 0x60, 0x4d} // light-ish red
	end := lo
	if t > 0 {
		end = hi
	}
	a := math.Min(math.Abs(t), 1)
	mix := func(k int) uint8 { return uint8(math.Round(255*(1-a) + end[k]*a)) }
	return color.RGBA{R: mix(0), G: mix(1), B: mix(2), A: 0xff}
}

// diverging is a blue–white–red palette of n colours for signed outputs.
type diverging struct{ n int }

func (d diverging) Colors() []color.Color {
	cols := make([]color.Color, d.n)
	for i := range cols {
		cols[i] = divergingColor(float64(i)/float64(d.n-1)*2 - 1) // −1 … 1
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
