package sqlite_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store/sqlite"
	"github.com/ktune/ktune/store/storetest"
)

// A damaged database, cut short or with pages overwritten, is refused naming the file,
// that it is damaged and what to do, when it is opened and when a read reaches the
// damage, instead of SQLite's bare "database disk image is malformed" (QA: a truncated
// ktune.db said only that, through tune, runs and export).
func TestADamagedDatabaseSaysWhichFileAndWhatToDo(t *testing.T) {
	tests := []struct {
		name   string
		damage func(data []byte) []byte
	}{
		{"cut short", func(data []byte) []byte { return data[:len(data)/2] }},
		{"last pages overwritten", func(data []byte) []byte {
			tail := len(data) / 4 / 4096 * 4096
			copy(data[len(data)-tail:], bytes.Repeat([]byte{0xa5}, tail))
			return data
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, path := openStore(t)
			run := storetest.NewRun(t, st, storetest.Recording())
			var es []result.Evaluation
			for k := range 400 {
				es = append(es, result.Evaluation{Config: []space.Value{i(int64(k)), f(1), b(true), s("row")}, Status: result.CompileError,
					Message: strings.Repeat("a compiler's long complaint ", 8), Time: base})
			}
			if err := st.AddEvaluations(ctx, run, es); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.damage(data), 0o644); err != nil {
				t.Fatal(err)
			}
			again, err := sqlite.Open(ctx, path)
			if err == nil {
				defer again.Close()
				_, err = again.Evaluations(ctx, run)
			}
			if err == nil {
				t.Fatal("a damaged database opened and read without an error")
			}
			for _, want := range []string{"malformed", "the database file " + path + " is damaged", "restore a copy"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%v\nwant it to say %q", err, want)
				}
			}
		})
	}
}
