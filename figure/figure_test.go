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
