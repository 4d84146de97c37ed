package efficiency

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/store"
)

func TestSourceSaysWhereAPeakCameFrom(t *testing.T) {
	for _, tc := range []struct {
		s    Source
		want string
	}{
		{Source{}, "given"},
		{Source{From: FromGiven}, "given"},
		{Source{From: FromFlag, Flag: "--peak-gbs"}, "given: --peak-gbs"},
		{Source{From: FromFile, File: "/tmp/peaks.yaml", Device: "opencl:1"}, `given: peaks file /tmp/peaks.yaml, device "opencl:1"`},
		{Source{From: FromDerived, How: "2 (DDR) x 1250 MHz x 64-bit bus"}, "derived: 2 (DDR) x 1250 MHz x 64-bit bus"},
		{Source{From: FromDerived}, "derived"},
		{Source{From: FromFlag, Flag: "--peak-gflops", Run: 7}, "stored with run 7: given: --peak-gflops"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

// storedRun is a run whose settings keep s as a tune stores it, beside other settings.
func storedRun(t *testing.T, id int64, s *Stored) store.RunInfo {
	t.Helper()
	settings, err := json.Marshal(map[string]any{"budget": 4, "device_index": 1, SettingsKey: s})
	if err != nil {
		t.Fatal(err)
	}
	return store.RunInfo{ID: id, Settings: settings}
}

// The peaks a tune resolved are stored figure by figure and read back as given peaks
// that say the run stored them, and where they came from first: a flag's, a file's and a
// derived one's.
func TestStoredPeaksReadBackWithTheirSources(t *testing.T) {
	derived := &device.Peak{}
	derived.Derive("float32", 1200, "10 CUs x 64 lanes x 2 (FMA) x 0.938 GHz")
	derived.Lack(device.MemoryFigure, "OpenCL reports no memory bandwidth")
	flags := Given{GBs: 25.6, GBsSource: Source{From: FromFlag, Flag: "--peak-gbs"}}
	tuned := Resolve(derived, "float32", flags)
	s := tuned.ToStore()
	if s == nil || s.GBs == nil || s.GFLOPS == nil {
		t.Fatalf("stored %+v, want both figures", s)
	}
	if *s.GBs != (Figure{Value: 25.6, Unit: "GB/s", Source: Source{From: FromFlag, Flag: "--peak-gbs"}}) {
		t.Errorf("stored memory peak %+v", *s.GBs)
	}
	if *s.GFLOPS != (Figure{Value: 1200, Unit: "GFLOP/s", Source: Source{From: FromDerived, How: "10 CUs x 64 lanes x 2 (FMA) x 0.938 GHz"}}) {
		t.Errorf("stored arithmetic peak %+v", *s.GFLOPS)
	}

	back, err := StoredOf(storedRun(t, 3, s))
	if err != nil || back == nil {
		t.Fatalf("StoredOf = %+v, %v", back, err)
	}
	// a report of run 3, given nothing, on a device whose backend now derives nothing
	p := Resolve(nil, "float32", Given{}.Or(back.Given("float32", 3)))
	if p.GBs != 25.6 || p.GBsFrom != "stored with run 3: given: --peak-gbs" {
		t.Errorf("memory peak %v (%s)", p.GBs, p.GBsFrom)
	}
	if p.GFLOPS != 1200 || p.GFLOPSFrom != "stored with run 3: derived: 10 CUs x 64 lanes x 2 (FMA) x 0.938 GHz" {
		t.Errorf("arithmetic peak %v (%s)", p.GFLOPS, p.GFLOPSFrom)
	}
	if p.GBsSource == nil || p.GBsSource.From != FromFlag || p.GBsSource.Run != 3 {
		t.Errorf("memory peak's source %+v", p.GBsSource)
	}
	// a flag given to the report wins over the stored figure; the other stays stored
	report := Given{GBs: 40, GBsSource: Source{From: FromFlag, Flag: "--peak-gbs"}}
	p = Resolve(derived, "float32", report.Or(back.Given("float32", 3)))
	if p.GBs != 40 || p.GBsFrom != "given: --peak-gbs" || p.GFLOPS != 1200 || !strings.HasPrefix(p.GFLOPSFrom, "stored with run 3: ") {
		t.Errorf("with --peak-gbs 40: %+v", p)
	}
	// stored again (a resumed run), a figure says where it came from first, not the run
	if again := p.ToStore(); again.GFLOPS.Source.Run != 0 || again.GFLOPS.Source.From != FromDerived {
		t.Errorf("stored again: %+v", again.GFLOPS)
	}
	// the arithmetic peak is of its precision only
	if g := back.Given("float64", 3); g.GFLOPS != 0 || g.GBs != 25.6 {
		t.Errorf("float64 from float32's stored peaks: %+v", g)
	}
}

func TestRunsWithoutStoredPeaksHaveNone(t *testing.T) {
	for _, settings := range []string{``, `{}`, `{"budget": 4}`, `{"peaks": null}`, `not json`} {
		s, err := StoredOf(store.RunInfo{ID: 2, Settings: json.RawMessage(settings)})
		if s != nil || err != nil {
			t.Errorf("settings %q: %+v, %v", settings, s, err)
		}
		if g := s.Given("float32", 2); g != (Given{}) {
			t.Errorf("a nil Stored gives %+v", g)
		}
	}
	if s := (Peaks{Precision: "float32"}).ToStore(); s != nil {
		t.Errorf("no figures stored as %+v", s)
	}
}

func TestDamagedStoredPeaksAreErrorsNamingTheRun(t *testing.T) {
	for _, peaks := range []string{
		`{"gbs": {"value": -3, "unit": "GB/s", "source": {"from": "flag"}}}`,
		`{"gbs": {"value": 3, "unit": "GFLOP/s", "source": {"from": "flag"}}}`,
		`{"gflops": "many"}`,
	} {
		_, err := StoredOf(store.RunInfo{ID: 9, Settings: json.RawMessage(`{"peaks": ` + peaks + `}`)})
		if err == nil || !strings.Contains(err.Error(), "run 9") || !strings.Contains(err.Error(), "--peak-gbs") {
			t.Errorf("stored peaks %s: %v", peaks, err)
		}
	}
}
