package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"weak"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
)

// importRuns is how many runs the database at db holds.
func importRuns(t *testing.T, db string) int {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(runs)
}

// Importing a file whose recording the database holds already skips it, saying which run
// holds it: an interrupted import run again imports only what it had not finished, and a
// copy of a file is found too. --again imports it anyway; a file that changed is imported.
func TestImportSkipsARecordingTheDatabaseHolds(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	ktt := "../../testdata/benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz"
	if out, errOut, code := ktune(t, "import", pnpoly, "--db", db); code != 0 || !strings.Contains(out, "-> run 1") {
		t.Fatalf("first import: exit %d\n%s%s", code, out, errOut)
	}
	// as if an import of both had been killed after the first: the second is imported
	out, errOut, code := ktune(t, "import", pnpoly, ktt, "--db", db)
	if code != 0 || !strings.Contains(out, pnpoly+": kerneltuner, cn_pnpoly on NVIDIA GeForce RTX 2080 Ti: 4092 configurations, 3734 valid: the same recording as run 1 in "+db+", skipped (--again imports it as another run)") ||
		!strings.Contains(out, "-> run 2") || strings.Contains(errOut, "imported before") {
		t.Fatalf("import again: exit %d\n%s%s", code, out, errOut)
	}
	if n := importRuns(t, db); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
	// a copy under another name, uncompressed: the same recording
	data, err := os.ReadFile(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	plain.ReadFrom(zr)
	cp := filepath.Join(dir, "copy.json")
	if err := os.WriteFile(cp, plain.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = ktune(t, "import", cp, "--db", db, "--json")
	var got []struct {
		Run         int64  `json:"run"`
		Skipped     bool   `json:"skipped"`
		SkippedFrom string `json:"skipped_from"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) != 1 || !got[0].Skipped || got[0].Run != 1 || got[0].SkippedFrom != pnpoly {
		t.Errorf("a copy: exit %d, %+v (%v)\n%s%s", code, got, err, out, errOut)
	}
	// --again imports it as another run
	if out, errOut, code := ktune(t, "import", cp, "--again", "--db", db); code != 0 || !strings.Contains(out, "-> run 3") {
		t.Errorf("--again: exit %d\n%s%s", code, out, errOut)
	}
	// a file imported before that changed (a cache that grew) is imported, with a warning
	changed := bytes.Replace(plain.Bytes(), []byte(`"time": 0.`), []byte(`"time": 9.`), 1)
	if bytes.Equal(changed, plain.Bytes()) {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(cp, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := ktune(t, "import", cp, "--db", db); code != 0 || !strings.Contains(out, "-> run 4") || !strings.Contains(errOut, "copy.json was imported before, as run 3") {
		t.Errorf("a changed file: exit %d\n%s%s", code, out, errOut)
	}
	if n := importRuns(t, db); n != 4 {
		t.Errorf("%d runs, want 4", n)
	}
}

// A gzip bomb and a device are refused, each named, and the other files are still
// imported; the limit is $KTUNE_MAX_RECORDING's.
func TestImportRefusesABombAndADevice(t *testing.T) {
	dir := t.TempDir()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(make([]byte, 16<<20))
	zw.Close()
	bombPath := filepath.Join(dir, "bomb.json.gz")
	if err := os.WriteFile(bombPath, bomb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KTUNE_MAX_RECORDING", "8MiB")
	db := filepath.Join(dir, "k.db")
	args := []string{"import", bombPath, pnpoly, "--db", db}
	if _, err := os.Stat("/dev/zero"); err == nil {
		args = append(args, "/dev/zero")
	}
	start := time.Now()
	out, errOut, code := ktune(t, args...)
	if code != 1 || !strings.Contains(errOut, bombPath+": decompresses to more than 8.0 MiB, the most ktune reads from a recording") ||
		!strings.Contains(errOut, "KTUNE_MAX_RECORDING=32.0 MiB") || !strings.Contains(out, "-> run 1") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if len(args) > 5 && !strings.Contains(errOut, "/dev/zero: is a device or a socket, not a file") {
		t.Errorf("/dev/zero: %s", errOut)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
}

// Ctrl-C ends an import that waits on its input (a pipe whose writer sends nothing more).
func TestImportStopsReadingWhenInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte(`{"cache": {`))
		<-done
		w.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"import", fifo, "--db", filepath.Join(t.TempDir(), "k.db")}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "interrupted at "+fifo+"; the 0 files imported before it are stored, and running the same command again skips them") {
		t.Errorf("exit %d, want 130 and what was kept\n%s%s", code, stdout.String(), stderr.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopped %v after the start, interrupted at 300ms", took)
	}
}

// Every command that reads recorded files reads them as import does: a device is refused
// at once, and a file past $KTUNE_MAX_RECORDING too, with its name.
func TestEveryCommandThatReadsRecordingsBoundsWhatItReads(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KTUNE_MAX_RECORDING", "1MiB")
	for _, cmd := range [][]string{
		{"import", "--db", filepath.Join(dir, "k.db")}, {"export", "--format", "t4"}, {"simulate"}, {"bench", "--repeats", "2"},
		{"hypertune", "--strategy", "firstmls"}, {"analyze"}, {"report", "-o", filepath.Join(dir, "r.html")}, {"space"},
	} {
		for path, want := range map[string]string{"/dev/zero": "/dev/zero: is a device or a socket, not a file", big: big + ": is larger than 1.0 MiB"} {
			start := time.Now()
			_, errOut, code := ktune(t, append([]string{cmd[0], path}, cmd[1:]...)...)
			if code == 0 || !strings.Contains(errOut, want) || time.Since(start) > 5*time.Second {
				t.Errorf("%s %s: exit %d after %v: %s", cmd[0], path, code, time.Since(start), errOut)
			}
		}
	}
}

// Import counts configurations as analyze and space do: the entries of configurations the
// restrictions exclude (Kernel Tuner's InvalidConfig) are outside the space, counted apart.
func TestImportCountsRestrictedEntriesApart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	cache := `{"tune_params_keys": ["bx"], "tune_params": {"bx": [1, 2, 3, 4]}, "cache": {
"1": {"bx": 1, "time": 0.5}, "2": {"bx": 2, "time": "InvalidConfig"},
"3": {"bx": 3, "time": "RuntimeFailedConfig"}, "4": {"bx": 4, "time": 0.25}}}`
	if err := os.WriteFile(path, []byte(cache), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	out, errOut, code := ktune(t, "import", path, "--db", db)
	if code != 0 || !strings.Contains(out, ": 3 configurations, 2 valid (1 more entry is restricted, outside the space), best 0.25 ms") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = ktune(t, "import", path, "--db", db, "--json")
	var got []struct {
		Configs    int `json:"configurations"`
		Valid      int `json:"valid"`
		Restricted int `json:"restricted"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got) != 1 || got[0].Configs != 3 || got[0].Valid != 2 || got[0].Restricted != 1 {
		t.Errorf("exit %d, %v: %+v\n%s", code, err, got, errOut)
	}
	out, errOut, code = ktune(t, "space", "count", path)
	if code != 0 || !strings.Contains(out, "valid 3 ") {
		t.Errorf("space: exit %d\n%s\n%s", code, out, errOut)
	}
}

// Two imports of one folder at once store each file once: the second to reach a file
// skips it, as a file the database holds, with the usual message.
func TestImportsOfOneFolderAtOnceStoreEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "caches")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	const files = 6
	for k := range files {
		var cache strings.Builder
		fmt.Fprintf(&cache, `{"device_name": "dev%d", "kernel_name": "k", "tune_params_keys": ["bx"], "tune_params": {"bx": [`, k)
		for v := range 200 {
			fmt.Fprintf(&cache, "%s%d", map[bool]string{true: ", "}[v > 0], v)
		}
		cache.WriteString(`]}, "cache": {`)
		for v := range 200 {
			fmt.Fprintf(&cache, `%s"%d": {"bx": %d, "time": %g}`, map[bool]string{true: ", "}[v > 0], v, v, 1+float64(v*k)/7)
		}
		cache.WriteString("}}")
		if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("c%d.json", k)), []byte(cache.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "k.db")
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 2)
	for range 2 {
		go func() {
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"import", folder, "--db", db}, &out, &errOut)
			done <- result{out.String(), errOut.String(), code}
		}()
	}
	skipped := 0
	for range 2 {
		r := <-done
		if r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
		}
		skipped += strings.Count(r.out, ", skipped (--again imports it as another run)")
	}
	if n := importRuns(t, db); n != files || skipped != files {
		t.Errorf("two imports of %d files at once stored %d runs and skipped %d files; want each file stored once, and skipped once", files, n, skipped)
	}
}

// ktuneReading runs ktune as a process with args, its standard input read from stdin.
func ktuneReading(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1")
	var out, errb strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// 'ktune import -' read a file named "-" (there was none): - is standard input, as for
// other Unix tools, a pipe or a file redirected to it, its format detected from the
// content. It is named "standard input" in messages, "-" in --json, and read once.
func TestImportDashReadsStandardInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	data, err := os.ReadFile(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktuneReading(t, bytes.NewReader(data), "import", "-", "--db", db, "--json") // a pipe
	var files []struct {
		File   string `json:"file"`
		Format string `json:"format"`
		Run    int64  `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &files); code != 0 || err != nil {
		t.Fatalf("exit %d (%v): %s%s", code, err, out, errOut)
	}
	if len(files) != 1 || files[0].File != "-" || files[0].Format != "kerneltuner" || files[0].Run != 1 {
		t.Errorf("JSON %+v", files)
	}
	// a file redirected to it, of another recording, beside a file named on the command line
	ktt, err := os.Open("../../testdata/benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer ktt.Close()
	out, errOut, code = ktuneReading(t, ktt, "import", convolution, "-", "--db", db)
	if code != 0 || !strings.Contains(out, "standard input: ktt, ") || !strings.Contains(out, "-> run 3 in "+db) || errOut != "" {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	if _, errOut, code := ktune(t, "import", "-", convolution, "-", "--db", db); code != 2 || !strings.Contains(errOut, "- (standard input) is given twice") {
		t.Errorf("- twice: exit %d: %s", code, errOut)
	}
}

// The other commands that take one recorded file read standard input as - too, as import
// does; those that read their inputs by their file names say so when given - (they
// looked for a file named -).
func TestDashIsStandardInputWhereARecordingIsRead(t *testing.T) {
	data, err := os.ReadFile(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "-", "--format", "t4"}, `"kernel": "cn_pnpoly"`},
		{[]string{"simulate", "-", "--strategy", "random", "--budget", "20", "--repeats", "2"}, "standard input: kerneltuner, cn_pnpoly on NVIDIA GeForce RTX 2080 Ti"},
		{[]string{"analyze", "-", "--landscape=false"}, "stdin: cn_pnpoly on NVIDIA GeForce RTX 2080 Ti"},
	} {
		out, errOut, code := ktuneReading(t, bytes.NewReader(data), tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("%s: exit %d, stdout lacks %q:\n%s%s", tt.args[0], code, tt.want, out, errOut)
		}
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"bench", "-"}, {"hypertune", "-", "--strategy", "random"}, {"report", "-", "-o", filepath.Join(dir, "r.html")},
		{"space", "-"}, {"tune", "-", "--db", filepath.Join(dir, "k.db")}, {"analyze", "-", pnpoly, "-"},
	} {
		_, errOut, code := ktune(t, args...)
		if code != 2 || !strings.Contains(errOut, "ktune "+args[0]+": - (standard input) is ") {
			t.Errorf("%s: exit %d: %s", args, code, errOut)
		}
	}
	if fileExists(filepath.Join(dir, "k.db")) {
		t.Error("tune - created the database")
	}
}

// The summary import keeps of each file holds its best objective and configuration and
// nothing else of its recording: a pointer into the best evaluation kept the reader's
// buffer of samples alive, 128 KiB for every file of a folder of 1,000.
func TestImportSummaryKeepsNothingOfTheRecording(t *testing.T) {
	rec, err := openRecording(filepath.Join("..", "..", "testdata", "benchmark_hub", "kerneltuner_pnpoly", "RTX_2080_Ti.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	b, ok := rec.Best()
	if !ok || len(b.Samples) == 0 {
		t.Fatal("the recording has no best evaluation with samples")
	}
	samples := weak.Make(&b.Samples[0])
	b = result.Evaluation{}
	best, config := bestOf(rec)
	rec = nil
	runtime.GC()
	runtime.GC()
	if samples.Value() != nil {
		t.Error("the recording's samples are kept alive by its summary")
	}
	if best == nil || len(config.Values) != 4 {
		t.Errorf("summary %v %v, want the best objective and its four values", best, config)
	}
}

// Importing a cache whose ktune_launch and ktune_runs_per_sample are malformed in
// thousands of entries prints a warning a field, naming the file and the first entries
// and counting the rest, and stores every measurement without the malformed values.
func TestImportWarnsOnceAFieldOfMalformedExportValues(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	const n = 3000
	var b strings.Builder
	b.WriteString(`{"tune_params_keys": ["bx"], "cache": {`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		runs := "2"
		if i%3 == 0 {
			runs = `"2"` // a string: malformed in every third entry
		}
		fmt.Fprintf(&b, "\n\"%d\": {\"bx\": %d, \"time\": 0.5, \"ktune_runs_per_sample\": %s, \"ktune_launch\": {\"grid\": [1, 1, 1]}}", i, i, runs)
	}
	b.WriteString("\n}}")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "k.db")
	out, errOut, code := ktune(t, "import", path, "--db", db)
	if code != 0 || !strings.Contains(out, fmt.Sprintf(": %d configurations, %d valid", n, n)) {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	var malformed []string
	for _, line := range strings.Split(errOut, "\n") {
		if strings.Contains(line, "malformed") {
			malformed = append(malformed, line)
		}
	}
	want := []string{
		"ktune import: warning: " + path + `: 1000 entries have a malformed "ktune_runs_per_sample" (entry "3" at line 4: is the string "2", want a whole number from 1 to 2147483647; ` +
			`entry "6" at line 7: is the string "2", want a whole number from 1 to 2147483647; entry "9" at line 10: is the string "2", want a whole number from 1 to 2147483647; ` +
			`and 997 more); the values are left out; the measurements are kept`,
		"ktune import: warning: " + path + `: 3000 entries have a malformed "ktune_launch" (entry "1" at line 2: has no block; entry "2" at line 3: has no block; ` +
			`entry "3" at line 4: has no block; and 2997 more); the values are left out; the measurements are kept`,
	}
	if strings.Join(malformed, "\n") != strings.Join(want, "\n") {
		t.Errorf("import's warnings of malformed values:\n%s\nwant\n%s", strings.Join(malformed, "\n"), strings.Join(want, "\n"))
	}

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec, err := st.Recording(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Evaluations) != n {
		t.Fatalf("the run holds %d evaluations, want %d", len(rec.Evaluations), n)
	}
	for _, e := range rec.Evaluations {
		bx := e.Config[0].Int()
		wantRuns := 2
		if bx%3 == 0 {
			wantRuns = 0
		}
		if e.Status != result.OK || e.Objective != 0.5 || e.Launch != nil || e.RunsPerSample != wantRuns {
			t.Fatalf("entry %d is stored as %s %g, launch %v, %d runs per sample; want ok 0.5, no launch, %d", bx, e.Status, e.Objective, e.Launch, e.RunsPerSample, wantRuns)
		}
	}
}
