package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
)

// WellPerformingPeak is the share of the peak at which the efficiency section counts a
// configuration well-performing: seed 003's Section 6 experiment stops tuning at "75% of
// the peak memory bandwidth".
const WellPerformingPeak = 0.75

// efficiencySection is a run's efficiency against its device's peaks (seed 003, eq. 2):
// the operations and peaks, and each of the best configurations' efficiency by its time;
// or why there is none.
func efficiencySection(rec *result.Recording, statistic string, ops efficiency.Ops, derived *device.Peak, given efficiency.Given, top int) Section {
	sec := Section{Title: "Efficiency against the peak"}
	sec.Text = append(sec.Text, "Seed 003's eq. 2: efficiency = 100 × max((essential bytes / time) / memory peak, (essential flops / time) / arithmetic peak), where the essential operations are those the task needs (the spec's essential_ops), whatever more a configuration spends.")
	if ops.Excluded != "" {
		sec.Text = append(sec.Text, "The spec excludes this kernel from efficiency against a peak: "+ops.Excluded+".")
		return sec
	}
	p := efficiency.Resolve(derived, ops.Precision, given)
	about := Table{Caption: "Operations and peaks", KeyValue: true}
	add := func(k, v string) { about.Rows = append(about.Rows, []string{k, v}) }
	if ops.Bytes > 0 {
		add("essential bytes", opsCount(ops.Bytes))
	}
	if ops.Flops > 0 {
		add("essential flops", fmt.Sprintf("%s (%s)", opsCount(ops.Flops), ops.Precision))
	}
	if p.GBs > 0 {
		add("memory peak", fmt.Sprintf("%.4g GB/s (%s)", p.GBs, p.GBsFrom))
	}
	if p.GFLOPS > 0 {
		add("arithmetic peak", fmt.Sprintf("%.4g GFLOP/s %s (%s)", p.GFLOPS, p.Precision, p.GFLOPSFrom))
	}
	sec.Tables = append(sec.Tables, about)
	if err := p.Lacks(ops); err != nil {
		msg := err.Error()
		sec.Callouts = append(sec.Callouts, Callout{Kind: Warning, Text: strings.ToUpper(msg[:1]) + msg[1:] + "."})
		return sec
	}
	type row struct {
		i  int
		ms float64
		r  efficiency.Result
	}
	var rows []row
	// a configuration found wrong anywhere in the run computes wrong answers on some
	// input: however fast its successes ran, they neither reach the peak nor are the most
	// efficient (result.Recording.FoundWrong)
	wrong, leftOut := rec.FoundWrong(), map[string]bool{}
	for i := range rec.Evaluations {
		e := &rec.Evaluations[i]
		if e.Failed() {
			continue
		}
		if wrong(e) {
			leftOut[result.ConfigKey(e.Config)] = true
			continue
		}
		ms := e.Objective
		if rec.Objective != "time" && rec.Objective != "" {
			ms = timeMS(e, statistic)
		}
		if r, err := efficiency.Of(ops, ms, p); err == nil {
			rows = append(rows, row{i, ms, r})
		}
	}
	switch n := len(leftOut); {
	case n == 1:
		sec.Text = append(sec.Text, "1 configuration that ran successfully is left out: it has a wrong_answer evaluation in the run (found wrong by a verification, or by a check after dynamic tuning).")
	case n > 1:
		sec.Text = append(sec.Text, fmt.Sprintf("%d configurations that ran successfully are left out: they have a wrong_answer evaluation in the run (found wrong by a verification, or by a check after dynamic tuning).", n))
	}
	if len(rows) == 0 {
		if len(leftOut) > 0 {
			sec.Text = append(sec.Text, "No successful configuration that was not found wrong has a time to compute an efficiency from.")
			return sec
		}
		sec.Text = append(sec.Text, "No successful configuration has a time to compute an efficiency from.")
		return sec
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].r.Percent > rows[b].r.Percent })
	well := 0
	for _, r := range rows {
		if r.r.Percent >= 100*WellPerformingPeak {
			well++
		}
	}
	best := rows[0]
	sec.Callouts = append(sec.Callouts, Callout{Kind: Result, Text: fmt.Sprintf("The most efficient configuration reaches %.1f%% of the device's peak, %s-bound, at %.4g ms.", best.r.Percent, best.r.Bound, best.ms)})
	sec.Text = append(sec.Text, fmt.Sprintf("%d of the %d successful configurations reach %.0f%% of the peak or more (well-performing by seed 003's Section 6 threshold).",
		well, len(rows), 100*WellPerformingPeak))
	if top <= 0 {
		top = 10
	}
	t := Table{Caption: fmt.Sprintf("The %d most efficient configurations", min(top, len(rows))), Head: []string{"rank", "efficiency (%)", "bound", "time (ms)"}}
	if ops.Bytes > 0 {
		t.Head = append(t.Head, "GB/s", "of memory peak (%)")
	}
	if ops.Flops > 0 {
		t.Head = append(t.Head, "GFLOP/s", "of arithmetic peak (%)")
	}
	for _, prm := range rec.Params {
		t.Head = append(t.Head, prm.Name)
	}
	for k, r := range rows[:min(top, len(rows))] {
		line := []string{strconv.Itoa(k + 1), fmt.Sprintf("%.2f", r.r.Percent), r.r.Bound, strconv.FormatFloat(r.ms, 'g', 5, 64)}
		if r.r.MemoryPercent != nil {
			line = append(line, fmt.Sprintf("%.4g", r.r.GBs), fmt.Sprintf("%.2f", *r.r.MemoryPercent))
		}
		if r.r.ComputePercent != nil {
			line = append(line, fmt.Sprintf("%.4g", r.r.GFLOPS), fmt.Sprintf("%.2f", *r.r.ComputePercent))
		}
		for _, v := range rec.Evaluations[r.i].Config {
			line = append(line, v.String())
		}
		t.Rows = append(t.Rows, line)
	}
	sec.Tables = append(sec.Tables, t)
	return sec
}

// opsCount writes a number of operations whole where it is one (16777216, not 1.6777216e+07).
func opsCount(v float64) string {
	if v == float64(int64(v)) && v < 1e18 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
