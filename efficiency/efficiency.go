// Package efficiency measures a kernel against its device's peaks, as seed 003 (eq. 2)
// does:
//
//	efficiency = 100 · max((MEMops/time) / MEMpeak, (ALUops/time) / ALUpeak)
//
// where MEMops are the bytes and ALUops the floating-point operations the task
// essentially needs (a spec's essential_ops, seed 003's Table 4), time the kernel's, and
// MEMpeak and ALUpeak the device's memory bandwidth and arithmetic throughput in the
// kernel's precision. A peak is taken from the user or from what the device's backend
// derives (device.Peak), never guessed: where one that is needed is unknown, there is no
// efficiency, and the error says what to give.
package efficiency

import (
	"fmt"
	"math"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

// Ops are the operations a task essentially needs (spec.EssentialOps).
type Ops struct {
	Bytes     float64 `json:"bytes,omitempty"`     // MEMops: bytes moved
	Flops     float64 `json:"flops,omitempty"`     // ALUops: floating-point operations
	Precision string  `json:"precision,omitempty"` // of the flops: float32, float64, float16
	// Excluded says why the task has no efficiency against a peak; the rest is then 0.
	Excluded string `json:"excluded,omitempty"`
}

// Given are peaks the user supplies; they win over the derived ones. 0: not given.
type Given struct {
	GFLOPS float64 // arithmetic peak in GFLOP/s, for the kernel's precision
	GBs    float64 // memory peak in GB/s
	// GFLOPSSource and GBsSource say where a peak came from (a flag, a peaks file, a
	// run's stored peaks); the zero Source is "given".
	GFLOPSSource, GBsSource Source
}

// Or is g with the peaks it lacks taken from h, with their sources: g wins.
func (g Given) Or(h Given) Given {
	if g.GFLOPS <= 0 && h.GFLOPS > 0 {
		g.GFLOPS, g.GFLOPSSource = h.GFLOPS, h.GFLOPSSource
	}
	if g.GBs <= 0 && h.GBs > 0 {
		g.GBs, g.GBsSource = h.GBs, h.GBsSource
	}
	return g
}

// Peaks are the bounds of one kernel's efficiency, with where each came from.
type Peaks struct {
	Precision string  `json:"precision"`
	GFLOPS    float64 `json:"gflops,omitempty"`
	GBs       float64 `json:"gbs,omitempty"`
	// GFLOPSFrom and GBsFrom say in words where a peak came from (Source.String):
	// "given: --peak-gbs", "derived: how", "stored with run 3: given: --peak-gbs".
	GFLOPSFrom string `json:"gflops_from,omitempty"`
	GBsFrom    string `json:"gbs_from,omitempty"`
	// GFLOPSSource and GBsSource say it as a structure; nil where the peak is unknown.
	GFLOPSSource *Source `json:"gflops_source,omitempty"`
	GBsSource    *Source `json:"gbs_source,omitempty"`
	// Unknown is the backend's word on the peaks it could not derive, all of them.
	Unknown string `json:"unknown,omitempty"`
	// GFLOPSUnknown and GBsUnknown say why the backend could not derive the figure, each
	// its own reason (device.Peak.UnknownOf), where it is unknown still: given by nobody.
	GFLOPSUnknown string `json:"gflops_unknown,omitempty"`
	GBsUnknown    string `json:"gbs_unknown,omitempty"`
}

// Resolve picks the peaks of precision: the given ones, else those derived (nil: the
// backend derives none).
func Resolve(derived *device.Peak, precision string, given Given) Peaks {
	p := Peaks{Precision: precision}
	set := func(value *float64, from *string, source **Source, v float64, s Source) {
		*value, *from, *source = v, s.String(), &s
	}
	if derived != nil {
		p.Unknown = derived.Unknown
		if v := derived.GFLOPS[precision]; v > 0 {
			set(&p.GFLOPS, &p.GFLOPSFrom, &p.GFLOPSSource, v, Source{From: FromDerived, How: derived.HowOf(precision)})
		}
		if derived.GBs > 0 {
			set(&p.GBs, &p.GBsFrom, &p.GBsSource, derived.GBs, Source{From: FromDerived, How: derived.HowOf(device.MemoryFigure)})
		}
	}
	if given.GFLOPS > 0 {
		set(&p.GFLOPS, &p.GFLOPSFrom, &p.GFLOPSSource, given.GFLOPS, given.GFLOPSSource.orGiven())
	}
	if given.GBs > 0 {
		set(&p.GBs, &p.GBsFrom, &p.GBsSource, given.GBs, given.GBsSource.orGiven())
	}
	if p.GFLOPS <= 0 {
		p.GFLOPSUnknown = derived.UnknownOf(precision)
	}
	if p.GBs <= 0 {
		p.GBsUnknown = derived.UnknownOf(device.MemoryFigure)
	}
	return p
}

// MissingPeakError says which peaks the efficiency needs that are unknown, each with why
// its device's backend could not derive it.
type MissingPeakError struct {
	Memory    bool   // the memory peak (GB/s) is missing
	Compute   bool   // the arithmetic peak of Precision is missing
	Precision string // the flops' precision
	// MemoryWhy and ComputeWhy are what the backend said of the missing figure alone
	// (device.Peak.UnknownOf); "" where it said nothing.
	MemoryWhy, ComputeWhy string
}

// Error names each missing peak, why it is unknown, and the flag or peaks file entry
// of ktune's commands that gives it.
func (e *MissingPeakError) Error() string {
	return e.Phrase("--peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks)",
		"--peak-gflops GFLOP/s, or gflops: {"+e.Precision+": GFLOP/s} in the device's entry of a peaks file (--peaks)")
}

// Phrase is the error's text with the caller's ways of giving the peaks: memory gives the
// memory peak, compute the arithmetic peak of e.Precision (a library names its options
// where a command names its flags).
func (e *MissingPeakError) Phrase(memory, compute string) string {
	var parts []string
	figure := func(name, why, how string) {
		if why != "" {
			why = " (" + why + ")"
		}
		parts = append(parts, fmt.Sprintf("%s peak is unknown%s: give it with %s", name, why, how))
	}
	if e.Memory {
		figure("memory bandwidth", e.MemoryWhy, memory)
	}
	if e.Compute {
		figure(e.Precision+" arithmetic", e.ComputeWhy, compute)
	}
	them, stream := "it", ""
	if len(parts) > 1 {
		them = "them"
	}
	if e.Memory {
		stream = " (STREAM for memory)"
	}
	return fmt.Sprintf("no efficiency: the device's %s; take %s from the device's data sheet or a measurement%s",
		strings.Join(parts, "; its "), them, stream)
}

// Lacks returns a *MissingPeakError naming the peaks that ops need and p lacks, or nil.
func (p Peaks) Lacks(ops Ops) error {
	e := &MissingPeakError{Memory: ops.Bytes > 0 && p.GBs <= 0, Compute: ops.Flops > 0 && p.GFLOPS <= 0, Precision: ops.Precision}
	if !e.Memory && !e.Compute {
		return nil
	}
	if e.Memory {
		e.MemoryWhy = p.GBsUnknown
	}
	if e.Compute {
		e.ComputeWhy = p.GFLOPSUnknown
	}
	return e
}

// Result is eq. 2 at one time.
type Result struct {
	Percent float64 `json:"percent"` // 100 · the larger of the two shares
	Bound   string  `json:"bound"`   // "memory" or "compute": whose share is the larger
	// MemoryPercent and ComputePercent are the two shares in percent; nil where the task
	// has no operations of the kind.
	MemoryPercent  *float64 `json:"memory_percent,omitempty"`
	ComputePercent *float64 `json:"compute_percent,omitempty"`
	GBs            float64  `json:"gbs,omitempty"`    // the essential bytes per second reached, in GB/s
	GFLOPS         float64  `json:"gflops,omitempty"` // the essential flops per second reached, in GFLOP/s
}

// Of computes eq. 2 for a kernel time of timeMS milliseconds. A peak that the task's
// operations need and p lacks gives a *MissingPeakError: the other share alone could
// understate the maximum.
func Of(ops Ops, timeMS float64, p Peaks) (Result, error) {
	if ops.Excluded != "" {
		return Result{}, fmt.Errorf("no efficiency: %s", ops.Excluded)
	}
	if ops.Bytes <= 0 && ops.Flops <= 0 {
		return Result{}, fmt.Errorf("no efficiency: the spec declares no essential operations (essential_ops: bytes and/or flops)")
	}
	if err := p.Lacks(ops); err != nil {
		return Result{}, err
	}
	if !(timeMS > 0) || math.IsInf(timeMS, 0) {
		return Result{}, fmt.Errorf("no efficiency: the time %v ms is not a positive duration", timeMS)
	}
	seconds := timeMS / 1e3
	var r Result
	if ops.Bytes > 0 {
		r.GBs = ops.Bytes / seconds / 1e9
		m := 100 * r.GBs / p.GBs
		r.MemoryPercent, r.Percent, r.Bound = &m, m, "memory"
	}
	if ops.Flops > 0 {
		r.GFLOPS = ops.Flops / seconds / 1e9
		c := 100 * r.GFLOPS / p.GFLOPS
		r.ComputePercent = &c
		if r.MemoryPercent == nil || c > r.Percent {
			r.Percent, r.Bound = c, "compute"
		}
	}
	return r, nil
}

// Summary is what a run's summary says of efficiency: the operations, the peaks, the
// best configuration's efficiency, or why there is none.
type Summary struct {
	Ops   Ops     `json:"essential_ops"`
	Peaks *Peaks  `json:"peaks,omitempty"` // nil when the task is excluded
	Best  *Result `json:"best,omitempty"`
	// Missing says why there is no efficiency (a peak to give, a task excluded).
	Missing string `json:"missing,omitempty"`
}

// Summarize is the efficiency of a best configuration timed at bestMS milliseconds (NaN:
// none succeeded), with the operations, the derived peaks and the given ones.
func Summarize(ops Ops, derived *device.Peak, given Given, bestMS float64) Summary {
	s := Summary{Ops: ops}
	if ops.Excluded != "" {
		s.Missing = "excluded: " + ops.Excluded
		return s
	}
	p := Resolve(derived, ops.Precision, given)
	s.Peaks = &p
	if err := p.Lacks(ops); err != nil {
		s.Missing = err.Error()
		return s
	}
	if math.IsNaN(bestMS) {
		return s
	}
	r, err := Of(ops, bestMS, p)
	if err != nil {
		s.Missing = err.Error()
		return s
	}
	s.Best = &r
	return s
}

// FromSpec is the operations a spec declares; false when it declares none.
func FromSpec(e *spec.EssentialOps) (Ops, bool) {
	if e == nil {
		return Ops{}, false
	}
	return Ops{Bytes: e.Bytes, Flops: e.Flops, Precision: e.Precision, Excluded: e.Excluded}, true
}

// TimeAt is the longest kernel time in ms at which eq. 2 reaches fraction of the peak
// (0.75 for seed 003's Section 6 "75% of the peak memory bandwidth"): a time at most it is
// well-performing by that threshold. It turns such a threshold into a target time for a
// tuner that stops at one (dynamic.Options.Target with the objective time).
func TimeAt(ops Ops, p Peaks, fraction float64) (float64, error) {
	if ops.Excluded != "" {
		return 0, fmt.Errorf("no efficiency: %s", ops.Excluded)
	}
	if !(fraction > 0 && fraction <= 1) {
		return 0, fmt.Errorf("the fraction of the peak %g is not in (0, 1]", fraction)
	}
	if err := p.Lacks(ops); err != nil {
		return 0, err
	}
	if ops.Bytes <= 0 && ops.Flops <= 0 {
		return 0, fmt.Errorf("no efficiency: the spec declares no essential operations (essential_ops: bytes and/or flops)")
	}
	var s float64
	if ops.Bytes > 0 {
		s = ops.Bytes / (fraction * p.GBs * 1e9)
	}
	if ops.Flops > 0 {
		s = math.Max(s, ops.Flops/(fraction*p.GFLOPS*1e9))
	}
	return s * 1e3, nil
}
