package efficiency

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ktune/ktune/store"
)

// SettingsKey is the run setting under which 'ktune tune' stores the peaks it used
// (Stored).
const SettingsKey = "peaks"

// Stored are the peaks a run was tuned against, as its settings keep them (SettingsKey):
// each figure with its value, its unit and where it came from, so that a report of the
// run measures efficiency against them without being given them again.
type Stored struct {
	// Precision is the arithmetic peak's: the essential operations' precision.
	Precision string  `json:"precision,omitempty"`
	GFLOPS    *Figure `json:"gflops,omitempty"` // the arithmetic peak; nil when unknown
	GBs       *Figure `json:"gbs,omitempty"`    // the memory peak; nil when unknown
}

// Figure is one stored peak.
type Figure struct {
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"` // "GFLOP/s" or "GB/s"
	Source Source  `json:"source"`
}

// Units of the stored figures.
const (
	UnitGFLOPS = "GFLOP/s"
	UnitGBs    = "GB/s"
)

// ToStore is what a run keeps of p: its known figures; nil when it knows none.
func (p Peaks) ToStore() *Stored {
	s := &Stored{Precision: p.Precision}
	figure := func(v float64, unit string, src *Source) *Figure {
		if !(v > 0) || src == nil {
			return nil
		}
		f := &Figure{Value: v, Unit: unit, Source: *src}
		f.Source.Run = 0 // where it came from first: a run that stores it is its run
		return f
	}
	s.GFLOPS = figure(p.GFLOPS, UnitGFLOPS, p.GFLOPSSource)
	s.GBs = figure(p.GBs, UnitGBs, p.GBsSource)
	if s.GFLOPS == nil && s.GBs == nil {
		return nil
	}
	return s
}

// StoredOf reads the peaks a run's settings keep: nil for a run stored without them (by a
// ktune before they were stored, an import, a spec without essential_ops). Its error names
// the run and what is wrong with them.
func StoredOf(info store.RunInfo) (*Stored, error) {
	var settings map[string]json.RawMessage
	if len(info.Settings) == 0 || json.Unmarshal(info.Settings, &settings) != nil {
		return nil, nil // no settings to read: the run has no stored peaks
	}
	raw, ok := settings[SettingsKey]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var s Stored
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("run %d's stored peaks (settings %q) cannot be read: %w; give the peaks with --peak-gbs and --peak-gflops, or --peaks", info.ID, SettingsKey, err)
	}
	for _, f := range []struct {
		name, unit string
		fig        *Figure
	}{{"gflops", UnitGFLOPS, s.GFLOPS}, {"gbs", UnitGBs, s.GBs}} {
		if f.fig == nil {
			continue
		}
		if !(f.fig.Value > 0) || math.IsInf(f.fig.Value, 0) || f.fig.Unit != f.unit {
			return nil, fmt.Errorf("run %d's stored %s peak is %v %s, not a positive number of %s; give the peaks with --peak-gbs and --peak-gflops, or --peaks", info.ID, f.name, f.fig.Value, f.fig.Unit, f.unit)
		}
	}
	return &s, nil
}

// Given is s as peaks given for precision, each saying it was stored with run: the
// arithmetic peak only where it is of precision. A nil s gives none.
func (s *Stored) Given(precision string, run int64) Given {
	var g Given
	if s == nil {
		return g
	}
	if s.GFLOPS != nil && s.Precision == precision {
		g.GFLOPS, g.GFLOPSSource = s.GFLOPS.Value, s.GFLOPS.Source
		g.GFLOPSSource.Run = run
	}
	if s.GBs != nil {
		g.GBs, g.GBsSource = s.GBs.Value, s.GBs.Source
		g.GBsSource.Run = run
	}
	return g
}
