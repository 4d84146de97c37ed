package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/tuner"
)

func init() {
	register(&command{
		name:    "runs",
		summary: "list the runs in the results database: id, kind, status, kernel, device, strategy, evaluations, best",
		usage: `[--db PATH] [--kernel NAME] [--device NAME] [--kind tuning|simulation|import]
          [--status running|finished|interrupted|failed] [--json]

Lists the runs stored in the results database, oldest first: the id that 'ktune report',
'ktune analyze --run', 'ktune simulate --run' and 'ktune export --run' take, what made the
run (a tuning on a device by 'ktune tune', an import and the file it came from, or a
simulation that a program stored through the Go library; 'ktune simulate' stores nothing), its status
(a tuning that no ktune process holds any more, because it was killed, reads as
interrupted; the next 'ktune tune' of it resumes it; a finished run none of whose
evaluations succeeded reads as failed, as 'ktune report' calls it, and is also listed
by --status finished, its status in --json, where "failed" is true), kernel, device, strategy with its
options (as --strategy 'NAME:OPT=VALUE;OPT=VALUE' takes them) and seed, the number of
evaluations stored (and how many succeeded), and the best successful objective value
(with the configuration that reached it in --json). A configuration with a wrong_answer
evaluation anywhere in the run (a check after dynamic tuning found it wrong on later
data) is never the best, however fast its successful evaluations ran, nor do they count
as successes: they are counted apart ("found wrong", found_wrong in --json), and a
finished run whose successes were all found wrong reads as failed. A run tuned on several devices
(tune --device opencl:0,opencl:1) lists after its device name what each device measured
(opencl:0 6, opencl:1 4) and after its best the device that measured it, and in --json,
under "devices", each device's evaluations, successes and best objective, as each
evaluation names the device that measured it (best_device: the best's); evaluations no
device measured (configurations refused over a device limit known before compiling, and
those stored before ktune kept the device) count under "no device" (in --json, "").
Filters match exactly. No run is
changed; opening the database may fold its write-ahead log (the -wal file) into it, as
SQLite does when it is read. A PostgreSQL database (--db postgres://...) without ktune's
tables lists no runs and is left without them; a role that may only read lists its runs.`,
		run: runRuns,
	})
}

// runSummary is one line of 'ktune runs', and its JSON.
type runSummary struct {
	ID          int64           `json:"id"`
	Kind        store.RunKind   `json:"kind"`
	Status      store.RunStatus `json:"status"`
	Kernel      string          `json:"kernel"`
	Device      string          `json:"device"`
	Strategy    string          `json:"strategy,omitempty"`
	Options     map[string]any  `json:"strategy_options,omitempty"`
	Seed        uint64          `json:"seed,omitempty"`
	Source      string          `json:"source,omitempty"`
	Objective   string          `json:"objective"`
	Maximize    bool            `json:"maximize"`
	Started     time.Time       `json:"started"`
	Finished    *time.Time      `json:"finished,omitempty"`
	Evaluations int             `json:"evaluations"`
	Succeeded   int             `json:"succeeded"`                   // of configurations found wrong nowhere in the run
	FoundWrong  int             `json:"found_wrong,omitempty"`       // successes of configurations found wrong in the run, not in Succeeded
	Failed      bool            `json:"failed,omitempty"`            // finished, with evaluations, none of them successful (and found wrong nowhere)
	Best        *float64        `json:"best_objective,omitempty"`    // as tune --json names it
	BestConfig  tuner.Config    `json:"best_configuration,omitzero"` // in the parameters' order
	BestDevice  string          `json:"best_device,omitempty"`       // the device that measured the best, as --device names it
	Devices     []deviceShare   `json:"devices,omitempty"`           // a run tuned on several devices: what each measured
}

// deviceShare is what one device of a run tuned on several measured, as its stored
// evaluations say.
type deviceShare struct {
	Device      string   `json:"device"` // as --device names it ("opencl:1"); "" for evaluations that name none
	Evaluations int      `json:"evaluations"`
	Succeeded   int      `json:"succeeded"`             // of configurations found wrong nowhere in the run
	FoundWrong  int      `json:"found_wrong,omitempty"` // successes of configurations found wrong in the run
	Best        *float64 `json:"best_objective,omitempty"`
}

func runRuns(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("runs")
	fs := newFlags(env, c)
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB)")
	kernel := fs.String("kernel", "", "only runs of this kernel")
	dev := fs.String("device", "", "only runs on this device (its name as listed)")
	kind := fs.String("kind", "", "only runs of this kind: tuning, simulation or import")
	status := fs.String("status", "", "only runs with this status: running, finished or interrupted; or failed: finished, nothing succeeded")
	jsonOut := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr(env, c, "no arguments expected, got %s", strings.Join(pos, " "))
	}
	if *kind != "" && !store.RunKind(*kind).Valid() {
		return usageErr(env, c, "--kind %q: want tuning, simulation or import", *kind)
	}
	if *status != "" && *status != "failed" && !store.RunStatus(*status).Valid() {
		return usageErr(env, c, "--status %q: want running, finished, interrupted or failed", *status)
	}
	st, err := openStoredRun(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	// the status filter applies to the live status (a killed tuning reads as interrupted),
	// so it is applied here rather than by the store
	runs, err := st.Runs(ctx, store.RunFilter{Kernel: *kernel, Device: *dev, Kind: store.RunKind(*kind)})
	if err != nil {
		return err
	}
	out := []runSummary{}
	for _, r := range runs {
		want := store.RunStatus(*status)
		if *status == "failed" {
			want = store.StatusFinished
		}
		if *status != "" && r.Status != want {
			continue
		}
		s, err := summarizeRun(ctx, st, r)
		if err != nil {
			return err
		}
		if *status == "failed" && !s.Failed {
			continue
		}
		out = append(out, s)
	}
	if *jsonOut {
		return writeJSON(env, out)
	}
	if len(out) == 0 {
		fmt.Fprintf(env.stdout, "no runs in %s match\n", *db)
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tKERNEL\tDEVICE\tSTRATEGY\tEVALUATIONS\tBEST\tSTARTED")
	for _, s := range out {
		how := s.Strategy
		if s.Kind == store.KindImport {
			how = "from " + s.Source
		} else if how != "" {
			how += strategyOptionsText(s.Options) + fmt.Sprintf(" (seed %d)", s.Seed)
		}
		best := "-"
		if s.Best != nil {
			unit := s.Objective
			if unit == "time" {
				unit = "ms"
			}
			best = fmt.Sprintf("%.4g %s", *s.Best, unit)
		}
		if s.Best != nil && len(s.Devices) > 0 && s.BestDevice != "" {
			best += " on " + s.BestDevice
		}
		status := string(s.Status)
		if s.Failed {
			status = "failed"
		}
		device := orDash(s.Device)
		if len(s.Devices) > 0 {
			var ds []string
			for _, d := range s.Devices {
				ds = append(ds, fmt.Sprintf("%s %d", cmp.Or(d.Device, "no device"), d.Evaluations))
			}
			device += " (" + strings.Join(ds, ", ") + ")"
		}
		ok := fmt.Sprintf("%d ok", s.Succeeded)
		if s.FoundWrong > 0 {
			ok += fmt.Sprintf(", %d found wrong", s.FoundWrong)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d (%s)\t%s\t%s\n", s.ID, s.Kind, status, orDash(s.Kernel),
			device, orDash(how), s.Evaluations, ok, best, s.Started.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// summarizeRun reads a run's evaluations for its counts and its best successful one.
func summarizeRun(ctx context.Context, st store.Store, r store.RunInfo) (runSummary, error) {
	s := runSummary{ID: r.ID, Kind: r.Kind, Status: r.Status, Kernel: r.Kernel, Device: r.Device,
		Strategy: r.Strategy, Seed: r.Seed, Source: r.Source, Objective: r.Objective, Maximize: r.Maximize,
		Started: r.Started}
	if s.Objective == "" {
		s.Objective = "time"
	}
	if len(r.StrategyOptions) > 0 {
		// numbers as they were written (1000, not 1e+03)
		d := json.NewDecoder(bytes.NewReader(r.StrategyOptions))
		d.UseNumber()
		if err := d.Decode(&s.Options); err != nil {
			return s, fmt.Errorf("run %d: strategy options %s: %w", r.ID, r.StrategyOptions, err)
		}
		if len(s.Options) == 0 {
			s.Options = nil
		}
	}
	if !r.Finished.IsZero() {
		f := r.Finished
		s.Finished = &f
	}
	// counted by the store: reading every evaluation back took 10 s for a run of a million
	t, err := st.Tally(ctx, r.ID)
	if err != nil {
		return s, fmt.Errorf("run %d: %w", r.ID, err)
	}
	// a success of a configuration found wrong is none (result.Recording.FoundWrong)
	s.Evaluations, s.Succeeded, s.FoundWrong = t.Evaluations, t.Succeeded-t.FoundWrong, t.FoundWrong
	var best *result.Evaluation
	if t.HasBest {
		best = &t.Best
	}
	s.Failed = s.Status == store.StatusFinished && s.Evaluations > 0 && s.Succeeded == 0
	if best != nil {
		v := best.Objective
		s.Best, s.BestDevice = &v, best.Device
		if sp, err := st.Space(ctx, r.SpaceID); err == nil && len(sp.Params) == len(best.Config) {
			s.BestConfig = tuner.Config{Values: best.Config}
			for _, p := range sp.Params {
				s.BestConfig.Names = append(s.BestConfig.Names, p.Name)
			}
		}
	}
	if severalDevices(r.Settings) {
		// read only for such a run: the tally of any other is the store's alone
		es, err := st.Evaluations(ctx, r.ID)
		if err != nil {
			return s, fmt.Errorf("run %d: %w", r.ID, err)
		}
		s.Devices = deviceShares(es, r.Maximize)
	}
	return s, nil
}

// severalDevices reports whether a run's settings list several devices, as tune stores
// those of a run on several ("devices": [0, 1]).
func severalDevices(settings json.RawMessage) bool {
	var s struct {
		Devices []json.RawMessage `json:"devices"`
	}
	return json.Unmarshal(settings, &s) == nil && len(s.Devices) > 1
}

// deviceShares counts evaluations by the device that measured them, in the order the
// devices first measured, with each device's successes and best objective.
func deviceShares(es []result.Evaluation, maximize bool) []deviceShare {
	var shares []deviceShare
	at := map[string]int{}
	wrong := (&result.Recording{Evaluations: es}).FoundWrong() // never a best
	for _, e := range es {
		i, ok := at[e.Device]
		if !ok {
			i = len(shares)
			at[e.Device] = i
			shares = append(shares, deviceShare{Device: e.Device})
		}
		d := &shares[i]
		d.Evaluations++
		if e.Failed() {
			continue
		}
		if wrong(&e) {
			d.FoundWrong++
			continue
		}
		d.Succeeded++
		if v := e.Objective; d.Best == nil || (maximize && v > *d.Best) || (!maximize && v < *d.Best) {
			d.Best = &v
		}
	}
	return shares
}

// strategyOptionsText is a run's strategy options as --strategy 'NAME:OPT=VALUE;OPT=VALUE'
// writes them after the name, sorted: ":explore=0.7;initial=1000"; "" when there are none.
func strategyOptionsText(opts map[string]any) string {
	if len(opts) == 0 {
		return ""
	}
	return ":" + strings.Join(optionPairs(opts), ";")
}

// optionPairs is opts as OPT=VALUE, sorted.
func optionPairs(opts map[string]any) []string {
	parts := make([]string, 0, len(opts))
	for k, v := range opts {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	slices.Sort(parts)
	return parts
}
