package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

// storeRun stores rec as run 1 of a new database and returns the database's path.
func storeRun(t *testing.T, rec *result.Recording) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ktune.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if id, err := st.ImportRecording(context.Background(), rec); err != nil || id != 1 {
		t.Fatalf("run %d: %v", id, err)
	}
	return db
}

// threeConfigs is a recording of a = 1, 2, 3 with the given objective values.
func threeConfigs(objective string, maximize bool, values ...float64) *result.Recording {
	rec := &result.Recording{Format: "ktune", Device: "dev", Kernel: "k", Objective: objective, Maximize: maximize,
		Params: []space.Param{{Name: "a"}}}
	for i, v := range values {
		a := space.IntValue(int64(i + 1))
		rec.Params[0].Values = append(rec.Params[0].Values, a)
		rec.Evaluations = append(rec.Evaluations, result.Evaluation{Config: []space.Value{a}, Status: result.OK, Objective: v,
			Samples: []float64{0.5}, CompileMS: 1, VerifyMS: 1, BenchmarkMS: 1, FrameworkMS: 1})
	}
	return rec
}

func exportRun(t *testing.T, db, formatName string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	if _, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", formatName, "-o", out); code != 0 {
		t.Fatalf("export --format %s: exit %d: %s", formatName, code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A run stored with the problem size as ktune tune stored it before ("128,128") exports it
// as the array of integers Kernel Tuner's cache schema requires, in both formats.
func TestExportGivesTheProblemSizeAsAnArray(t *testing.T) {
	rec := threeConfigs("time", false, 3, 2, 1)
	rec.ProblemSize = "128,128"
	db := storeRun(t, rec)
	var cache struct {
		ProblemSize json.RawMessage `json:"problem_size"`
	}
	if err := json.Unmarshal(exportRun(t, db, "kerneltuner"), &cache); err != nil || string(cache.ProblemSize) != "[128,128]" {
		t.Errorf("Kernel Tuner problem_size %s (%v), want [128,128]", cache.ProblemSize, err)
	}
	var t4 struct {
		Metadata struct {
			ProblemSize json.RawMessage `json:"problem_size"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(exportRun(t, db, "t4"), &t4); err != nil || string(t4.Metadata.ProblemSize) != "[128,128]" {
		t.Errorf("T4 metadata.problem_size %s (%v), want [128,128]", t4.Metadata.ProblemSize, err)
	}
}

// A run maximizing a metric whose name does not say so keeps its direction through a
// Kernel Tuner cache: imported again, its best is still the highest score.
func TestKernelTunerExportKeepsTheObjectivesDirection(t *testing.T) {
	db := storeRun(t, threeConfigs("score", true, 1, 3, 2))
	cache := filepath.Join(t.TempDir(), "score.json")
	if err := os.WriteFile(cache, exportRun(t, db, "kerneltuner"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktune(t, "import", "--db", filepath.Join(t.TempDir(), "again.db"), cache, "--json")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	var imported []struct {
		Best       float64        `json:"best_objective"`
		BestConfig map[string]any `json:"best_configuration"`
	}
	if err := json.Unmarshal([]byte(out), &imported); err != nil || len(imported) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	if imported[0].Best != 3 || len(imported[0].BestConfig) != 1 || imported[0].BestConfig["a"] != 2.0 {
		t.Errorf("best %v (%s), want the highest score 3 (a=2)", imported[0].Best, imported[0].BestConfig)
	}
}

// -o naming a folder is refused before anything is written, and a failed export leaves no
// temporary file behind.
func TestExportToAFolderIsRefusedAndLeavesNothing(t *testing.T) {
	db := storeRun(t, threeConfigs("time", false, 3, 2, 1))
	dir := t.TempDir()
	folder := filepath.Join(dir, "out")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", "t4", "-o", folder)
	if code == 0 || !strings.Contains(errOut, folder+": is a folder, want a file") {
		t.Errorf("export to a folder: exit %d: %s", code, errOut)
	}
	// a run that does not exist fails after -o was checked: still nothing is left
	if _, errOut, code := ktune(t, "export", "--db", db, "--run", "7", "--format", "t4", "-o", filepath.Join(dir, "x.json")); code == 0 {
		t.Errorf("export of a missing run: exit 0: %s", errOut)
	}
	// a recording Write refuses (two evaluations of one configuration) fails while writing
	rec := threeConfigs("time", false, 3, 2)
	rec.Evaluations[1].Config = rec.Evaluations[0].Config
	bad := storeRun(t, rec)
	if _, errOut, code := ktune(t, "export", "--db", bad, "--run", "1", "--format", "kerneltuner", "-o", filepath.Join(dir, "y.json")); code == 0 {
		t.Errorf("export of an unwritable recording: exit 0: %s", errOut)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "out" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if inside, _ := os.ReadDir(folder); len(inside) != 0 {
		t.Errorf("written into the folder: %v", inside)
	}
	out := filepath.Join(dir, "good.json")
	if _, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", "t4", "-o", out); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("exported file: %v, %v", fi, err)
	}
}

// A Kernel Tuner cache cut short before its first entry was complete is refused, with the
// reader's warning; importing a folder goes on with the other files and reports it.
func TestImportRefusesACacheWithoutEntries(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.json")
	text := `{"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]}, "cache": {
"1": {"a": 1, "ti`
	if err := os.WriteFile(trunc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]}, "cache": {"1": {"a": 1, "time": 2.5}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "ktune.db")
	_, errOut, code := ktune(t, "import", "--db", db, trunc)
	if code == 0 || !strings.Contains(errOut, trunc+": no configurations to import") || !strings.Contains(errOut, "read 0 complete entries") {
		t.Errorf("import of a cache without entries: exit %d: %s", code, errOut)
	}
	out, errOut, code := ktune(t, "import", "--db", db, dir, "--json")
	if code == 0 || !strings.Contains(errOut, "1 of 2 files could not be imported") {
		t.Errorf("import of the folder: exit %d: %s", code, errOut)
	}
	var imported []struct {
		File  string `json:"file"`
		Run   int64  `json:"run"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &imported); err != nil || len(imported) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, s := range imported {
		if (s.File == trunc) != (s.Error != "" && s.Run == 0) {
			t.Errorf("%s: run %d, error %q", s.File, s.Run, s.Error)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].Source != good {
		t.Errorf("stored runs %+v (%v), want only %s", runs, err, good)
	}
}

// The README's opening paragraph says which formats ktune reads and which it writes as the
// registered formats do: it said ktune wrote KTT's, which 'ktune export --format ktt'
// refuses.
func TestTheReadmeSaysWhichFormatsAreReadAndWritten(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	intro, _, _ := strings.Cut(string(b), "\n## ")
	intro = strings.Join(strings.Fields(intro), " ")
	_, claims, _ := strings.Cut(intro, " reads ")
	reads, writes, ok := strings.Cut(claims, " writes ")
	if !ok {
		t.Fatalf("the opening paragraph does not say what ktune reads and writes: %s", intro)
	}
	if reads == "and" { // "reads and writes the formats of ..."
		reads = writes
	}
	prose := map[string]string{"kerneltuner": "Kernel Tuner", "t4": "T4", "ktt": "KTT"}
	for _, f := range format.Formats() {
		name, known := prose[f.Name]
		if !known {
			t.Errorf("format %s: how does the README name it?", f.Name)
			continue
		}
		if !strings.Contains(reads, name) {
			t.Errorf("format %s is read, but the README's reads %q does not name %s", f.Name, reads, name)
		}
		if w := strings.Contains(writes, name); w != (f.Write != nil) {
			t.Errorf("format %s: the README's writes %q names %s: %v; ktune writes it: %v", f.Name, writes, name, w, f.Write != nil)
		}
	}
}

// report -o - writes the page to standard output, and nothing else there, as export -o -
// does (QA: it wrote a file named "-").
func TestReportToStandardOutput(t *testing.T) {
	db := storeRun(t, threeConfigs("time", false, 3, 2, 1))
	dir := t.TempDir()
	t.Chdir(dir)
	out, errOut, code := ktune(t, "report", "1", "--db", db, "--bootstrap", "0", "--graph-nodes", "0", "-o", "-")
	if code != 0 {
		t.Fatalf("report -o -: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(out), "</html>") {
		t.Errorf("standard output is not the page alone: %.100q ... %.100q", out, out[max(0, len(out)-100):])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// Exporting a real cache says what the target format has no place for: KTT output drops
// the problem size, the samples and the failures' compile times, and says so naming the
// output; Kernel Tuner and T4 keep them and say nothing.
func TestExportNamesWhatTheFormatLeavesOut(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "import", "--db", db, filepath.Join("../../testdata/benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz")); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	for _, tc := range []struct{ format, want string }{
		{"ktt", "ktune export: warning: KTT output has no place for the problem size 20000000, the timing samples of 3734 configurations and the compile times of 358 failed configurations: they are not in "},
		{"kerneltuner", ""},
		{"t4", ""},
	} {
		out := filepath.Join(dir, tc.format+".json")
		_, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", tc.format, "-o", out)
		if code != 0 {
			t.Fatalf("export --format %s: exit %d: %s", tc.format, code, errOut)
		}
		if tc.want == "" && errOut != "" || tc.want != "" && errOut != tc.want+out+"\n" {
			t.Errorf("export --format %s says %q, want %q", tc.format, errOut, tc.want+out)
		}
	}
}

// A stored run's warnings (its cache was cut short) and an unfinished run are said on
// export, as exporting the file says the former.
func TestExportOfARunSaysItsWarnings(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("../../testdata/kernel_tuner/vector_add_A4000.json"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.json")
	if err := os.WriteFile(cut, data[:6000], 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := ktune(t, "import", "--db", db, cut); code != 0 || !strings.Contains(errOut, "unclosed cache file") {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	_, errOut, code := ktune(t, "export", "--db", db, "--run", "1", "--format", "t4", "-o", filepath.Join(dir, "out.json"))
	if code != 0 || !strings.Contains(errOut, "ktune export: warning: "+cut+": unclosed cache file (an interrupted Kernel Tuner run): read 8 complete entries") {
		t.Errorf("export: exit %d, said %q; want the run's warning", code, errOut)
	}

	rec := threeConfigs("time", false, 3, 2, 1)
	db = storeRun(t, rec)
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(context.Background(), 1, store.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, errOut, code = ktune(t, "export", "--db", db, "--run", "1", "--format", "kerneltuner", "-o", filepath.Join(dir, "i.json"))
	if want := "ktune export: warning: run 1 is interrupted, not finished: the output holds the 3 evaluations it has stored so far\n"; code != 0 || errOut != want {
		t.Errorf("export of an interrupted run: exit %d, said %q, want %q", code, errOut, want)
	}
}
