package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

// killedTuningRun stores run 1, a tuning run that is still marked running (as a killed
// ktune tune leaves it), with a few of pnpoly's evaluations, in dir/t.db.
func killedTuningRun(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	rec, err := format.Open(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dev, err := st.PutDevice(ctx, store.Device{Name: rec.Device})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions})
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "random"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluations(ctx, id, rec.Evaluations[:40]); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportSaysAKilledRunWasInterrupted reports a run marked running that no process
// tunes as interrupted, without writing to the (read-only) database, and a run that a
// process holds as running.
func TestReportSaysAKilledRunWasInterrupted(t *testing.T) {
	tmp := t.TempDir()
	db := killedTuningRun(t, tmp)
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(tmp, "r.html")
	report := func() string {
		t.Helper()
		_, stderr, code := ktune(t, "report", "1", "--db", db, "-o", page, "--bootstrap", "0", "--graph-nodes", "0")
		if code != 0 {
			t.Fatalf("report: exit %d: %s", code, stderr)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		return string(html)
	}
	if html := report(); !strings.Contains(html, "tuning run, interrupted") {
		t.Errorf("report of a killed run does not say interrupted")
	}
	l, err := lockRun(db, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	if html := report(); !strings.Contains(html, "tuning run, running") {
		t.Errorf("report of a run another process holds does not say running")
	}
}

// TestReadCommandsReadReadOnlyDatabases exports a run from a read-only file in a
// read-only folder.
func TestReadCommandsReadReadOnlyDatabases(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := killedTuningRun(t, dir)
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	out := filepath.Join(tmp, "run1.json")
	if _, stderr, code := ktune(t, "export", "--run", "1", "--format", "t4", "--db", db, "-o", out); code != 0 {
		t.Fatalf("export from a read-only database: exit %d: %s", code, stderr)
	}
	if _, stderr, code := ktune(t, "import", pnpoly, "--db", db); code == 0 || !strings.Contains(stderr, "is read-only") {
		t.Errorf("import into a read-only database: exit %d: %s, want the reason", code, stderr)
	}
}

// TestDatabaseErrorsSayWhatIsWrong checks the messages for --db values that cannot be
// opened.
func TestDatabaseErrorsSayWhatIsWrong(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		db   string
		want string
	}{
		{tmp, "is a directory"},
		{filepath.Join(tmp, "no", "sub", "x.db"), "folder " + filepath.Join(tmp, "no", "sub") + " does not exist"},
		{"mysql://host/results", "ktune stores results in SQLite files and PostgreSQL databases, not at mysql: locations"},
	} {
		_, stderr, code := ktune(t, "import", pnpoly, "--db", tc.db)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("import --db %s: exit %d, %q; want %q", tc.db, code, stderr, tc.want)
		}
	}
}

// analyze --run and simulate --run of a run with no evaluations yet (a tune that has just
// started, analysed while it tunes, or one killed before its first) say so, naming the
// run, instead of the simulator's "recorded space: no configurations: the space is
// empty" (QA: analyze --run 1 beside a starting tune).
func TestAnalysingARunWithNoEvaluationsYetSaysSo(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "t.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := format.Open(pnpoly)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := st.PutDevice(ctx, store.Device{Name: rec.Device})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params, Restrictions: rec.Restrictions})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "random"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, args := range [][]string{{"analyze", "--run", "1"}, {"simulate", "--run", "1", "--repeats", "2"}} {
		_, errOut, code := ktune(t, append(args, "--db", db)...)
		if code == 0 || !strings.Contains(errOut, "run 1 in "+db+": no evaluations yet") || strings.Contains(errOut, "space is empty") {
			t.Errorf("%s: exit %d: %s", args[0], code, errOut)
		}
	}
}
