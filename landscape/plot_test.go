package landscape

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/space"
)

// checkFiles asserts that each file is non-empty and each PNG decodes.
func checkFiles(t *testing.T, files []string, want int) {
	t.Helper()
	if len(files) != want {
		t.Fatalf("%d files, want %d: %v", len(files), want, files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", f)
		}
		if filepath.Ext(f) == ".png" {
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %v", f, err)
			} else if img.Bounds().Dx() < 100 {
				t.Errorf("%s is %v", f, img.Bounds())
			}
		}
		if filepath.Ext(f) == ".svg" && !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s is not SVG", f)
		}
	}
}

// keep copies the PNGs of dir to $LANDSCAPE_PLOTS when it is set, for a look at them.
func keep(t *testing.T, dir string) {
	out := os.Getenv("LANDSCAPE_PLOTS")
	if out == "" {
		return
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	for _, f := range pngs {
		b, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(out, filepath.Base(f)), b, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
}

func analysed(t *testing.T, nb space.Neighbourhood) []Named {
	t.Helper()
	var items []Named
	for _, name := range []string{"pnpoly recorded", "convolution recorded", "convolution cartesian"} {
		l := recordedLandscape(t, name)
		a, err := Analyze(context.Background(), l, Options{Neighbourhood: nb})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, Named{Name: name, A: a, L: l})
	}
	return items
}

func TestPlotMinimaAndCentrality(t *testing.T) {
	dir := t.TempDir()
	items := analysed(t, space.Adjacent)
	files, err := PlotMinima(items, dir, "minima")
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, 2)
	if files[0] != filepath.Join(dir, "minima.svg") || files[1] != filepath.Join(dir, "minima.png") {
		t.Errorf("files %v", files)
	}
	// round ticks, five or more labelled (gonum's default ticker labelled two or three)
	svg, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if ticks := regexp.MustCompile(`>[01]\.[0-9]+<`).FindAll(svg, -1); len(ticks) < 5 {
		t.Errorf("%d labelled ticks on the fraction axis: %s", len(ticks), ticks)
	}
	// the names stay level, a line per part, so none overhangs the data
	for _, r := range regexp.MustCompile(`rotate\([^)]*\)`).FindAll(svg, -1) {
		if string(r) != "rotate(90)" { // the vertical axis's label
			t.Errorf("the space names are slanted: %s", r)
		}
	}
	files, err = PlotCentrality(items, dir, "centrality")
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, 2)
	if _, err := PlotMinima(nil, dir, "none"); err == nil {
		t.Error("no error for nothing to plot")
	}
	keep(t, dir)
}

// A space whose curve is an earlier one's (A100 and A100_T4 of convolution_milo hold the
// same measurements) lies exactly over it: its legend entry says so, and only its.
func TestCentralityNotesACurveThatCoincidesWithAnother(t *testing.T) {
	items := analysed(t, space.Adjacent)
	twin := items[0]
	twin.Name = "pnpoly again"
	items = append(items, twin)
	dir := t.TempDir()
	files, err := PlotCentrality(items, dir, "centrality")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), ">pnpoly again (same as pnpoly recorded)<") {
		t.Error("the twin's legend does not say it is the same as pnpoly")
	}
	if n := strings.Count(string(svg), "(same as"); n != 1 {
		t.Errorf("%d legend entries say 'same as', want 1", n)
	}
	keep(t, dir)
}

func TestPlotFlowGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("layout of 4,092 nodes")
	}
	dir := t.TempDir()
	l := recordedLandscape(t, "pnpoly recorded")
	for _, nb := range []space.Neighbourhood{space.Adjacent, space.Hamming} {
		a, err := Analyze(context.Background(), l, Options{Neighbourhood: nb})
		if err != nil {
			t.Fatal(err)
		}
		g, err := FlowGraph(context.Background(), l, nb)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		files, err := PlotFlowGraph(context.Background(), Named{Name: "pnpoly RTX 2080 Ti", A: a, L: l}, g, dir, "ffg-"+nb.String(), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: %d nodes, %d edges drawn in %v", nb, g.N(), g.Edges(), time.Since(start))
		checkFiles(t, files, 2)
		if _, err := PlotFlowGraph(context.Background(), Named{Name: "x", A: a, L: l}, g, dir, "small", 100); err == nil {
			t.Error("no error over maxNodes")
		}
	}
	keep(t, dir)
}

// TestPlotFlowGraphStopsWhenCancelled: the layout of a large flow graph takes a minute or
// more, and Ctrl-C must end it: with its context cancelled PlotFlowGraph returns the
// context's error and writes no file.
func TestPlotFlowGraphStopsWhenCancelled(t *testing.T) {
	l := recordedLandscape(t, "pnpoly recorded")
	a, err := Analyze(context.Background(), l, Options{Neighbourhood: space.Adjacent})
	if err != nil {
		t.Fatal(err)
	}
	g, err := FlowGraph(context.Background(), l, space.Adjacent)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	files, err := PlotFlowGraph(ctx, Named{Name: "pnpoly", A: a, L: l}, g, dir, "ffg", 0)
	if !errors.Is(err, context.Canceled) || files != nil {
		t.Errorf("PlotFlowGraph with a cancelled context: %v, %v; want context.Canceled", files, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("a cancelled plot wrote %d files", len(left))
	}
}

func TestLayoutIsDeterministicAndSpreadsNodes(t *testing.T) {
	l := recordedLandscape(t, "pnpoly recorded")
	g, err := FlowGraph(context.Background(), l, space.Adjacent)
	if err != nil {
		t.Fatal(err)
	}
	a, err := layout(context.Background(), g, 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := layout(context.Background(), g, 50, 3)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("node %d at %v then %v", i, a[i], b[i])
		}
	}
	// Repulsion keeps nodes apart: few share a spot.
	seen := map[[2]int64]int{}
	for _, p := range a {
		seen[[2]int64{int64(p.x * 1e4), int64(p.y * 1e4)}]++
	}
	if len(seen) < len(a)*9/10 {
		t.Errorf("%d distinct positions for %d nodes", len(seen), len(a))
	}
}

func TestQuantileInterpolatesLinearly(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	for q, want := range map[float64]float64{0: 1, 0.25: 1.75, 0.5: 2.5, 0.75: 3.25, 1: 4} {
		if got := quantile(s, q); got != want {
			t.Errorf("quantile %v = %v, want %v", q, got, want)
		}
	}
	b := newFullBox(0, []float64{4, 1, 3, 2, 10})
	if b.lo != 1 || b.q1 != 2 || b.med != 3 || b.q3 != 4 || b.hi != 10 {
		t.Errorf("box %+v: whiskers must reach the extremes", b)
	}
}

func TestFractionColorClampsBelowTheFloor(t *testing.T) {
	if fractionColor(0.1) != fractionColor(fractionFloor) || fractionColor(1) != fractionStops[len(fractionStops)-1] {
		t.Error("fractions below the floor must share its colour, 1 must be the last stop")
	}
	if fractionColor(0.9) == fractionColor(0.95) {
		t.Error("0.9 and 0.95 share a colour")
	}
}

// TestPlotsOfAnUndefinedFractionOfOptimum: a space whose fraction of optimum is undefined
// (optimum 0) is drawn in the flow graph with one colour for its successes, and left out of
// the minima figure, which names it.
func TestPlotsOfAnUndefinedFractionOfOptimum(t *testing.T) {
	dir := t.TempDir()
	zero := line(t, false, 0, 1, 2, 0.5, math.NaN())
	a, err := Analyze(context.Background(), zero, Options{Neighbourhood: space.Adjacent})
	if err != nil {
		t.Fatal(err)
	}
	g, err := FlowGraph(context.Background(), zero, space.Adjacent)
	if err != nil {
		t.Fatal(err)
	}
	files, err := PlotFlowGraph(context.Background(), Named{Name: "zero", A: a, L: zero}, g, dir, "ffg-zero", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, 2)
	svg, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("fraction of optimum undefined")) || bytes.Contains(svg, []byte("fraction of optimum 0.95")) {
		t.Error("the flow graph's legend does not say that the fraction of optimum is undefined")
	}
	// a local optimum's legend dot has the colour the optima are drawn in (no black dot is
	// drawn), and every dot a dark rim
	if !bytes.Contains(svg, []byte("local optimum (larger dot, in its colour)")) || bytes.Contains(svg, []byte("fill:#000000")) {
		t.Error("the legend's local optimum is not drawn as the optima are")
	}
	if !bytes.Contains(svg, []byte("stroke:#3C3C3C")) {
		t.Error("the dots have no rim")
	}
	items := append(analysed(t, space.Adjacent)[:1], Named{Name: "zero", A: a, L: zero})
	if files, err = PlotMinima(items, dir, "minima"); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, files, 2)
	if svg, err = os.ReadFile(files[0]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("fraction of optimum undefined): zero")) {
		t.Error("the minima figure does not name the space it leaves out")
	}
	keep(t, dir)
}
