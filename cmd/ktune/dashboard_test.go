package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/dashboard"
	"github.com/ktune/ktune/sensitivity"
)

const kernelTunerConvolution = "../../testdata/benchmark_hub/kerneltuner_convolution/RTX_2080_Ti.json.gz"

// The dashboard's analysis of an objective and a subset of the parameters is what
// 'ktune analyze --json' prints for the same run.
func TestDashboardAnalysisMatchesAnalyze(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := ktune(t, "import", "--db", db, kernelTunerConvolution, "../../testdata/kernel_tuner/time_energy.json"); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	st, err := openStoredRun(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(dashboard.NewStore(st, db))
	defer srv.Close()
	for _, c := range []struct{ run, objective, params string }{
		{"1", "time", "block_size_x,tile_size_x,use_padding"},
		{"1", "time", "read_only"},
		{"2", "energy", "block_size_x"},
		{"2", "GFLOPS/W", "block_size_x,nvml_gr_clock"},
	} {
		out, stderr, code := ktune(t, "analyze", "--db", db, "--run", c.run, "--objective", c.objective, "--params", c.params,
			"--landscape=false", "--second-order=false", "--json")
		if code != 0 {
			t.Fatalf("analyze: %s", stderr)
		}
		var want struct {
			Results []struct {
				Objective    string                    `json:"objective"`
				Valid        int                       `json:"valid"`
				Significance []sensitivity.Correlation `json:"significance"`
				Sobol        *sensitivity.Sobol        `json:"sobol"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &want); err != nil || len(want.Results) != 1 {
			t.Fatalf("analyze --json: %v: %s", err, out)
		}
		w := want.Results[0]
		resp, err := http.Get(srv.URL + "/api/runs/" + c.run + "/analysis?objective=" + c.objective + "&params=" + c.params)
		if err != nil {
			t.Fatal(err)
		}
		var got dashboard.Analysis
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, %v", c, resp.StatusCode, err)
		}
		if got.Objective != w.Objective || got.Valid != w.Valid {
			t.Errorf("%v: objective %s over %d, analyze %s over %d", c, got.Objective, got.Valid, w.Objective, w.Valid)
		}
		params := strings.Split(c.params, ",")
		if len(got.Significance) != len(params) {
			t.Fatalf("%v: %d correlations for %d parameters", c, len(got.Significance), len(params))
		}
		for i, p := range params {
			var wc *sensitivity.Correlation
			for j := range w.Significance {
				if w.Significance[j].Param == p {
					wc = &w.Significance[j]
				}
			}
			g := got.Significance[i]
			if wc == nil || g.Param != p || !same(g.Pearson, wc.Pearson) || !same(g.Spearman, wc.Spearman) || g.N != wc.N {
				t.Errorf("%v: %s's correlation %+v, analyze %+v", c, p, g, wc)
			}
		}
		if (got.Sobol == nil) != (w.Sobol == nil) {
			t.Fatalf("%v: Sobol indices %v, analyze %v", c, got.Sobol, w.Sobol)
		}
		if got.Sobol == nil {
			continue
		}
		if got.Sobol.Method != w.Sobol.Method || strings.Join(got.Sobol.Params, ",") != c.params {
			t.Errorf("%v: %s indices of %v, analyze %s of %v", c, got.Sobol.Method, got.Sobol.Params, w.Sobol.Method, w.Sobol.Params)
		}
		for i := range params {
			if !same(got.Sobol.First[i].Value, w.Sobol.First[i].Value) || !same(got.Sobol.Total[i].Value, w.Sobol.Total[i].Value) {
				t.Errorf("%v: %s's indices %v %v, analyze %v %v", c, params[i], got.Sobol.First[i], got.Sobol.Total[i], w.Sobol.First[i], w.Sobol.Total[i])
			}
		}
	}
}

func same(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// syncBuffer is standard output written by a server's goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve runs 'ktune dashboard args...' until the test ends it, and returns the address
// it printed and a function that stops it and returns its exit status and output.
func serve(t *testing.T, args ...string) (url string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"dashboard", "--addr", "127.0.0.1:0"}, args...), &out, &errb) }()
	stop = func() (int, string) {
		cancel()
		select {
		case code := <-done:
			return code, out.String() + errb.String()
		case <-time.After(10 * time.Second):
			t.Fatal("the dashboard did not stop")
		}
		return 0, ""
	}
	re := regexp.MustCompile(`at (http://\S+) \(Ctrl-C stops it\)`)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) { // ends once it listens
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1], stop
		}
		select {
		case code := <-done:
			t.Fatalf("dashboard %v ended with %d: %s%s", args, code, out.String(), errb.String())
		default:
		}
	}
	code, text := stop()
	t.Fatalf("dashboard %v printed no address (exit %d): %s", args, code, text)
	return "", nil
}

func TestDashboardServesARunAFileAndTheList(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := ktune(t, "import", "--db", db, kernelTunerConvolution); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	for _, c := range []struct {
		args []string
		path string // what the printed address ends in
		runs int    // in /api/runs
	}{
		{[]string{"--db", db}, "/", 1},
		{[]string{"--db", db, "1"}, "/runs/1", 1},
		{[]string{"--db", db, "--run", "1"}, "/runs/1", 1},
		{[]string{kernelTunerConvolution}, "/", 1}, // no database needed
	} {
		url, stop := serve(t, c.args...)
		if !strings.HasSuffix(url, c.path) || !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Errorf("%v: serves at %s, want ...%s", c.args, url, c.path)
		}
		base := strings.TrimSuffix(strings.TrimSuffix(url, c.path), "/")
		resp, err := http.Get(base + "/api/runs")
		if err != nil {
			t.Fatal(err)
		}
		var runs []dashboard.Run
		err = json.NewDecoder(resp.Body).Decode(&runs)
		resp.Body.Close()
		if err != nil || len(runs) != c.runs || runs[0].Evaluations != 6768 {
			t.Errorf("%v: /api/runs: %v %+v", c.args, err, runs)
		}
		code, out := stop()
		if code != 0 || !strings.Contains(out, "ktune dashboard: stopped") {
			t.Errorf("%v: stopped with %d: %s", c.args, code, out)
		}
	}
}

func TestDashboardRefusesWhatItCannotServe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, stderr, code := ktune(t, "import", "--db", db, "../../testdata/kernel_tuner/time_energy.json"); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	corrupt := filepath.Join(dir, "corrupt.json")
	if err := os.WriteFile(corrupt, []byte(`{"tune_params": {"x": [1, 2]}, "cache": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--db", db, "9"}, 1, "holds no run 9: it holds run 1"},
		{[]string{"--db", filepath.Join(dir, "none.db")}, 1, "no results database at " + filepath.Join(dir, "none.db")},
		{[]string{corrupt}, 1, corrupt},
		{[]string{"--db", db, "--addr", busy.Addr().String()}, 1, "--addr " + busy.Addr().String() + ": the port is in use"},
		{[]string{"--db", db, "--addr", "8080"}, 1, "--addr 8080: want HOST:PORT"},
		{[]string{"--db", db, "--run", "x"}, 2, `--run "x": not a run id`},
		{[]string{"--db", db, "1", "2"}, 2, "at most one run id or recorded file"},
		{[]string{"-"}, 2, "- (standard input) is not read"},
	} {
		// a command that serves instead of refusing is stopped, and fails the test
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var out, errb syncBuffer
		code := run(ctx, append([]string{"dashboard"}, c.args...), &out, &errb)
		cancel()
		stderr := errb.String()
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("dashboard %v: exit %d, %q; want %d saying %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("a database was created where none was")
	}
}

// The dashboard of a run tuned on two PoCL devices filters it by device: the analysis of
// one device's evaluations covers those the evaluations endpoint says it measured, and a
// device the run has not is refused, naming those it has.
func TestDashboardFiltersARunOnTwoDevicesByDevice(t *testing.T) {
	needBackend(t, "opencl")
	db := filepath.Join(t.TempDir(), "k.db")
	// PoCL reads POCL_DEVICES once per process: two CPU devices need a process of their own
	cmd := exec.Command(os.Args[0], "tune", "../../examples/vector_add/vector_add_opencl.yaml", "--device", "opencl:0,opencl:1",
		"--strategy", "random", "--seed", "4", "--budget", "12", "--no-precompile", "--db", db)
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1", "POCL_DEVICES=pthread pthread")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tune on two devices: %v\n%s", err, out)
	}
	url, stop := serve(t, "--db", db, "1")
	defer stop()
	base := strings.TrimSuffix(url, "/runs/1")
	getJSON := func(path string, want int, v any) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("GET %s: status %d, want %d", path, resp.StatusCode, want)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var es dashboard.Evaluations
	getJSON("/api/runs/1/evaluations?after=0", http.StatusOK, &es)
	measured := map[string]int{}
	for _, e := range es.Evaluations {
		measured[e.Device]++
	}
	if len(es.Evaluations) != 12 || measured["opencl:0"] == 0 || measured["opencl:1"] == 0 || measured["opencl:0"]+measured["opencl:1"] != 12 {
		t.Fatalf("the run's evaluations by device: %v, want 12 on opencl:0 and opencl:1", measured)
	}
	for _, d := range []string{"opencl:0", "opencl:1"} {
		var a dashboard.Analysis
		getJSON("/api/runs/1/analysis?device="+d, http.StatusOK, &a)
		if a.Evaluations != measured[d] {
			t.Errorf("the analysis of %s covers %d evaluations, it measured %d", d, a.Evaluations, measured[d])
		}
	}
	var refused struct{ Error string }
	getJSON("/api/runs/1/analysis?device=opencl:2", http.StatusBadRequest, &refused)
	if !strings.Contains(refused.Error, "its devices: opencl:0, opencl:1") {
		t.Errorf("device=opencl:2 is refused with %q, which does not name the run's devices", refused.Error)
	}
}
