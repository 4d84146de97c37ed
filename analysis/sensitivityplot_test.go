package analysis

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/sensitivity"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
)

// recordedTable is the table of a recorded space's successful configurations and their
// objective.
func recordedTable(tb testing.TB, path string) ([]space.Param, []space.Config, []float64) {
	tb.Helper()
	rec, err := format.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		tb.Fatal(err)
	}
	sp := sim.Space()
	var cfgs []space.Config
	var y []float64
	for i := range sp.Len() {
		c := sp.At(i, nil)
		if v, ok := sim.Objective(c); ok {
			cfgs = append(cfgs, c)
			y = append(y, v)
		}
	}
	return sp.Params(), cfgs, y
}

func TestPlotsAreWrittenAndLabelled(t *testing.T) {
	params, cfgs, y := recordedTable(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	dir := t.TempDir()
	if d := os.Getenv("SENSITIVITY_PLOTS"); d != "" {
		dir = d // to look at the charts
	}
	cs := sensitivity.Significance(params, cfgs, y)
	files, err := plotSignificance(cs, "time", false, "pnpoly", dir, "significance")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sensitivity.SobolTable(params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1, Bootstrap: 50})
	if err != nil {
		t.Fatal(err)
	}
	more, err := plotSensitivity(s, func(p string) bool { return p == "use_method" }, "pnpoly", dir, "sobol")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	var want []string
	for _, n := range []string{"significance", "sobol", "sobol-second"} {
		want = append(want, filepath.Join(dir, n+".svg"), filepath.Join(dir, n+".png"))
	}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", files, want)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".png") {
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() < 400 {
				t.Errorf("%s: %v, %v", f, err, img.Bounds())
			}
			continue
		}
		svg := string(b)
		switch filepath.Base(f) {
		case "significance.svg":
			for _, label := range []string{">Correlation with time (lower is better)<", "blue", "block_size_x", "tile_size"} {
				if !strings.Contains(svg, label) {
					t.Errorf("%s lacks %q", f, label)
				}
			}
		case "sobol.svg":
			if !strings.Contains(svg, ">Sobol indices (empirical, ") || !strings.Contains(svg, "first order") || !strings.Contains(svg, "use_method (constant)") ||
				!strings.Contains(svg, ">0<") || !strings.Contains(svg, ">1<") {
				t.Errorf("%s lacks its labels", f)
			}
		case "sobol-second.svg":
			if !strings.Contains(svg, ">Strongest parameter interactions (second-order Sobol indices, by absolute value)<") || !strings.Contains(svg, "×") {
				t.Errorf("%s lacks pair labels", f)
			}
		}
	}
	if _, err := plotSignificance(nil, "time", false, "", dir, "x"); err == nil {
		t.Error("PlotSignificance of nothing succeeded")
	}
}
