package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/portability"
	"github.com/ktune/ktune/result"
)

func init() {
	register(&command{
		name:    "portability",
		summary: "how well one device's tuning runs on another, and how soon tuning at run time pays for itself (seed 003)",
		usage: `FILE|FOLDER|-... | RUN... | --run ID[,ID...] [--objective NAME] [--maximize|--minimize]
          [--within F | --within-peak F [--peak-gflops GFLOP/s] [--peak-gbs GB/s] [--peaks FILE]]
          [--probability P] [--performance RP] [--json]

Compares two or more exhaustively measured spaces of one kernel (recorded files in any
format 'ktune import' reads, a folder standing for every recording under it, - for one on
standard input, or runs of the results database): one space per device, or per input
size. The spaces must have the same parameters (in any order), and the same objective
(--objective, or the recordings' own) in the same direction; configurations are matched
by their parameters' values.

Performance portability (seed 003, Section 4.4, Tables 8 and 9): each row is a space's
best configuration, each column the space it is run on, and the value its performance
there as a percentage of that space's own best, 100·perf(row's best on column)/perf(column's
best), where perf is the objective when higher is better and its inverse (a rate from a
time) when lower is: seed 003's BiCG, 544 GB/s tuned on an RTX 2080 Ti and 381 GB/s with
the code tuned on a GTX 750, is 70%. A best configuration that the other space does not
hold, or that failed there (did not compile, broke a device limit), "fails": the table
says so and a list below says why. A summary gives, as seed 003's Table 6, the mean and
standard deviation (population) of the percentages off the diagonal, the worst pair, and
how many pairs fail. The objective's direction is as 'ktune analyze' takes it: as the
recording says, or for a Kernel Tuner cache as its name suggests (higher for GFLOP/s,
lower for time); --maximize or --minimize says it instead.

Amortization of dynamic tuning (seed 003, Section 5.4, Table 11), per space, over its
configurations with a value (failed ones are left out): r, the share of well-performing
configurations, those within --within of the best (performance at least F times the
best's); t_avg/t_best and t_avg/t_well, the average configuration's time over the best's
and over the well-performing ones' mean time (times are the objective where lower is
better, and its inverse where higher is); s = log_(1-r)(1-p), the steps of random search
that find a well-performing configuration with probability p (--probability; eq. 5),
rounded up to whole steps; and n = rp·s·(t_avg/t_well - 1)/(1 - rp), the kernel
invocations, tuning steps included (n is at least s), after which the performance
including tuning is rp (--performance) of a well-performing kernel's (eq. 4). The
defaults are the paper's Table 11: within 95% of the best, p = 0.9 and rp = 0.9 (tuning
overhead under 10%). Its eq. 3 is printed as a time ratio; eq. 4 solves its inverse,
the performance ratio, which rp is here.
--within-peak F defines well-performing by the device's peak instead, as seed 003's
Section 6 experiment does ("75% of the peak memory bandwidth": 0.75): a configuration is
well-performing when its efficiency (eq. 2; 'ktune help tune') is at least F of the peak.
It needs runs of the results database tuned from a spec with essential_ops, and the
device's peaks: those the run stored when it was tuned (the peaks tune was given, or
derived), or else those its backend derived, or --peak-gflops and --peak-gbs, which win
over both (one set for every run), or each run's device's own from a peaks file, which
wins over the stored and derived ones, --peaks FILE, YAML or JSON, a device by its name as stored ('ktune runs') or as
backend:index (as --device names it, telling apart devices of one name) to its peaks:

  "NVIDIA A100-SXM4-80GB": {gbs: 2039, gflops: {float32: 19500, float64: 9700}}
  "opencl:1": {gbs: 25.6, gflops: {float32: 150}}

(backend:index, which the run keeps, wins over the name; the flags win over the file; a
run whose device the file does not name keeps its stored or derived peaks). The output
ends with each space's peaks and where each came from ("stored with run 3: given:
--peak-gbs"); --json has them as "peaks", one per space: space, run, precision, gflops,
gbs, gflops_from and gbs_from in words, gflops_source and gbs_source as objects (from:
flag, file or derived; flag; file and device; how; run), and unknown, gflops_unknown and
gbs_unknown, what the backend said of the figures it could not derive. A peak a space
needs that none of these gives is an error naming the figure missing, why it is unknown,
and the flag or peaks file entry that gives it. A device the file names
that none of the runs was measured on is refused, with the runs' devices named. A space
where no configuration reaches F is refused, saying how close the most efficient came.

Refused with the files named: one space only, spaces whose parameters or objectives
differ, a space without a value, or an objective with a value of 0 or below (a
percentage of performance is a ratio). Spaces of different problem sizes or kernel
names are compared with a warning.

--json prints one document: "portability" (objective, direction, the spaces with their
best configurations, "cells" by row and column, each with percent, value and fails, and
"summary"), "amortization" (one entry per space), "settings" and, with --within-peak,
"peaks".

Flags:`,
		run: runPortability,
	})
}

func runPortability(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("portability")
	fs := newFlags(env, c)
	runs := fs.String("run", "", "compare these runs of the results database (comma-separated ids)")
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB), for --run")
	objective := fs.String("objective", "", "objective or recorded metric to compare, e.g. GFLOP/s (default: the recordings' objective)")
	direction := directionFlags(fs)
	paper := portability.PaperSettings()
	within := share(fs, "within", paper.Within, "well-performing: performance at least this fraction of the best (seed 003: 0.95)")
	probability := share(fs, "probability", paper.Probability, "probability p that random search has found a well-performing configuration (eq. 5; seed 003: 0.9)")
	performance := share(fs, "performance", paper.Performance, "relative performance rp, tuning included, that n invocations reach (eq. 4; seed 003: 0.9, overhead under 10%)")
	withinPeak := share(fs, "within-peak", 0, "well-performing: efficiency at least this fraction of the device's peak instead of --within (seed 003 Section 6: 0.75; runs of specs with essential_ops)")
	peaks := peakFlags(fs, true)
	peaksFile := peaksFileFlag(fs)
	jsonOut := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	maximize, err := direction()
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	set := portability.Settings{Within: *within, Probability: *probability, Performance: *performance, WithinPeak: *withinPeak}
	if err := set.Check(); err != nil {
		return usageErr(env, c, "%v", err)
	}
	if set.WithinPeak > 0 && flagGiven(fs, "within") {
		return usageErr(env, c, "give --within (a fraction of the best) or --within-peak (a fraction of the device's peak), not both")
	}
	if err := stdinOnce(env, c, pos); err != nil {
		return err
	}
	if *peaksFile != "" && set.WithinPeak == 0 {
		return usageErr(env, c, "--peaks %s: the peaks are for --within-peak F (well-performing by a fraction of each device's peak); give it too", *peaksFile)
	}
	pf, err := readPeaksFile(*peaksFile)
	if err != nil {
		return err
	}
	inputs, unread, err := analysisInputs(ctx, pos, *runs, *db, true, env.stderr)
	if err != nil {
		if err == errNoInput {
			return usageErr(env, c, "give two or more recorded files or runs of one kernel")
		}
		return err
	}
	if len(unread) > 0 {
		// every space is a row and a column: one missing changes the table
		return errors.Join(unread...)
	}
	if pf != nil {
		if err := checkPeaksFile(ctx, *db, pf, inputs); err != nil {
			return err
		}
	}
	var spaces []portability.Space
	var used []spacePeaks // --within-peak: each space's peaks
	var left []string     // files found in folders that are no recordings
	for _, in := range inputs {
		rec := in.in.Rec
		if in.path != "" {
			if rec, err = readRecording(ctx, in.path); err != nil {
				if in.found && errors.Is(err, format.ErrUnknown) {
					left = append(left, in.path)
					continue
				}
				return err
			}
		}
		sp, err := portability.FromRecording(in.in.Label(), rec, *objective, maximize)
		if err != nil {
			return err
		}
		if maximize == nil && analysis.NamedDirection(rec) && sp.Objective.From == analysis.DirectionRecorded {
			sp.Objective.From = analysis.DirectionName
		}
		if set.WithinPeak > 0 {
			var p efficiency.Peaks
			if sp.Efficiency, p, err = runEfficiencies(ctx, *db, in.in, rec, pf, *peaks); err != nil {
				return err
			}
			used = append(used, spacePeaks{Space: sp.Name, Run: in.in.Run.ID, Peaks: p})
		}
		spaces = append(spaces, sp)
	}
	if len(left) > 0 {
		fmt.Fprintf(env.stderr, "ktune portability: %s: %s\n", notRecordings(len(left)), listSome(left, 5))
	}
	m, err := portability.Compute(spaces)
	if errors.Is(err, portability.ErrTooFewSpaces) {
		return usageErr(env, c, "%v: give the spaces of the other devices (or inputs) too", err)
	}
	if err != nil {
		return err
	}
	amortized := make([]portability.Amortization, len(spaces))
	for i := range spaces {
		if amortized[i], err = portability.Amortize(spaces[i], set); err != nil {
			return err
		}
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(env.stderr, "ktune portability: warning: %s\n", w)
	}
	if *jsonOut {
		return writeJSON(env, struct {
			Settings     portability.Settings       `json:"settings"`
			Portability  *portability.Matrix        `json:"portability"`
			Amortization []portability.Amortization `json:"amortization"`
			Peaks        []spacePeaks               `json:"peaks,omitempty"`
		}{set, m, amortized, used})
	}
	printPortability(env.stdout, m, spaces[0].Objective, spaces[0].Kernel)
	fmt.Fprintln(env.stdout)
	printAmortization(env.stdout, amortized, set)
	printPeaks(env.stdout, used)
	return nil
}

// spacePeaks are the peaks a space's efficiency is measured against (--within-peak).
type spacePeaks struct {
	Space string `json:"space"`
	Run   int64  `json:"run"`
	efficiency.Peaks
}

// printPeaks writes the peaks each space's efficiency was measured against, each figure
// with where it came from; nothing without --within-peak.
func printPeaks(w io.Writer, used []spacePeaks) {
	if len(used) == 0 {
		return
	}
	fmt.Fprintln(w, "peaks of eq. 2, each with where it came from:")
	for _, u := range used {
		var figs []string
		if u.GBsSource != nil {
			figs = append(figs, fmt.Sprintf("memory %.4g GB/s (%s)", u.GBs, u.GBsFrom))
		}
		if u.GFLOPSSource != nil {
			figs = append(figs, fmt.Sprintf("%s %.4g GFLOP/s (%s)", u.Precision, u.GFLOPS, u.GFLOPSFrom))
		}
		fmt.Fprintf(w, "  %s: %s\n", u.Space, strings.Join(figs, "; "))
	}
}

// checkPeaksFile refuses a peaks file that names a device none of the runs among inputs
// was measured on: a name mistyped would leave its run against other peaks.
func checkPeaksFile(ctx context.Context, db string, pf *efficiency.File, inputs []analysisInput) error {
	var devs []efficiency.Device
	for _, in := range inputs {
		if in.in.Run == nil {
			continue
		}
		st, err := openStoredRun(ctx, db)
		if err != nil {
			return err
		}
		d, err := efficiency.DeviceOfRun(ctx, st, *in.in.Run)
		st.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", in.in.Label(), err)
		}
		devs = append(devs, d)
	}
	return pf.Check(devs)
}

// runEfficiencies is each configuration's efficiency against the device's peak (seed
// 003, eq. 2) in a run of the database db, for --within-peak, and the peaks it is against:
// the peaks given win over the peaks file's for the run's device (pf, nil: none), which
// win over the peaks stored with the run, which win over the derived.
func runEfficiencies(ctx context.Context, db string, in analysis.Input, rec *result.Recording, pf *efficiency.File, given efficiency.Given) ([]float64, efficiency.Peaks, error) {
	var none efficiency.Peaks
	if in.Run == nil {
		return nil, none, fmt.Errorf("%s: --within-peak needs runs of the results database (--run ID) tuned from a spec with essential_ops; a recorded file keeps no essential operations", in.Label())
	}
	st, err := openStoredRun(ctx, db)
	if err != nil {
		return nil, none, err
	}
	defer st.Close()
	ops, derived := efficiency.OfRun(ctx, st, *in.Run)
	if ops == nil {
		return nil, none, fmt.Errorf("%s: --within-peak needs its spec's essential_ops (the operations its task essentially needs: 'ktune help spec'), which run %d was tuned without", in.Label(), in.Run.ID)
	}
	if ops.Excluded != "" {
		return nil, none, fmt.Errorf("%s: its spec excludes it from efficiency against a peak: %s", in.Label(), ops.Excluded)
	}
	dev, err := efficiency.DeviceOfRun(ctx, st, *in.Run)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", in.Label(), err)
	}
	kept, err := efficiency.StoredOf(*in.Run)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", in.Label(), err)
	}
	given = pf.Given(dev, ops.Precision, given).Or(kept.Given(ops.Precision, in.Run.ID))
	p := efficiency.Resolve(derived, ops.Precision, given)
	if err := p.Lacks(*ops); err != nil {
		return nil, none, fmt.Errorf("%s (device %s): %w", in.Label(), dev, err)
	}
	return efficiency.Percents(rec, *ops, p), p, nil
}

// printPortability writes the matrix: a legend of the spaces, numbered, the percentages
// by number, the failing cells and the summary.
func printPortability(w io.Writer, m *portability.Matrix, o analysis.Objective, kernel string) {
	dir := direction(m.Maximize)
	switch o.From {
	case analysis.DirectionName:
		dir += ", as its name suggests"
	case analysis.DirectionOption:
		dir += ", as given"
	}
	what := ""
	if kernel != "" {
		what = " of " + kernel
	}
	fmt.Fprintf(w, "performance portability%s by %s (%s), %d parameters: %% of the column's own best\n", what, m.Objective, dir, len(m.Params))
	unit := result.Unit(m.Objective)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tspace\tdevice\tvalid\tbest (%s)\n", unit)
	for i, s := range m.Spaces {
		fmt.Fprintf(tw, "[%d]\t%s\t%s\t%d of %d\t%s\n", i+1, s.Name, s.Device, s.Valid, s.Configurations, strconv.FormatFloat(s.Best, 'g', 6, 64))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "tuned on \\ run on\t")
	for j := range m.Spaces {
		fmt.Fprintf(tw, "[%d]\t", j+1)
	}
	fmt.Fprintln(tw)
	var fails []string
	for i, row := range m.Cells {
		fmt.Fprintf(tw, "[%d]\t", i+1)
		for j, c := range row {
			if c.Fails != "" {
				fmt.Fprint(tw, "fails\t")
				fails = append(fails, fmt.Sprintf("[%d]'s best on [%d]: %s", i+1, j+1, c.Fails))
				continue
			}
			fmt.Fprintf(tw, "%.1f%%\t", float64(c.Percent))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, f := range fails {
		fmt.Fprintf(w, "  %s\n", f)
	}
	s := m.Summary
	fmt.Fprintf(w, "off the diagonal: ")
	if math.IsNaN(float64(s.Mean)) {
		fmt.Fprintf(w, "every pair fails (%d)\n", s.Pairs)
		return
	}
	row, col := indexOf(m, s.WorstRow), indexOf(m, s.WorstColumn)
	fmt.Fprintf(w, "mean %.1f%% ± %.1f%%, worst %.1f%% ([%d]'s best on [%d]), %d of %d pairs fail\n",
		float64(s.Mean), float64(s.Stdev), float64(s.Worst), row, col, s.Failed, s.Pairs)
}

func indexOf(m *portability.Matrix, name string) int {
	for i, s := range m.Spaces {
		if s.Name == name {
			return i + 1
		}
	}
	return 0
}

// printAmortization writes seed 003's Table 11 figures, one space a line.
func printAmortization(w io.Writer, as []portability.Amortization, set portability.Settings) {
	well := "within " + percent(set.Within) + " of the best"
	if set.WithinPeak > 0 {
		well = "at " + percent(set.WithinPeak) + " of the device's peak or more (eq. 2)"
	}
	fmt.Fprintf(w, "amortization of dynamic tuning (seed 003, eq. 4 and 5): well-performing %s, found with p = %s, n invocations reach rp = %s\n",
		well, strconv.FormatFloat(set.Probability, 'g', -1, 64), strconv.FormatFloat(set.Performance, 'g', -1, 64))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "space\tvalid\twell\tr\tt_avg/t_best\tt_avg/t_well\ts\tsteps\tn\t\n")
	for _, a := range as {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4g\t%.3f\t%.3f\t%.1f\t%s\t%s\t\n", a.Name, a.Valid, a.Well, a.R, a.AvgOverBest, a.AvgOverWell, a.S, thousands(a.Steps), thousands(a.N))
	}
	tw.Flush()
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'g', -1, 64) + "%" }

// thousands writes a whole number with commas between thousands, as the paper's tables.
func thousands(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) >= 1e18 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatInt(int64(v), 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && r != '-' && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
