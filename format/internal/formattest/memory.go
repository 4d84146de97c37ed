package formattest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// Synthetic returns a recording of n distinct configurations of 12 parameters, about 16%
// of them failed, each with timings, 7 samples, a metric and a timestamp: the shape of the
// scale QA's synthetic caches, for tests of what reading a large file holds.
func Synthetic(n int) *result.Recording {
	rng := rand.New(rand.NewPCG(1, 2))
	rec := &result.Recording{Device: "Synthetic GPU", Kernel: "synth", ProblemSize: "[4096,4096]", Objective: "time"}
	size := 1
	for i := range 12 {
		k := 3
		if i < 4 {
			k = 4
		}
		p := space.Param{Name: fmt.Sprintf("p%d", i)}
		for j := range k {
			p.Values = append(p.Values, space.IntValue(int64((i+1)<<j)))
		}
		rec.Params = append(rec.Params, p)
		size *= k
	}
	if n > size {
		panic("formattest: Synthetic of more configurations than its space has")
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for e := range n {
		ev := result.Evaluation{Config: make([]space.Value, len(rec.Params)), Status: result.OK,
			CompileMS: 100 + 900*rng.Float64(), VerifyMS: 0, FrameworkMS: rng.Float64(), StrategyMS: 0,
			Time: start.Add(time.Duration(e) * 1001 * time.Millisecond)}
		idx := e * 7919 % size // a prime stride visits each configuration once
		for i, p := range rec.Params {
			ev.Config[i] = p.Values[idx%len(p.Values)]
			idx /= len(p.Values)
		}
		if rng.Float64() < 0.16 {
			ev.Status = []result.Status{result.CompileError, result.RuntimeError, result.Restricted}[rng.IntN(3)]
			ev.Objective, ev.BenchmarkMS = math.NaN(), math.NaN()
		} else {
			t := 0.5 + 10*rng.Float64()
			for range 7 {
				ev.Samples = append(ev.Samples, t*(0.95+0.1*rng.Float64()))
			}
			ev.Objective, ev.BenchmarkMS = t, 7*t
			ev.Metrics = map[string]float64{"GFLOP/s": 1000 / t}
		}
		rec.Evaluations = append(rec.Evaluations, ev)
	}
	return rec
}

// PeakLiveHeap runs f with the garbage collector collecting after every 5% of growth,
// and returns the most the heap held live at the end of a collection while f ran (its
// largest sample), beyond what it held before f, and what it held after f beyond that.
// Only a lower bound of the true peak: a test asserts that it stays below a bound, which
// a missed sample cannot make it fail.
func PeakLiveHeap(f func()) (peak, after int64) {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	base := live()
	var most int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			most = max(most, live())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	f()
	runtime.GC()
	close(stop)
	wg.Wait()
	return max(most, live()) - base, live() - base
}

// ReadHolds writes Synthetic(n) with write into a file, reads it back as ktune reads a
// file (format.Open, into a buffer of its size), and fails t when reading held more than
// perEval bytes an evaluation at its peak beyond the file's bytes and the recording read
// (what is still held after reading), or read fewer than minEvals evaluations (a format
// that leaves out what it cannot write, such as KTT's restricted configurations, reads
// fewer than n). It is the test of a reader that makes each entry an evaluation as it goes,
// where one that held every decoded entry until the end let the heap grow to several
// times the file.
func ReadHolds(t testing.TB, write func(io.Writer, *result.Recording) error, n, minEvals, perEval int) {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, Synthetic(n)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "large.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(b.Len())
	b = bytes.Buffer{}
	var rec *result.Recording
	var err error
	peak, kept := PeakLiveHeap(func() {
		rec, err = format.Open(path)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Evaluations) < minEvals {
		t.Fatalf("%d evaluations of %d, want at least %d", len(rec.Evaluations), n, minEvals)
	}
	if extra := peak - size - kept; extra > int64(n*perEval) {
		t.Errorf("reading a file of %d bytes and %d entries held %d bytes at most, %d beyond the file's bytes and the %d of the recording (%d an entry, want at most %d)",
			size, n, peak, extra, kept, extra/int64(n), perEval)
	} else {
		t.Logf("file %d bytes, peak live %d, recording %d, beyond both %d (%d an entry)", size, peak, kept, extra, extra/int64(n))
	}
}
