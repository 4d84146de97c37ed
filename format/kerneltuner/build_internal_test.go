package kerneltuner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format/internal/jsonio"
)

// build lets each entry's fields go once it has made the entry's evaluation: a large
// cache's entries' fields (about 1.6 KB an entry as the decoder-based reader decodes them)
// and its evaluations were otherwise held all at once. (The fast reader holds one entry's
// fields at a time: TestReadHoldsTheFileAndTheEvaluationsNotEveryEntrysFields.)
func TestBuildLetsEachEntrysFieldsGo(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "kernel_tuner", "vector_add_A4000.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := jsonio.Load(f, "vector_add_A4000.json")
	if err != nil {
		t.Fatal(err)
	}
	var h header
	entries, _, err := parse(in, &h)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := build(in, &h, entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Evaluations) != len(entries) || len(entries) == 0 {
		t.Fatalf("%d evaluations of %d entries", len(rec.Evaluations), len(entries))
	}
	for k, e := range entries {
		if e.fields != nil {
			t.Errorf("entry %d (%q) keeps its %d fields after build", k, e.key, len(e.fields))
			break
		}
	}
}
