package sensitivity_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/sensitivity"
)

func TestPlotsAreWrittenAndLabelled(t *testing.T) {
	params, cfgs, y, _ := recordedTable(t, "../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")
	dir := t.TempDir()
	if d := os.Getenv("SENSITIVITY_PLOTS"); d != "" {
		dir = d // to look at the charts
	}
	cs := sensitivity.Significance(params, cfgs, y)
	files, err := sensitivity.PlotSignificance(cs, "time", false, dir, "significance")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sensitivity.SobolTable(params, cfgs, y, sensitivity.Options{SecondOrder: true, Seed: 1, Bootstrap: 50})
	if err != nil {
		t.Fatal(err)
	}
	more, err := sensitivity.PlotSensitivity(s, dir, "sobol")
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
			for _, label := range []string{"lower is better", "blue", "block_size_x", "tile_size"} {
				if !strings.Contains(svg, label) {
					t.Errorf("%s lacks %q", f, label)
				}
			}
		case "sobol.svg":
			if !strings.Contains(svg, "first order") || !strings.Contains(svg, "use_method") {
				t.Errorf("%s lacks its labels", f)
			}
		case "sobol-second.svg":
			if !strings.Contains(svg, "×") {
				t.Errorf("%s lacks pair labels", f)
			}
		}
	}
	if _, err := sensitivity.PlotSignificance(nil, "time", false, dir, "x"); err == nil {
		t.Error("PlotSignificance of nothing succeeded")
	}
}
