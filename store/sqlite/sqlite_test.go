package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
	"github.com/ktune/ktune/store/storetest"
)

func TestImportingTheSameSpaceTwiceStoresItOnce(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	first, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.Device = "AMD Instinct MI250X"
	second, err := st.ImportRecording(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := st.Run(ctx, first)
	r2, _ := st.Run(ctx, second)
	if r1.SpaceID != r2.SpaceID || r1.DeviceID == r2.DeviceID {
		t.Errorf("runs share space %d/%d (want same) and device %d/%d (want different)", r1.SpaceID, r2.SpaceID, r1.DeviceID, r2.DeviceID)
	}
	runs, err := st.Runs(ctx, store.RunFilter{SpaceID: r1.SpaceID})
	if err != nil || len(runs) != 2 {
		t.Fatalf("Runs(space) = %d runs, %v; want 2", len(runs), err)
	}
	runs, err = st.Runs(ctx, store.RunFilter{Device: "AMD Instinct MI250X", Kind: store.KindImport})
	if err != nil || len(runs) != 1 || runs[0].ID != second {
		t.Fatalf("Runs(device) = %+v, %v; want run %d", runs, err, second)
	}
}

func TestFailedImportLeavesNothing(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	rec.Evaluations[5].Config = rec.Evaluations[5].Config[:2]
	if _, err := st.ImportRecording(ctx, rec); err == nil || !strings.Contains(err.Error(), "evaluation 5") {
		t.Fatalf("import with a short configuration: err = %v, want one naming evaluation 5", err)
	}
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil || len(runs) != 0 {
		t.Errorf("after a failed import: %d runs, %v; want none", len(runs), err)
	}
}

// A recording a program built, with neither format nor source, is named in import errors
// as much as it says, where the error read 'store: import  recording "": ...'.
func TestImportErrorsNameARecordingWithoutFormatOrSource(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	rec.Format, rec.Source = "", ""
	rec.Evaluations[5].Config = rec.Evaluations[5].Config[:2]
	_, err := st.ImportRecording(ctx, rec)
	if err == nil || !strings.HasPrefix(err.Error(), "store: import recording: evaluation 5") {
		t.Errorf("import with a short configuration: err = %v", err)
	}
	_, _, err = st.ImportRecordingOnce(ctx, &result.Recording{Format: "t4"})
	if err == nil || err.Error() != "store: import t4 recording: no evaluations, nothing to import" {
		t.Errorf("import of nothing: err = %v", err)
	}
}

// A run of ktune's own reads back as a recording of format ktune whose source names the
// database file and the run (the conformance suite checks the rest of a run's life).
func TestATuningRunReadsBackFromItsDatabaseFile(t *testing.T) {
	st, path := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	id := storetest.NewRun(t, st, rec)
	if err := st.AddEvaluations(ctx, id, rec.Evaluations); err != nil {
		t.Fatal(err)
	}
	back, err := st.Recording(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("sqlite:%s#run=%d", path, id); back.Format != "ktune" || back.Source != want {
		t.Errorf("tuning run reads back as format %q, source %q; want ktune, %s", back.Format, back.Source, want)
	}
}

// A run's settings are replaced, as a resumed run takes its resuming command's budget;
// what is no JSON object and a run that does not exist are refused.
func TestSetRunSettings(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	id := storetest.NewRun(t, st, storetest.Recording())
	if err := st.SetRunSettings(ctx, id, json.RawMessage(`{"budget": 20, "spec": "k.yaml"}`)); err != nil {
		t.Fatal(err)
	}
	if run, err := st.Run(ctx, id); err != nil || string(run.Settings) != `{"budget": 20, "spec": "k.yaml"}` {
		t.Errorf("settings %s (%v), want those set", run.Settings, err)
	}
	if err := st.SetRunSettings(ctx, id, json.RawMessage(`[1]`)); err == nil {
		t.Errorf("settings that are no JSON object were stored")
	}
	if err := st.SetRunSettings(ctx, id+1, json.RawMessage(`{}`)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("settings of a run that does not exist: %v, want ErrNotFound", err)
	}
}

func TestRejectsBadInput(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	id := storetest.NewRun(t, st, rec)
	good := rec.Evaluations[0]
	short := good
	short.Config = good.Config[:3]
	badStatus := good
	badStatus.Status = 99
	nanValue := good
	nanValue.Config = []space.Value{i(1), f(math.NaN()), b(true), s("x")}
	halfLaunch := good
	halfLaunch.Launch = &result.Launch{Grid: [3]int{4, 1, 0}, Block: [3]int{32, 1, 1}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"short configuration", st.AddEvaluation(ctx, id, short), "3 values"},
		{"unknown status", st.AddEvaluation(ctx, id, badStatus), "unknown status"},
		{"NaN value", st.AddEvaluation(ctx, id, nanValue), "configuration"},
		{"launch with a size of 0", st.AddEvaluation(ctx, id, halfLaunch), "launch: grid [4 1 0], block [32 1 1]: a size below 1"},
		{"missing run", st.AddEvaluation(ctx, 999, good), store.ErrNotFound.Error()},
		{"batch with one bad", st.AddEvaluations(ctx, id, []result.Evaluation{good, short}), "evaluation 1"},
		{"finish missing run", st.FinishRun(ctx, 999, store.StatusFinished), store.ErrNotFound.Error()},
		{"bad run status", st.FinishRun(ctx, id, "done"), "unknown status"},
		{"run over missing space", createRun(st, store.RunInfo{SpaceID: 77, DeviceID: 1, Kind: store.KindTuning}), store.ErrNotFound.Error()},
		{"bad run kind", createRun(st, store.RunInfo{SpaceID: 1, DeviceID: 1, Kind: "guess"}), "unknown run kind"},
		{"options not an object", createRun(st, store.RunInfo{SpaceID: 1, DeviceID: 1, Kind: store.KindTuning, StrategyOptions: []byte("[1]")}), "JSON object"},
		{"duplicate parameter", putSpace(st, store.Space{Params: []space.Param{{Name: "x"}, {Name: "x"}}}), "twice"},
		{"space without parameters", putSpace(st, store.Space{}), "no parameters"},
		{"run without a kind", createRun(st, store.RunInfo{SpaceID: 1, DeviceID: 1}), `create run (kind ""): unknown run kind`},
		{"empty recording", importErr(st, &result.Recording{Format: "kerneltuner", Source: "x.json"}), "no evaluations, nothing to import"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) || !strings.HasPrefix(tt.err.Error(), "store: ") {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, tt.err, tt.want)
		}
	}
	if es, _ := st.Evaluations(ctx, id); len(es) != 0 {
		t.Errorf("after rejected adds the run has %d evaluations, want 0", len(es))
	}
	if _, err := st.Evaluations(ctx, 999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Evaluations(missing run): %v, want ErrNotFound", err)
	}
	if _, err := st.Run(ctx, 999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Run(missing): %v, want ErrNotFound", err)
	}
}

func createRun(st store.Store, r store.RunInfo) error {
	_, err := st.CreateRun(context.Background(), r)
	return err
}

func importErr(st store.Store, rec *result.Recording) error {
	_, err := st.ImportRecording(context.Background(), rec)
	return err
}

func putSpace(st store.Store, sp store.Space) error {
	_, err := st.PutSpace(context.Background(), sp)
	return err
}

func TestLookup(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	params := []space.Param{
		{Name: "a", Values: []space.Value{s("x"), s("x,y")}},
		{Name: "b", Values: []space.Value{s("y,z"), s("z")}},
		{Name: "n", Values: []space.Value{i(2)}},
	}
	sp, _ := st.PutSpace(ctx, store.Space{Kernel: "k", Params: params})
	dev, _ := st.PutDevice(ctx, store.Device{Name: "cpu"})
	id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindSimulation})
	if err != nil {
		t.Fatal(err)
	}
	// Both configurations have the key "x,y,z,2".
	first := result.Evaluation{Config: []space.Value{s("x"), s("y,z"), i(2)}, Objective: 1}
	second := result.Evaluation{Config: []space.Value{s("x,y"), s("z"), i(2)}, Objective: 2}
	again := result.Evaluation{Config: first.Config, Objective: 3}
	if err := st.AddEvaluations(ctx, id, []result.Evaluation{first, second}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvaluation(ctx, id, again); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		config []space.Value
		found  bool
		obj    float64
	}{
		{"first of two with the same key", first.Config, true, 1},
		{"second of two with the same key", second.Config, true, 2},
		{"float is not int", []space.Value{s("x"), s("y,z"), f(2)}, false, 0},
		{"not measured", []space.Value{s("x"), s("z"), i(2)}, false, 0},
	}
	for _, tt := range tests {
		e, ok, err := st.Lookup(ctx, id, tt.config)
		if err != nil || ok != tt.found || (ok && e.Objective != tt.obj) {
			t.Errorf("%s: Lookup = %v, %v, %v; want objective %v, found %v", tt.name, e.Objective, ok, err, tt.obj, tt.found)
		}
	}
	if _, _, err := st.Lookup(ctx, 999, first.Config); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Lookup in a missing run: %v, want ErrNotFound", err)
	}
	if es, _ := st.Evaluations(ctx, id); len(es) != 3 || es[2].Objective != 3 {
		t.Errorf("a batch then a single add: %+v, want 3 evaluations in order", es)
	}
}

func TestSpacesAndDevicesAreStoredOnce(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	params := []space.Param{{Name: "x", Values: []space.Value{i(1), i(2)}}}
	a, _ := st.PutSpace(ctx, store.Space{Kernel: "k", Params: params})
	b, _ := st.PutSpace(ctx, store.Space{Kernel: "k", Params: params, Restrictions: []string{}})
	c, _ := st.PutSpace(ctx, store.Space{Kernel: "k", Params: []space.Param{{Name: "x", Values: []space.Value{f(1), f(2)}}}})
	d, _ := st.PutSpace(ctx, store.Space{Kernel: "k", Params: params, Restrictions: []string{"x > 1"}})
	if a != b || a == c || a == d || c == d {
		t.Errorf("space ids %d %d %d %d: want the first two equal, the rest distinct", a, b, c, d)
	}
	sp, err := st.Space(ctx, c)
	if err != nil || sp.Params[0].Values[1].Kind() != space.Float {
		t.Errorf("Space(%d) = %+v, %v; want float values", c, sp, err)
	}

	d1, _ := st.PutDevice(ctx, store.Device{Name: "gpu", Backend: "cuda", Properties: []byte(`{"cc":"8.0"}`)})
	d2, _ := st.PutDevice(ctx, store.Device{Name: "gpu", Backend: "cuda"})
	d3, _ := st.PutDevice(ctx, store.Device{Name: "gpu", Backend: "opencl"})
	if d1 != d2 || d1 == d3 {
		t.Errorf("device ids %d %d %d: want the first two equal", d1, d2, d3)
	}
	dev, err := st.Device(ctx, d1)
	if err != nil || string(dev.Properties) != `{"cc":"8.0"}` {
		t.Errorf("Device = %+v, %v; want the properties kept", dev, err)
	}
	if _, err := st.Device(ctx, 99); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Device(missing): %v", err)
	}
	if _, err := st.Space(ctx, 99); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Space(missing): %v", err)
	}
}

func TestSchemaVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ktune.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportRecording(ctx, storetest.Recording()); err != nil {
		t.Fatal(err)
	}
	st.Close()

	raw := rawDB(t, path)
	var version int
	var mode string
	raw.QueryRow("PRAGMA user_version").Scan(&version)
	raw.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if version != sqlite.SchemaVersion || mode != "wal" {
		t.Errorf("user_version %d, journal_mode %s; want %d, wal", version, mode, sqlite.SchemaVersion)
	}

	// Reopening a current database keeps its data.
	st, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if runs, err := st.Runs(ctx, store.RunFilter{}); err != nil || len(runs) != 1 {
		t.Errorf("after reopening: %d runs, %v", len(runs), err)
	}
	st.Close()

	if _, err := raw.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(ctx, path)
	if !errors.Is(err, store.ErrNewerSchema) || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("opening a version-99 database: %v, want ErrNewerSchema naming version 99", err)
	}
}

// Another program's SQLite file is refused and left as it was, byte for byte: its
// journal mode too, which SQLite keeps in the file (QA: opening one switched it to WAL).
func TestRefusesOtherDatabases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	raw := rawDB(t, path)
	if _, err := raw.Exec("CREATE TABLE notes (body TEXT)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(context.Background(), path); err == nil || !strings.Contains(err.Error(), "not a ktune database") {
		t.Errorf("opening another program's database: %v", err)
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
		t.Errorf("opening another program's database changed it (%v): journal mode byte %d, was %d", err, after[18], before[18])
	}
	if _, err := sqlite.Open(context.Background(), ":memory:"); err == nil {
		t.Error("opening :memory: should fail")
	}
}

// A file that is no SQLite database at all (a recording given for the database) is
// refused with what it is and what to do, once, also where it is read-only, and left as
// it was.
func TestRefusesFilesThatAreNoDatabase(t *testing.T) {
	data, err := os.ReadFile("../../testdata/kernel_tuner/vector_add_A4000.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o644, 0o444} {
		path := filepath.Join(t.TempDir(), "vector_add.json")
		if err := os.WriteFile(path, data, mode); err != nil {
			t.Fatal(err)
		}
		_, err := sqlite.Open(context.Background(), path)
		const want = "not a ktune database: the file is not an SQLite database"
		if err == nil || strings.Count(err.Error(), want) != 1 || !strings.Contains(err.Error(), "give the path of a ktune results database, or a new path to create one") {
			t.Errorf("mode %v: %v; want one %q and what to do", mode, err, want)
		}
		if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, data) {
			t.Errorf("mode %v: the file changed (%v)", mode, err)
		}
		if left, _ := filepath.Glob(path + "-*"); len(left) > 0 {
			t.Errorf("mode %v: left %q", mode, left)
		}
	}
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenByLocation(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, loc := range []string{filepath.Join(dir, "a.db"), "sqlite:" + filepath.Join(dir, "b.db"),
		"sqlite://" + filepath.Join(dir, "c.db"), filepath.Join(dir, "odd?name#.db")} {
		st, err := store.Open(ctx, loc)
		if err != nil {
			t.Errorf("store.Open(%q): %v", loc, err)
			continue
		}
		if _, err := st.PutDevice(ctx, store.Device{Name: "cpu"}); err != nil {
			t.Errorf("%s: %v", loc, err)
		}
		st.Close()
	}
	for _, name := range []string{"a.db", "b.db", "c.db", "odd?name#.db"} {
		st, err := sqlite.Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Device(ctx, 1); err != nil {
			t.Errorf("%s was not written where asked: %v", name, err)
		}
		st.Close()
	}
	if _, err := store.Open(ctx, "postgres://db.example/ktune"); err == nil || !strings.Contains(err.Error(), `"postgres"`) {
		t.Errorf("unregistered scheme: %v", err)
	}
}

// TestReadersDoNotWaitForTheWriter reads a run while another goroutine appends to it.
func TestReadersDoNotWaitForTheWriter(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	rec := storetest.Recording()
	id := storetest.NewRun(t, st, rec)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	written := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(written)
		for k := 0; k < n; k++ {
			if err := st.AddEvaluation(ctx, id, rec.Evaluations[k%len(rec.Evaluations)]); err != nil {
				errs <- err
				return
			}
		}
	}()
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for done := false; !done; {
				select {
				case <-written:
					done = true // one more read sees the final state
				default:
				}
				es, err := st.Evaluations(ctx, id)
				if err != nil {
					errs <- err
					return
				}
				if len(es) < last {
					errs <- errors.New("a reader saw evaluations disappear")
					return
				}
				last = len(es)
				if _, _, err := st.Lookup(ctx, id, rec.Evaluations[0].Config); err != nil {
					errs <- err
					return
				}
				time.Sleep(time.Millisecond)
			}
			if last != n {
				errs <- fmt.Errorf("a reader saw %d evaluations at the end, want %d", last, n)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
