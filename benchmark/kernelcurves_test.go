package benchmark

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // the T4 copy of the A100 run
	"github.com/ktune/ktune/simulator"
)

// Fig. 2 of an interrupted benchmark: a kernel's point pools every one of its spaces or is
// not drawn, as in the kernel tables and JSON, and the title counts all the kernel's
// spaces, saying when points were left out. Before, a point pooled whatever spaces had
// finished: at one budget three devices, at the next one, titled "over its 2 spaces".
func TestKernelCurvesDrawOnlyPointsOverEveryOneOfTheKernelsSpaces(t *testing.T) {
	var spaces []Space
	var names []string
	for _, device := range []string{"A100", "A100_T4", "MI250X"} {
		path := "../testdata/benchmark_hub/convolution_milo/" + device + ".json.gz"
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := format.Read(f, path)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
		if err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, Space{Name: "convolution_milo/" + device, Sim: sim})
		names = append(names, "convolution_milo/"+device)
	}
	strategies, err := ParseStrategies("random,firstmls")
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Run(context.Background(), Config{Strategies: strategies, Spaces: spaces, Budgets: []int{10, 20}, Repeats: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// as a benchmark interrupted before MI250X's budget 20 and A100_T4's firstmls
	var partial, a100 []Cell
	for _, c := range cells {
		if (c.Space == names[2] && c.Budget == 20) || (c.Space == names[1] && c.Strategy == "firstmls") {
			continue
		}
		partial = append(partial, c)
		if c.Space == names[0] {
			a100 = append(a100, c)
		}
	}
	got := CompleteKernelCells(partial, names)
	if len(got) != 1 || got[0].Strategy != "random" || got[0].Budget != 10 || len(got[0].Fractions) != 9 {
		t.Fatalf("complete kernel cells %+v; want random at budget 10 over 3 spaces x 3 runs", got)
	}
	if all := CompleteKernelCells(cells, names); len(all) != 4 {
		t.Fatalf("%d complete kernel cells of the whole benchmark, want 4", len(all))
	}

	svg := func(cells []Cell) string {
		t.Helper()
		dir := t.TempDir()
		files, err := PlotKernelCurves(cells, names, dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			return ""
		}
		data, err := os.ReadFile(filepath.Join(dir, "curves-kernel-convolution_milo.svg"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	whole, part := svg(cells), svg(partial)
	if !strings.Contains(whole, "convolution_milo (over its 3 spaces)") || !strings.Contains(whole, ">20<") {
		t.Errorf("the whole benchmark's kernel curves lack their title or budget 20")
	}
	if !strings.Contains(part, "convolution_milo (over its 3 spaces; points not run on all of them left out)") {
		t.Errorf("the interrupted benchmark's kernel curves do not say points were left out")
	}
	if strings.Contains(part, ">20<") || strings.Contains(part, "over its 2 spaces") {
		t.Errorf("the interrupted benchmark's kernel curves draw budget 20, which not every space finished, or count 2 spaces")
	}
	if s := svg(a100); s != "" {
		t.Errorf("a kernel of which one space finished has kernel curves")
	}
}
