package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // the recorded spaces' readers
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
)

const (
	// convolution is a Kernel Tuner cache of 6768 configurations, some failed
	convolution = "../testdata/benchmark_hub/kerneltuner_convolution/RTX_2080_Ti.json.gz"
	// timeEnergy has 15 configurations with energy metrics beside the time
	timeEnergy = "../testdata/kernel_tuner/time_energy.json"
	// gemm is a Kernel Tuner cache of 17,956 configurations: the largest recorded space
	gemm = "../testdata/benchmark_hub/kerneltuner_gemm/RTX_3090.json.gz"
)

func read(t testing.TB, path string) *result.Recording {
	t.Helper()
	rec, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// imported opens a fresh results database and imports the recordings into it, as 'ktune
// import' does, one run each (ids 1, 2...).
func imported(t testing.TB, paths ...string) (*sqlite.Store, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ktune.db")
	st, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, p := range paths {
		if _, err := st.ImportRecording(context.Background(), read(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	return st, db
}

// get fetches path from the server and decodes its JSON into v, failing unless the
// answer has status want; it returns the error message of an error answer.
func get(t *testing.T, srv *httptest.Server, path string, want int, v any) string {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, want, body)
	}
	if want != http.StatusOK {
		var e apiError
		if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
			t.Fatalf("GET %s: an error answer without its message: %s", path, body)
		}
		return e.Error
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %.300s", path, err, body)
	}
	return ""
}

func TestRunsListsEveryRunWithItsCountsAndBest(t *testing.T) {
	st, db := imported(t, convolution, timeEnergy)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	var runs []Run
	get(t, srv, "/api/runs", http.StatusOK, &runs)
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	for i, path := range []string{convolution, timeEnergy} {
		rec := read(t, path)
		total, ok := rec.Counts()
		best, _ := rec.Best()
		r := runs[i]
		if r.ID != int64(i+1) || r.Evaluations != total || r.Succeeded != ok || r.Best == nil || *r.Best != best.Objective ||
			r.Kind != "import" || r.Status != "finished" || r.Kernel != rec.Kernel || r.Device != rec.Device {
			t.Errorf("run %d: %+v; the recording has %d evaluations, %d ok, best %g", i+1, r, total, ok, best.Objective)
		}
	}
	// the page lists them, each linking to its view
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`href="/runs/1"`, `href="/runs/2"`, "convolution_kernel", "vector_add", "6768 (5256 ok)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the list of runs lacks %s", want)
		}
	}
}

func TestEvaluationsComeInOrderAndAfterTheFirstN(t *testing.T) {
	st, db := imported(t, convolution)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	rec := read(t, convolution)
	var run Run
	get(t, srv, "/api/runs/1", http.StatusOK, &run)
	if len(run.Params) != len(rec.Params) || run.Params[0].Name != "block_size_x" || len(run.Params[0].Labels) != len(rec.Params[0].Values) {
		t.Fatalf("run 1's parameters: %+v", run.Params)
	}
	var all Evaluations
	get(t, srv, "/api/runs/1/evaluations", http.StatusOK, &all)
	if len(all.Evaluations) != len(rec.Evaluations) {
		t.Fatalf("%d evaluations, the recording has %d", len(all.Evaluations), len(rec.Evaluations))
	}
	for i, e := range all.Evaluations {
		want := &rec.Evaluations[i]
		if e.Index != i || e.Status != want.Status.String() || !sameFloat(float64(e.Objective), want.Objective) {
			t.Fatalf("evaluation %d: %+v, want %s %g", i, e, want.Status, want.Objective)
		}
		for j, at := range e.At {
			if rec.Params[j].Values[at].String() != want.Config[j].String() {
				t.Fatalf("evaluation %d: at %v does not point at its configuration %v", i, e.At, want.Config)
			}
		}
	}
	var rest Evaluations
	get(t, srv, "/api/runs/1/evaluations?after=6760", http.StatusOK, &rest)
	if len(rest.Evaluations) != 8 || rest.Evaluations[0].Index != 6760 || rest.After != 6760 || rest.Run.Evaluations != 6768 {
		t.Errorf("after 6760: %d evaluations from %d, run %+v", len(rest.Evaluations), rest.Evaluations[0].Index, rest.Run)
	}
	var none Evaluations
	get(t, srv, "/api/runs/1/evaluations?after=9999", http.StatusOK, &none)
	if len(none.Evaluations) != 0 || none.Run.Evaluations != 6768 {
		t.Errorf("after 9999: %d evaluations, run %+v", len(none.Evaluations), none.Run)
	}
}

// convolutionRun creates in st a tuning run of the convolution recording's kernel on its
// device, with the seed given and no evaluations yet, as 'ktune tune' creates one before
// it measures; it returns the run's id and the recording, whose evaluations a test may add.
func convolutionRun(t testing.TB, st store.Store, seed uint64) (int64, *result.Recording) {
	t.Helper()
	ctx := context.Background()
	rec := read(t, convolution)
	dev, err := st.PutDevice(ctx, store.Device{Name: rec.Device, Backend: "opencl"})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := st.PutSpace(ctx, store.Space{Kernel: rec.Kernel, Params: rec.Params})
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateRun(ctx, store.RunInfo{SpaceID: sp, DeviceID: dev, Kind: store.KindTuning, Strategy: "random", Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return id, rec
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// A run being tuned grows while the dashboard serves it: what is appended to the store
// shows up in the next fetch after those read, and the run's status follows the tuning.
func TestALiveRunsNewEvaluationsShowUpInTheNextFetch(t *testing.T) {
	ctx := context.Background()
	st, db := imported(t)
	id, rec := convolutionRun(t, st, 3)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	path := fmt.Sprintf("/api/runs/%d/evaluations", id)

	var got Evaluations
	get(t, srv, path+"?after=0", http.StatusOK, &got)
	if len(got.Evaluations) != 0 || got.Run.Status != "running" || got.Run.Best != nil {
		t.Fatalf("a run without evaluations: %+v", got)
	}
	read := 0
	// as on two devices: each evaluation names the one that measured it
	device := func(i int) string { return fmt.Sprintf("opencl:%d", i%2) }
	for _, batch := range []int{5, 1, 30} {
		for i, e := range rec.Evaluations[read : read+batch] {
			e.Device = device(read + i)
			if err := st.AddEvaluation(ctx, id, e); err != nil {
				t.Fatal(err)
			}
		}
		var next Evaluations
		get(t, srv, fmt.Sprintf("%s?after=%d", path, read), http.StatusOK, &next)
		if len(next.Evaluations) != batch || next.Evaluations[0].Index != read || next.Run.Evaluations != read+batch {
			t.Fatalf("after %d with %d appended: %d evaluations from %d, the run counts %d",
				read, batch, len(next.Evaluations), next.Evaluations[0].Index, next.Run.Evaluations)
		}
		for _, e := range next.Evaluations {
			if e.Device != device(e.Index) {
				t.Fatalf("evaluation %d was measured on %s, the page is told %q", e.Index, device(e.Index), e.Device)
			}
		}
		read += batch
		sofar := &result.Recording{Params: rec.Params, Evaluations: rec.Evaluations[:read]}
		if best, ok := sofar.Best(); ok && (next.Run.Best == nil || *next.Run.Best != best.Objective) {
			t.Errorf("after %d evaluations the best is %v, want %g", read, next.Run.Best, best.Objective)
		}
	}
	// the analysis covers what is there now
	var a Analysis
	get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?params=block_size_x,tile_size_x", id), http.StatusOK, &a)
	if a.Evaluations != read {
		t.Errorf("the analysis covers %d evaluations, the run has %d", a.Evaluations, read)
	}
	if err := st.FinishRun(ctx, id, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	get(t, srv, fmt.Sprintf("%s?after=%d", path, read), http.StatusOK, &got)
	if got.Run.Status != "finished" || len(got.Evaluations) != 0 {
		t.Errorf("finished: %+v", got.Run)
	}
}

func TestFiltersSelectTheEvaluationsAnalysed(t *testing.T) {
	st, db := imported(t, convolution)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	rec := read(t, convolution)
	readOnly, ok, okReadOnlySmallTiles := 0, 0, 0
	for _, e := range rec.Evaluations {
		if e.Config[4].Int() == 1 {
			readOnly++
		}
		if e.Status == result.OK {
			ok++
			if e.Config[4].Int() == 1 && e.Config[5].Int() <= 2 {
				okReadOnlySmallTiles++
			}
		}
	}
	cases := []struct {
		query string
		want  int
	}{
		{"", len(rec.Evaluations)},
		{"keep=read_only=1", readOnly},
		{"status=ok", ok},
		{"status=ok&keep=read_only=1&keep=tile_size_x=1&keep=tile_size_x=2", okReadOnlySmallTiles},
	}
	for _, c := range cases {
		var a Analysis
		get(t, srv, "/api/runs/1/analysis?params=block_size_y,tile_size_x&"+c.query, http.StatusOK, &a)
		if a.Evaluations != c.want {
			t.Errorf("%s: %d evaluations analysed, want %d", c.query, a.Evaluations, c.want)
		}
		if len(a.Significance) != 2 || a.Significance[0].Param != "block_size_y" || a.Significance[1].Param != "tile_size_x" ||
			a.Sobol == nil || len(a.Sobol.First) != 2 {
			t.Errorf("%s: the analysis is not of the two parameters selected: %+v", c.query, a)
		}
	}
	// a filter narrows the value lists, so that a full product stays one: the indices of
	// a product are exact (here of 4 x 2 x 2 configurations: the restrictions allow
	// blocks of 64 threads or more)
	var a Analysis
	get(t, srv, "/api/runs/1/analysis?params=block_size_x&keep=block_size_y=1&keep=tile_size_x=1&keep=tile_size_y=1"+
		"&keep=block_size_x=64&keep=block_size_x=96&keep=block_size_x=112&keep=block_size_x=128", http.StatusOK, &a)
	if a.Evaluations != 16 {
		t.Errorf("%d evaluations of one block_size_y and tile sizes, want 16", a.Evaluations)
	}
	if a.Sobol == nil || a.Sobol.Method != "exact" {
		t.Errorf("the ok configurations of one block_size_y and tile sizes: %+v", a.Sobol)
	}
}

// twoDevices stores the convolution run as measured on two devices, as 'ktune tune
// --device opencl:0,opencl:1' stores one: each evaluation names the device that measured
// it, by turns, but for those refused before any device compiled them (every tenth
// failed one here), which name none. It returns the run's id and its evaluations.
func twoDevices(t testing.TB, st store.Store) (int64, []result.Evaluation) {
	t.Helper()
	ctx := context.Background()
	id, rec := convolutionRun(t, st, 5)
	es := make([]result.Evaluation, len(rec.Evaluations))
	copy(es, rec.Evaluations)
	for i := range es {
		es[i].Device = fmt.Sprintf("opencl:%d", i%2)
		if es[i].Status != result.OK && i%10 == 0 {
			es[i].Device = ""
		}
	}
	if err := st.AddEvaluations(ctx, id, es); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, store.StatusFinished); err != nil {
		t.Fatal(err)
	}
	return id, es
}

// The device filter keeps the evaluations of the devices named (NoDevice for those no
// device measured), alone or with the other filters, for the analysis.
func TestTheDeviceFilterSelectsTheEvaluationsAnalysed(t *testing.T) {
	st, db := imported(t, convolution)
	id, es := twoDevices(t, st)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	count := func(keep func(e *result.Evaluation) bool) int {
		n := 0
		for i := range es {
			if keep(&es[i]) {
				n++
			}
		}
		return n
	}
	on := func(devices ...string) func(e *result.Evaluation) bool {
		return func(e *result.Evaluation) bool { return slices.Contains(devices, e.Device) }
	}
	zero, one, none := count(on("opencl:0")), count(on("opencl:1")), count(on(""))
	if zero == 0 || one == 0 || none == 0 || zero+one+none != len(es) {
		t.Fatalf("the test's run: %d on opencl:0, %d on opencl:1, %d on none, of %d", zero, one, none, len(es))
	}
	okOnOne := count(func(e *result.Evaluation) bool { return e.Device == "opencl:1" && e.Status == result.OK })
	okOnOneReadOnly := count(func(e *result.Evaluation) bool {
		return e.Device == "opencl:1" && e.Status == result.OK && e.Config[4].Int() == 1
	})
	cases := []struct {
		query string
		want  int
	}{
		{"", len(es)},
		{"device=opencl:0", zero},
		{"device=opencl:1", one},
		{"device=opencl:0,opencl:1", zero + one},
		{"device=opencl:0&device=-", zero + none},
		{"device=opencl:1&status=ok", okOnOne},
		{"device=opencl:1&status=ok&keep=read_only=1", okOnOneReadOnly},
	}
	var first Analysis
	for _, c := range cases {
		var a Analysis
		get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?params=block_size_x,tile_size_x&%s", id, c.query), http.StatusOK, &a)
		if a.Evaluations != c.want {
			t.Errorf("%s: %d evaluations analysed, want %d", c.query, a.Evaluations, c.want)
		}
		if len(a.Significance) != 2 {
			t.Errorf("%s: the significance of %d parameters, want 2", c.query, len(a.Significance))
		}
		if c.query == "" {
			first = a
		} else if c.query == "device=opencl:1" && a.Significance[0].N == first.Significance[0].N {
			t.Errorf("%s: the significance is over %d configurations, as without the filter", c.query, a.Significance[0].N)
		}
	}
	// the analysis of one device's evaluations is that of a run of those alone
	var sub []result.Evaluation
	for _, e := range es {
		if e.Device == "opencl:1" {
			sub = append(sub, e)
		}
	}
	rec := read(t, convolution)
	want, err := Analyze(context.Background(), "opencl:1", &result.Recording{Params: rec.Params, Objective: rec.Objective, Evaluations: sub}, nil,
		Selection{Params: []string{"block_size_x", "tile_size_x"}})
	if err != nil {
		t.Fatal(err)
	}
	var got Analysis
	get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?params=block_size_x,tile_size_x&device=opencl:1", id), http.StatusOK, &got)
	for i := range want.Significance {
		if g, w := got.Significance[i], want.Significance[i]; g.N != w.N || !sameFloat(g.Pearson, w.Pearson) {
			t.Errorf("%s on opencl:1: pearson %g over %d, want %g over %d", w.Param, g.Pearson, g.N, w.Pearson, w.N)
		}
	}

	// the imported run has no devices: each of its evaluations is one no device measured
	var a Analysis
	get(t, srv, "/api/runs/1/analysis?params=block_size_x&device=-", http.StatusOK, &a)
	if a.Evaluations != len(es) {
		t.Errorf("device=- over an import: %d evaluations analysed, want all %d", a.Evaluations, len(es))
	}
	for _, c := range []struct{ path, want string }{
		{fmt.Sprintf("/api/runs/%d/analysis?device=opencl:2", id), "no evaluation of the run was measured on opencl:2 (its devices: -, opencl:0, opencl:1;"},
		{"/api/runs/1/analysis?device=opencl:0", "measured on opencl:0 (its devices: -;"},
		{fmt.Sprintf("/api/runs/%d/analysis?device=opencl:0,", id), "device=opencl:0,: an empty device name"},
	} {
		if msg := get(t, srv, c.path, http.StatusBadRequest, nil); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.path, msg, c.want)
		}
	}
	if msg := get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?device=-&status=ok", id), http.StatusUnprocessableEntity, nil); !strings.Contains(msg, "show more values, statuses or devices") {
		t.Errorf("the ok evaluations of no device: %q", msg)
	}
}

func TestBadRequestsSayWhatIsWrong(t *testing.T) {
	st, db := imported(t, convolution, timeEnergy)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	cases := []struct {
		path string
		code int
		want string
	}{
		{"/api/runs/7", http.StatusNotFound, "holds no run 7: it holds 2 runs, ids 1 to 2"},
		{"/api/runs/7/evaluations", http.StatusNotFound, "holds no run 7"},
		{"/api/runs/x/analysis", http.StatusBadRequest, `run id "x": not a number`},
		{"/api/runs/1/evaluations?after=-3", http.StatusBadRequest, "after=\"-3\": want the number of evaluations"},
		{"/api/runs/1/analysis?params=", http.StatusBadRequest, "select at least one parameter"},
		{"/api/runs/1/analysis?params=block_size_x,blocksize_y", http.StatusBadRequest, `no parameter "blocksize_y" (it has block_size_x, block_size_y`},
		{"/api/runs/1/analysis?keep=read_only=2", http.StatusBadRequest, `read_only takes no value "2" (its values: 0, 1)`},
		{"/api/runs/1/analysis?keep=read_only", http.StatusBadRequest, "want keep=PARAMETER=VALUE"},
		{"/api/runs/1/analysis?status=fine", http.StatusBadRequest, `no status "fine" (the statuses: ok, found_wrong, restricted, compile_error`},
		{"/api/runs/1/analysis?status=none", http.StatusBadRequest,
			`status=none: no status "none" (the statuses: ok, found_wrong, restricted, compile_error, runtime_error, timeout, wrong_answer, device_limit; name those to keep, or leave status out for all)`},
		{"/api/runs/1/analysis?status=ok,", http.StatusBadRequest, "status=ok,: an empty status (name the statuses to keep, of ok, found_wrong, restricted,"},
		{"/api/runs/1/analysis?objective=GFLOP/s", http.StatusUnprocessableEntity, `no objective or metric named "GFLOP/s" (have time)`},
		{"/api/runs/1/analysis?status=compile_error", http.StatusUnprocessableEntity, "none of the 1426 configurations has a value for time"},
		{"/api/runs/1/analysis?keep=read_only=1&status=timeout", http.StatusUnprocessableEntity, "no evaluation passes the filters (of 6768)"},
		{"/api/nothing", http.StatusNotFound, "no page /api/nothing here"},
	}
	for _, c := range cases {
		if msg := get(t, srv, c.path, c.code, nil); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.path, msg, c.want)
		}
	}
	// the view of a run that is not there says so too
	resp, err := http.Get(srv.URL + "/runs/12")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "holds no run 12") {
		t.Errorf("/runs/12: %d %s", resp.StatusCode, body)
	}
}

// A recording read from a file is served as run 0, with no database.
func TestARecordingIsServedAsRunZero(t *testing.T) {
	rec := read(t, timeEnergy)
	srv := httptest.NewServer(NewRecording(rec, "time_energy"))
	defer srv.Close()
	var runs []Run
	get(t, srv, "/api/runs", http.StatusOK, &runs)
	if len(runs) != 1 || runs[0].ID != RecordingID || runs[0].Kind != "file" || runs[0].Evaluations != 15 {
		t.Fatalf("%+v", runs)
	}
	var es Evaluations
	get(t, srv, "/api/runs/0/evaluations?after=10", http.StatusOK, &es)
	if len(es.Evaluations) != 5 || !es.Metrics["GFLOPS/W"] || es.Metrics["energy"] {
		t.Errorf("after 10: %d evaluations, metrics %v (GFLOPS/W higher is better, energy lower)", len(es.Evaluations), es.Metrics)
	}
	get(t, srv, "/api/runs/0/evaluations?after=99", http.StatusOK, &es)
	if len(es.Evaluations) != 0 || es.Run.Evaluations != 15 {
		t.Errorf("after 99 of 15: %d evaluations, run %+v", len(es.Evaluations), es.Run)
	}
	var a Analysis
	get(t, srv, "/api/runs/0/analysis?objective=energy&params=block_size_x", http.StatusOK, &a)
	if a.Objective != "energy" || len(a.Significance) != 1 || a.Sobol == nil {
		t.Errorf("energy: %+v", a)
	}
	if msg := get(t, srv, "/api/runs/1", http.StatusNotFound, nil); !strings.Contains(msg, "shows one recording, time_energy, as run 0") {
		t.Errorf("run 1 of a recording: %s", msg)
	}
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `data-api="/api/runs/0"`) {
		t.Errorf("/ of a recording is not its view:\n%.500s", page)
	}
}

func TestListenSaysAPortInUseIsInUse(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Listen(l.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "the port is in use") || !strings.Contains(err.Error(), "port 0 for any free one") {
		t.Errorf("a second listener on %s: %v", l.Addr(), err)
	}
	for _, bad := range []string{"8080", "localhost"} {
		if _, err := Listen(bad); err == nil || !strings.Contains(err.Error(), "want HOST:PORT") {
			t.Errorf("Listen(%q): %v", bad, err)
		}
	}
	u := URL(&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "/runs/3")
	if _, err := url.Parse(u); err != nil || u != "http://localhost:8080/runs/3" {
		t.Errorf("the address of 0.0.0.0:8080 is %s", u)
	}
}

// An analysis of a filtered selection says how many of the run's evaluations match the
// filters, not that the run evaluated only those, and gives the run's evaluations and
// the configurations of its space.
func TestAFilteredAnalysisCountsTheRunsEvaluations(t *testing.T) {
	st, db := imported(t, convolution)
	id, es := twoDevices(t, st)
	srv := httptest.NewServer(NewStore(st, db))
	defer srv.Close()
	size := 1
	for _, p := range read(t, convolution).Params {
		size *= len(p.Values)
	}
	if size <= len(es) {
		t.Fatalf("the test's run evaluates %d of %d configurations: it should evaluate part of its space", len(es), size)
	}
	one := 0
	for _, e := range es {
		if e.Device == "opencl:1" {
			one++
		}
	}

	var all Analysis
	get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?params=block_size_x", id), http.StatusOK, &all)
	if all.Evaluations != len(es) || all.RunEvaluations != len(es) || all.Configurations != size {
		t.Errorf("unfiltered: %d evaluations of the run's %d, %d configurations; want %d of %d, %d", all.Evaluations, all.RunEvaluations, all.Configurations, len(es), len(es), size)
	}
	if w := fmt.Sprintf("the run evaluated %d of the %d configurations of its space", len(es), size); !slices.ContainsFunc(all.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
		t.Errorf("unfiltered, the warnings %q do not say %q", all.Warnings, w)
	}

	for _, q := range []string{"device=opencl:1", "device=opencl:1&keep=read_only=0&keep=read_only=1"} {
		var a Analysis
		get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?params=block_size_x&%s", id, q), http.StatusOK, &a)
		if a.Evaluations != one || a.RunEvaluations != len(es) || a.Configurations != size {
			t.Errorf("%s: %d evaluations of the run's %d, %d configurations; want %d of %d, %d", q, a.Evaluations, a.RunEvaluations, a.Configurations, one, len(es), size)
		}
		want := fmt.Sprintf("%d of the run's %d evaluations match the filters, %d distinct configurations of the %d in its space: the indices are estimated from them", one, len(es), one, size)
		if !slices.Contains(a.Warnings, want) {
			t.Errorf("%s: the warnings %q do not say %q", q, a.Warnings, want)
		}
		for _, w := range a.Warnings {
			if strings.HasPrefix(w, "the run evaluated") {
				t.Errorf("%s: a filtered analysis warns %q", q, w)
			}
		}
	}
}

// A success of a configuration found wrong in the run (a wrong_answer evaluation stored
// after it, as a check after dynamic tuning stores one) is none: /api/runs and the list
// of runs count it apart, as found wrong, for a stored run and for a recording served as
// run 0 alike, and the best is the runner-up's. A run whose one success was found wrong
// failed.
func TestRunsCountASuccessFoundWrongApart(t *testing.T) {
	st, db := imported(t, convolution)
	rec := read(t, convolution)
	total, ok := rec.Counts()
	fastest, _ := rec.Best()
	found := result.Evaluation{Config: fastest.Config, Status: result.WrongAnswer, Objective: math.NaN(),
		Message: "found wrong by a check on call 4, after tuning (against the reference)"}
	if err := st.AddEvaluation(context.Background(), 1, found); err != nil {
		t.Fatal(err)
	}
	rec.Evaluations = append(rec.Evaluations, found)
	next, _ := rec.Best()
	stored := httptest.NewServer(NewStore(st, db))
	defer stored.Close()
	file := httptest.NewServer(NewRecording(rec, "convolution"))
	defer file.Close()
	for _, srv := range []*httptest.Server{stored, file} {
		var runs []Run
		get(t, srv, "/api/runs", http.StatusOK, &runs)
		if len(runs) != 1 {
			t.Fatalf("%d runs, want 1", len(runs))
		}
		r := runs[0]
		best := math.NaN()
		if r.Best != nil {
			best = *r.Best
		}
		if r.Evaluations != total+1 || r.Succeeded != ok-1 || r.FoundWrong != 1 || r.Failed || best != next.Objective {
			t.Errorf("run %d: %d evaluations, %d ok, %d found wrong, failed %v, best %g; want %d, %d, 1, false, %g (the runner-up; the fastest, %g, was found wrong)",
				r.ID, r.Evaluations, r.Succeeded, r.FoundWrong, r.Failed, best, total+1, ok-1, next.Objective, fastest.Objective)
		}
		// the analysis's status filter keeps it apart too: ok leaves it out, found_wrong
		// keeps it, as the page's status filter does
		others := slices.DeleteFunc(statusNames(), func(s string) bool { return s == FoundWrongStatus })
		for _, c := range []struct {
			status string
			want   int
		}{
			{"ok", ok - 1},
			{"ok,found_wrong", ok},
			{strings.Join(others, ","), total},
			{strings.Join(others, ",") + ",found_wrong", total + 1},
		} {
			var a Analysis
			get(t, srv, fmt.Sprintf("/api/runs/%d/analysis?status=%s", r.ID, c.status), http.StatusOK, &a)
			if a.Evaluations != c.want || a.RunEvaluations != total+1 {
				t.Errorf("run %d, status=%s: the analysis covers %d of %d evaluations, want %d of %d", r.ID, c.status, a.Evaluations, a.RunEvaluations, c.want, total+1)
			}
		}
	}
	resp, err := http.Get(stored.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "6769 (5255 ok, 1 found wrong)"; !strings.Contains(string(page), want) {
		t.Errorf("the list of runs lacks %s", want)
	}

	one := &result.Recording{Params: rec.Params, Objective: "time", Evaluations: []result.Evaluation{fastest, found}}
	srv := httptest.NewServer(NewRecording(one, "one"))
	defer srv.Close()
	var runs []Run
	get(t, srv, "/api/runs", http.StatusOK, &runs)
	if r := runs[0]; r.Succeeded != 0 || r.FoundWrong != 1 || !r.Failed {
		t.Errorf("a recording whose one success was found wrong: %d ok, %d found wrong, failed %v; want 0, 1, true", r.Succeeded, r.FoundWrong, r.Failed)
	}
}
