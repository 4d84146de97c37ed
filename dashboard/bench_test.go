package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/internal/browsertest"
)

// BenchmarkPoll is one poll of the live view of a run of 17,956 stored evaluations (an
// imported GEMM recording), over HTTP as the page makes it: with ten evaluations it has
// not read yet, and with none.
func BenchmarkPoll(b *testing.B) {
	st, db := imported(b, gemm)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	total := len(read(b, gemm).Evaluations)
	for _, c := range []struct {
		name string
		new  int
	}{{"ten_new", 10}, {"none_new", 0}} {
		b.Run(c.name, func(b *testing.B) {
			url := fmt.Sprintf("%s/api/runs/1/evaluations?after=%d", srv.URL, total-c.new)
			for b.Loop() {
				resp, err := http.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				var got Evaluations
				err = json.NewDecoder(resp.Body).Decode(&got)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d: %v", resp.StatusCode, err)
				}
				if len(got.Evaluations) != c.new || got.Run.Evaluations != total {
					b.Fatalf("%d evaluations of a run of %d, want %d of %d", len(got.Evaluations), got.Run.Evaluations, c.new, total)
				}
			}
		})
	}
}

// BenchmarkLargeRunPage times the page of a run of 17,956 evaluations (the imported GEMM
// recording) in Chromium, in real time: from the request for the page to the page drawn
// with its analysis (load_ms), one drawing of the scatter plot up to the next frame
// (scatter_ms), and a change of its y axis until the page has settled (y_axis_ms). The browser
// runs on virtual time, which stands still while a script runs, so the times are taken
// by the server, which the page tells when each step starts and ends.
func BenchmarkLargeRunPage(b *testing.B) {
	chrome := browsertest.Chromium(b)
	st, db := imported(b, gemm)
	total := len(read(b, gemm).Evaluations)
	h := NewStore(st, db)
	var (
		mu     sync.Mutex
		marks  = map[string]time.Time{}
		pageAt time.Time
	)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/runs/1" {
			mu.Lock()
			pageAt = time.Now()
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
	mark := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		marks[r.URL.Query().Get("m")] = time.Now()
		mu.Unlock()
	}
	var load, scatter, yAxis time.Duration
	for b.Loop() {
		got := measure(b, chrome, page, "/runs/1", `
    const frame = () => new Promise(r => w.requestAnimationFrame(() => setTimeout(r, 0)));
    await fetch("/mark?m=settled");
    out.points = points();
    await fetch("/mark?m=draw");
    w.drawScatter();
    await frame();
    await fetch("/mark?m=drawn");
    set("#y", "p:MWG");
    await settled();
    await fetch("/mark?m=moved");
    out.moved = points();
`, map[string]http.HandlerFunc{"/mark": mark})
		if number(b, got, "points") != total || number(b, got, "moved") != total {
			b.Fatalf("the scatter has %v points, then %v; the run has %d", got["points"], got["moved"], total)
		}
		mu.Lock()
		load += marks["settled"].Sub(pageAt)
		scatter += marks["drawn"].Sub(marks["draw"])
		yAxis += marks["moved"].Sub(marks["drawn"])
		mu.Unlock()
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(load), "load_ms")
	b.ReportMetric(ms(scatter), "scatter_ms")
	b.ReportMetric(ms(yAxis), "y_axis_ms")
}
