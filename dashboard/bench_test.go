package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
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
