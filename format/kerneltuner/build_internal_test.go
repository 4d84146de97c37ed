package kerneltuner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ktune/ktune/format/internal/jsonio"
)

// build lets each entry's fields go once it has made the entry's evaluation, with either
// reader: a large cache's entries' fields (about 1.6 KB an entry) and its evaluations were
// otherwise held all at once, a third of the peak memory of reading it.
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
	for _, fast := range []bool{true, false} {
		var h header
		var entries []entry
		if fast {
			var ok bool
			if entries, ok = parseFast(in, &h); !ok {
				t.Fatal("the fast reader does not read the file")
			}
		} else if entries, _, err = parse(in, &h); err != nil {
			t.Fatal(err)
		}
		rec, err := build(in, &h, entries)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Evaluations) != len(entries) || len(entries) == 0 {
			t.Fatalf("fast %v: %d evaluations of %d entries", fast, len(rec.Evaluations), len(entries))
		}
		for k, e := range entries {
			if e.fields != nil {
				t.Errorf("fast %v: entry %d (%q) keeps its %d fields after build", fast, k, e.key, len(e.fields))
				break
			}
		}
	}
}
