package figure

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
