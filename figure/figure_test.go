package figure

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func TestSaveWritesSVGAndPNG(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a line"
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	dir := filepath.Join(t.TempDir(), "new", "dir")
	files, err := Save(p, 3*vg.Inch, 2*vg.Inch, dir, "f")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "f.svg" || filepath.Base(files[1]) != "f.png" {
		t.Fatalf("files %v", files)
	}
	svg, _ := os.ReadFile(files[0])
	if !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "a line") {
		t.Error("not an SVG with the title")
	}
	f, err := os.Open(files[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width < 200 || cfg.Height < 100 {
		t.Errorf("PNG %+v, %v", cfg, err)
	}
}

func TestSaveLegendRightWidensTheFigureForTheLegend(t *testing.T) {
	p := plot.New()
	p.Title.Text = "curves"
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	p.Legend.Add("a strategy with a long name", l)
	dir := t.TempDir()
	plain, err := Save(p, 3*vg.Inch, 2*vg.Inch, dir, "plain")
	if err != nil {
		t.Fatal(err)
	}
	files, err := SaveLegendRight(p, 3*vg.Inch, 2*vg.Inch, dir, "legend")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "legend.svg" || filepath.Base(files[1]) != "legend.png" {
		t.Fatalf("files %v", files)
	}
	svg, _ := os.ReadFile(files[0])
	if !strings.Contains(string(svg), "a strategy with a long name") || !strings.Contains(string(svg), "curves") {
		t.Error("the SVG lacks the legend or the title")
	}
	width := func(path string) int {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Width
	}
	// the legend's text alone is about two inches wide at 12 points
	if w, w0 := width(files[1]), width(plain[1]); w < w0+w0/2 {
		t.Errorf("PNG %d pixels wide, %d without the legend beside it", w, w0)
	}
	if p.Legend.Top || p.Legend.Left {
		t.Error("the plot's legend was changed")
	}
}

// A heat map's tick labels are its strategies' names, some long: the canvas grows with
// them and the data keeps the size asked for.
func TestSizeForKeepsTheDataAreaWhateverTheLabels(t *testing.T) {
	heat := func(label string) *plot.Plot {
		p := plot.New()
		p.Title.Text = "all spaces"
		p.Y.Label.Text = "wins over this strategy"
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: -0.5}, {X: 3.5, Y: 3.5}})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		ticks := []plot.Tick{{Value: 0, Label: label}, {Value: 3, Label: "random"}}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(ticks), plot.ConstantTicks(ticks)
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		return p
	}
	data := 4 * 0.5 * vg.Inch
	var prevW, prevH vg.Length
	for _, label := range []string{"gls", "annealing:neighbourhood=adjacent", "annealing_with_adjacent_neighbourhood_and_a_hot_start_temperature"} {
		p := heat(label)
		w, h := SizeFor(p, data, data)
		dc := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w - 2*margin, Y: h - margin}}})
		if dw, dh := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y; dw < data-0.1 || dh < data-0.1 || dw > data+1 || dh > data+1 {
			t.Errorf("%q: data area %v by %v, want %v square", label, dw, dh, data)
		}
		if dc.Min.X < 0 || dc.Min.Y < 0 || dc.Max.X > w || dc.Max.Y > h {
			t.Errorf("%q: data area %v outside the canvas %v by %v", label, dc.Rectangle, w, h)
		}
		if w <= prevW || h <= prevH {
			t.Errorf("%q: canvas %v by %v, not larger than %v by %v for a shorter label", label, w, h, prevW, prevH)
		}
		prevW, prevH = w, h
	}
}

func TestSaveColorBarWidensTheFigureForTheBar(t *testing.T) {
	p := plot.New()
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	cm := moreland.Kindlmann()
	cm.SetMin(0)
	cm.SetMax(7)
	files, err := SaveColorBar(p, cm, "wins", true, 3*vg.Inch, 2*vg.Inch, t.TempDir(), "bar")
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	svg, _ := os.ReadFile(files[0])
	for _, want := range []string{">wins<", ">0<", ">6<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
}

// The colour bar's strip runs from the bottom of the heat map's cells to their top: its
// tick labels, which overhang the strip's ends, no longer push it a few points inside.
func TestColorBarSpansTheDataExactly(t *testing.T) {
	p := plot.New()
	p.Title.Text = "all spaces, budgets <= 200"
	p.X.Label.Text = "winning strategy"
	p.Y.Label.Text = "wins over this strategy"
	l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: -0.5}, {X: 3.5, Y: 3.5}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	for _, top := range []float64{1, 7, 60} {
		cm := moreland.Kindlmann()
		cm.SetMin(0)
		cm.SetMax(top)
		bar := colorBar(cm, "wins", true)
		w, h := 4*vg.Inch, 3*vg.Inch
		dc := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w + colorBarWidth, Y: h}}}
		pc, bc := colorBarLayout(p, bar, dc, w)
		data, strip := p.DataCanvas(pc), bar.DataCanvas(bc)
		if d := math.Max(math.Abs(float64(strip.Min.Y-data.Min.Y)), math.Abs(float64(strip.Max.Y-data.Max.Y))); d > 0.05 {
			t.Errorf("scale to %v: strip %v to %v, data %v to %v", top, strip.Min.Y, strip.Max.Y, data.Min.Y, data.Max.Y)
		}
		if strip.Min.X < data.Max.X || strip.Max.X > w+colorBarWidth || strip.Max.X-strip.Min.X < 5 {
			t.Errorf("scale to %v: strip %v to %v across, beside data ending at %v", top, strip.Min.X, strip.Max.X, data.Max.X)
		}
	}
}

// Where a viewer lacks Liberation Serif, the SVG's text falls back to a serif font, not to
// the browser's default.
func TestSVGTextNamesFallbackFonts(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a title"
	p.X.Label.Text = "budget"
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	p.Legend.Add("default configuration", l)
	dir := t.TempDir()
	for _, save := range []func() ([]string, error){
		func() ([]string, error) { return Save(p, 3*vg.Inch, 2*vg.Inch, dir, "plain") },
		func() ([]string, error) { return SaveLegendRight(p, 3*vg.Inch, 2*vg.Inch, dir, "legend") },
	} {
		files, err := save()
		if err != nil {
			t.Fatal(err)
		}
		svg, _ := os.ReadFile(files[0])
		if n := strings.Count(string(svg), "font-family:"); n == 0 || strings.Count(string(svg), "font-family:'Liberation Serif', 'Times New Roman', Times, serif;") != n {
			t.Errorf("%s: font families without the fallbacks", files[0])
		}
	}
	if got := string(withFallbackFonts([]byte(`style="font-family:Liberation Sans;font-size:10px"`))); got != `style="font-family:'Liberation Sans', Arial, Helvetica, sans-serif;font-size:10px"` {
		t.Errorf("sans: %s", got)
	}
}

// TestDirCreatesTheFolderAndRefusesAFile: Dir creates the folder the figures go to and
// leaves nothing in it, and refuses a path that is a file, where Save would fail only
// after the work before the figures.
func TestDirCreatesTheFolderAndRefusesAFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	if err := Dir(dir); err != nil {
		t.Fatal(err)
	}
	if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
		t.Errorf("Dir left %v in the folder (%v)", left, err)
	}
	file := filepath.Join(t.TempDir(), "file.svg")
	if err := os.WriteFile(file, []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Dir(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Dir of a file: %v, want not a directory", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "<svg/>" {
		t.Errorf("Dir changed the file to %q", b)
	}
}
