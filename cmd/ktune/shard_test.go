package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// shardBench is a small benchmark on two recorded spaces: 3 strategies x 2 spaces x 2
// budgets = 12 cells.
var shardBench = []string{"bench", pnpoly, convolution, "--strategies", "random,firstils,genetic",
	"--budgets", "10,30", "--repeats", "3", "--seed", "5", "--workers", "2"}

// benchJSON runs ktune with args and returns its standard output, failing the test unless
// it exits 0.
func benchJSON(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := ktune(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// untimed is a --json output with every key of a measured time left out (time, us_per,
// seconds, wall), as generic JSON.
func untimed(t *testing.T, data string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	var strip func(any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				if !strings.Contains(k, "time") && !strings.Contains(k, "us_per") && !strings.Contains(k, "seconds") && !strings.Contains(k, "wall") {
					out[k] = strip(e)
				}
			}
			return out
		case []any:
			for i := range x {
				x[i] = strip(x[i])
			}
		}
		return v
	}
	return strip(v)
}

// writeShards runs shards 1 to n of args with --json, each output in its file of dir,
// and returns the files.
func writeShards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var files []string
	for k := 1; k <= n; k++ {
		f := filepath.Join(dir, fmt.Sprintf("part-%d-of-%d.json", k, n))
		out := benchJSON(t, append(args, "--shard", fmt.Sprintf("%d/%d", k, n), "--json")...)
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// resumeEach is --resume FILE for each of files.
func resumeEach(files []string) []string {
	var out []string
	for _, f := range files {
		out = append(out, "--resume", f)
	}
	return out
}

// The --json outputs of shards 1 to 3 hold each cell of the benchmark once, each as the
// unsharded run computes it, and say which shard they are; merged, they give the unsharded
// run's --json output but for times, and its tables but for the times. So do 20 shards,
// more than the cells, of which 8 are empty.
func TestBenchShardsMergeIntoTheUnshardedRun(t *testing.T) {
	dir := t.TempDir()
	whole := benchJSON(t, append(shardBench, "--json")...)
	var w benchFile
	if err := json.Unmarshal([]byte(whole), &w); err != nil {
		t.Fatal(err)
	}
	if len(w.Cells) != 12 || strings.Contains(whole, `"shard"`) {
		t.Fatalf("unsharded: %d cells, want 12, and no shard: %s", len(w.Cells), whole)
	}
	for _, n := range []int{3, 20} {
		files := writeShards(t, dir, n, shardBench...)
		cells, empty := map[string]int{}, 0
		for k, f := range files {
			data, _ := os.ReadFile(f)
			var p benchFile
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			if p.Shard == nil || p.Shard.Index != k+1 || p.Shard.Count != n {
				t.Errorf("%s says it is shard %v", f, p.Shard)
			}
			if len(p.Cells) == 0 {
				empty++
			}
			for _, c := range p.Cells {
				cells[c.Key().String()]++
			}
		}
		if len(cells) != 12 || (n == 20 && empty != 8) {
			t.Errorf("%d shards: %d distinct cells, %d empty shards", n, len(cells), empty)
		}
		for c, times := range cells {
			if times != 1 {
				t.Errorf("%d shards: %s in %d of them", n, c, times)
			}
		}
		merged := benchJSON(t, append(append(shardBench, "--merge", "--json"), resumeEach(files)...)...)
		if got, want := untimed(t, merged), untimed(t, whole); !reflect.DeepEqual(got, want) {
			t.Errorf("%d shards merged:\n%s\nunsharded:\n%s", n, merged, whole)
		}
	}
	files := writeShards(t, dir, 3, shardBench...)
	table := benchJSON(t, append(append(shardBench, "--merge"), resumeEach(files)...)...)
	wholeTable := benchJSON(t, shardBench...)
	cut := func(s string) string { return s[:strings.Index(s, "cost:")] } // then the times
	if !strings.Contains(table, "cost:") || cut(table) != cut(wholeTable) {
		t.Errorf("merged tables:\n%s\nunsharded:\n%s", table, wholeTable)
	}
}

// A merge refuses a part of another benchmark, naming the file: another seed, another list
// of spaces; and says which cells are missing, how many, and the shard that lacks them,
// given or not. Parts that overlap with the same results merge; a cell two parts hold with
// other results is refused, naming both.
func TestBenchMergeRefusesWhatIsNotThisBenchmark(t *testing.T) {
	dir := t.TempDir()
	files := writeShards(t, dir, 3, shardBench...)
	otherSeed := writeShards(t, t.TempDir(), 1, append(shardBench, "--seed", "6")...)[0]
	otherSpaces := writeShards(t, t.TempDir(), 1, "bench", pnpoly, "--strategies", "random,firstils,genetic",
		"--budgets", "10,30", "--repeats", "3", "--seed", "5")[0]
	merge := func(parts ...string) (string, string, int) {
		return ktune(t, append(append(shardBench, "--merge", "--json"), resumeEach(parts)...)...)
	}
	for _, tc := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"seed", []string{files[0], files[1], otherSeed}, "--resume " + otherSeed + ": it ran with seed 6, this benchmark with seed 5"},
		{"spaces", []string{files[0], otherSpaces, files[1], files[2]},
			"--resume " + otherSpaces + ": not a part of this benchmark: another list of spaces: it lacks spaces of this benchmark (convolution_milo/A100)"},
		{"missing shard", []string{files[0], files[2]}, "cells are in none of the --resume files: "},
	} {
		out, errOut, code := merge(tc.parts...)
		if code == 0 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d: %s%s", tc.name, code, out, errOut)
		}
	}

	// the missing shard is named, with the number of cells it lacks
	var p2 benchFile
	data, _ := os.ReadFile(files[1])
	if err := json.Unmarshal(data, &p2); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ := merge(files[0], files[2])
	if want := fmt.Sprintf("--merge: %d of the benchmark's 12 cells are in none of the --resume files", len(p2.Cells)); !strings.Contains(errOut, want) ||
		!strings.Contains(errOut, "no part is shard 2/3") {
		t.Errorf("missing shard 2/3 (%d cells): %s", len(p2.Cells), errOut)
	}

	// an interrupted shard, a part with cells cut: said as that shard's
	cut := editJSON(t, files[1], "cut.json", func(v map[string]any) { v["cells"] = v["cells"].([]any)[1:] })
	if _, errOut, code := merge(files[0], cut, files[2]); code != 1 ||
		!strings.Contains(errOut, "--merge: 1 of the benchmark's 12 cells are in none of the --resume files") ||
		!strings.Contains(errOut, "shard 2/3 ("+cut+") lacks 1 of its cells") {
		t.Errorf("a shard cut short: exit %d: %s", code, errOut)
	}

	// a part given twice overlaps with the same results; one edited does not
	if out, errOut, code := merge(files[0], files[1], files[2], files[1]); code != 0 || out == "" {
		t.Errorf("a part twice: exit %d: %s", code, errOut)
	}
	edited := editJSON(t, files[1], "edited.json", func(v map[string]any) {
		c := cellOf(v, 0)
		fr := c["fractions"].([]any)
		fr[0], fr[1] = fr[1], fr[0] // the same mean and deviation, another run order
	})
	if _, errOut, code := merge(files[0], files[1], files[2], edited); code != 1 ||
		!strings.Contains(errOut, files[1]+" and "+edited+" both hold ") || !strings.Contains(errOut, "with other results") {
		t.Errorf("a cell twice with other results: exit %d: %s", code, errOut)
	}
}

// --shard and --merge refuse what makes no sense, before anything runs.
func TestBenchShardFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "4/3"}, "--shard \"4/3\": the shard is 1 to 3"},
		{[]string{"--shard", "x"}, "want K/N"},
		{[]string{"--merge"}, "--merge takes its cells from the --resume files"},
		{[]string{"--merge", "--shard", "1/2", "--resume", "a.json"}, "leave --shard out"},
		{[]string{"--resume", "a.json", "--resume", "b.json", "--checkpoint", "c.json"}, "give one --resume file with --checkpoint"},
	} {
		out, errOut, code := ktune(t, append(shardBench, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s%s", tc.args, code, out, errOut)
		}
	}
}

// A shard resumed from a whole benchmark's checkpoint into that file keeps the other
// shards' cells in it: it runs its own only, and the file is the whole benchmark's still.
func TestBenchShardKeepsTheOtherShardsCellsInTheCheckpoint(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "bench.json")
	benchJSON(t, append(shardBench, "--checkpoint", ckpt)...)
	_, errOut, code := ktune(t, append(shardBench, "--shard", "1/2", "--resume", ckpt, "--checkpoint", ckpt)...)
	if code != 0 || !strings.Contains(errOut, "12 cells taken from "+ckpt) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	var f benchFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cells) != 12 {
		t.Errorf("the checkpoint holds %d cells, want the 12 of the whole benchmark: %s", len(f.Cells), errOut)
	}
}
