package report

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ktune/ktune/internal/browsertest"
)

// probe is a page that shows the report in a frame of a given width (a headless
// browser's window is at least 500 pixels wide) and, once it has loaded, writes what it
// measured of the laid-out report as JSON into the element #measured, which --dump-dom
// then prints.
const probe = `<!DOCTYPE html>
<html><body style="margin:0">
<iframe id="f" style="border:0; width:%dpx; height:900px" srcdoc="%s"></iframe>
<script>
window.addEventListener("load", () => {
  const d = document.getElementById("f").contentDocument;
  const kv = d.querySelector("table.kv").closest(".tw");
  const out = document.createElement("pre");
  out.id = "measured";
  out.textContent = JSON.stringify({width: d.documentElement.clientWidth, page: d.documentElement.scrollWidth,
    kvBox: kv.clientWidth, kvTable: kv.scrollWidth,
    figureTops: [...d.querySelectorAll("figure")].map(f => Math.round(f.getBoundingClientRect().top))});
  document.body.appendChild(out);
});
</script>
</body></html>`

type measured struct {
	Width      int   `json:"width"`
	Page       int   `json:"page"`
	KVBox      int   `json:"kvBox"`
	KVTable    int   `json:"kvTable"`
	FigureTops []int `json:"figureTops"`
}

// measure opens the page in the browser in a frame width pixels wide and returns what
// the probe found.
func measure(t *testing.T, chrome, page string, width int) measured {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(filepath.Dir(page), fmt.Sprintf("probe-%d.html", width))
	if err := os.WriteFile(file, []byte(fmt.Sprintf(probe, width, html.EscapeString(string(data)))), 0o644); err != nil {
		t.Fatal(err)
	}
	var r measured
	browsertest.Measure(t, chrome, "file://"+file, browsertest.Window{Width: max(width, 500), Height: 1000, VirtualTime: 3 * time.Second, Timeout: time.Minute}, &r)
	if r.Width > width {
		t.Fatalf("the frame of %d pixels is %d wide", width, r.Width)
	}
	return r
}

// A page read on a narrow screen (400 pixels) does not scroll sideways: a title, subtitle
// and heading with a long path or space name wrap, and a list of names and values (the
// run's settings, with paths and long names) fits the screen where it scrolled in its
// box; on a wide one, two figures whose captions are longer than their images stand side
// by side, where each caption widened its figure and pushed the second below the first.
func TestPageFitsANarrowScreenAndFiguresPairUp(t *testing.T) {
	chrome := browsertest.Chromium(t)
	dir := t.TempDir()
	svg := filepath.Join(dir, "f.svg")
	if err := os.WriteFile(svg, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="480" height="300"><rect width="480" height="300" fill="#ccc"/></svg>`), 0o644); err != nil {
		t.Fatal(err)
	}
	caption := "Wins of each strategy (column) over each other (row): kerneltuner_convolution, budgets <= 200, with more words after it"
	fig, err := FigureFile(svg, caption)
	if err != nil {
		t.Fatal(err)
	}
	path := "/home/someone/projects/ktune/testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz"
	p := &Page{
		Title:    "kerneltuner_gemm/RTX_3090_with_a_long_device_name: Xgemm on NVIDIA GeForce RTX 3090",
		Subtitle: "recorded space read from " + path + " (kerneltuner format)",
		Sections: []Section{{
			Title: "Space kerneltuner_convolution/RTX_2080_Ti_and_more",
			Text:  []string{"Warning: " + path + path},
			Tables: []Table{{Caption: "Run", KeyValue: true, Rows: [][]string{
				{"median of the configurations evaluated", "14.578 ms; the best is 2.58x better than it"},
				{"source", path},
				{"settings", "backend: c, inputs: (kernel source 2169059369878e5c; spec " + path + " 0f69cf86d438a572)"},
			}}},
			Figures: []Figure{fig, fig},
		}},
	}
	page := filepath.Join(dir, "page.html")
	if err := p.WriteFile(page); err != nil {
		t.Fatal(err)
	}

	narrow := measure(t, chrome, page, 400)
	if narrow.Page > narrow.Width {
		t.Errorf("at 400 pixels the page is %d wide, wider than the window (%d): it scrolls sideways", narrow.Page, narrow.Width)
	}
	if narrow.KVTable > narrow.KVBox {
		t.Errorf("at 400 pixels the list of names and values is %d wide in a box of %d: it scrolls sideways", narrow.KVTable, narrow.KVBox)
	}
	wide := measure(t, chrome, page, 1280)
	if len(wide.FigureTops) != 2 || wide.FigureTops[0] != wide.FigureTops[1] {
		t.Errorf("at 1280 pixels two 480-pixel figures stand at the tops %v, not side by side", wide.FigureTops)
	}
}
