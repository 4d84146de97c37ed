package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/analysis"
	"github.com/ktune/ktune/efficiency"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/worker"
)

// countValue is an int flag that refuses values below least at parse time, so that every
// command says the same thing of a negative count (--n -1: want a number of ..., see
// parseFlags) instead of failing later, or not at all.
type countValue struct {
	p     *int
	least int
	what  string // what the number counts, for the error
}

func (v countValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v countValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(strings.TrimSpace(s), "-"):
		return fmt.Errorf("want a number of %s, %d or more", v.what, v.least)
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("too large: at most %d %s", math.MaxInt, v.what)
	case err != nil:
		return fmt.Errorf("want a whole number of %s", v.what)
	}
	if n < v.least {
		return fmt.Errorf("want a number of %s, %d or more", v.what, v.least)
	}
	*v.p = n
	return nil
}

// countVar defines an int flag that takes values of least or more.
func countVar(fs *flag.FlagSet, p *int, name string, value, least int, what, usage string) {
	*p = value
	fs.Var(countValue{p, least, what}, name, usage)
}

// count defines an int flag that takes values of least or more and returns its address.
func count(fs *flag.FlagSet, name string, value, least int, what, usage string) *int {
	p := new(int)
	countVar(fs, p, name, value, least, what, usage)
	return p
}

// shareValue is a float flag that takes values in [0, 1].
type shareValue struct{ p *float64 }

func (v shareValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v shareValue) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		return fmt.Errorf("want a fraction between 0 and 1")
	}
	*v.p = x
	return nil
}

// share defines a float flag that takes values in [0, 1] and returns its address.
func share(fs *flag.FlagSet, name string, value float64, usage string) *float64 {
	p := &value
	fs.Var(shareValue{p}, name, usage)
	return p
}

// durationValue is a time.Duration flag whose errors say what a duration looks like (the
// flag package's own says "parse error" of a number without its unit) and that refuses a
// negative one. Its usage should name it `duration` in backquotes, which PrintDefaults
// shows as the value's name as it does for its own duration flags.
type durationValue struct{ p *time.Duration }

func (v durationValue) String() string {
	if v.p == nil {
		return time.Duration(0).String()
	}
	return v.p.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return errors.New("want a duration with its unit, such as 30s, 10m or 1h30m")
	case d < 0:
		return errors.New("want a duration of 0 (none) or more")
	}
	*v.p = d
	return nil
}

// duration defines a duration flag of 0 or more, which takes values as durationValue
// says, and returns its address.
func duration(fs *flag.FlagSet, name string, value time.Duration, usage string) *time.Duration {
	p := &value
	fs.Var(durationValue{p}, name, usage)
	return p
}

// alias makes name a second spelling of fs's flag of, sharing its value, for a flag that
// other commands spell so (tune's --time is simulate's --time-limit): a user who types the
// other command's spelling is understood rather than refused.
func alias(fs *flag.FlagSet, name, of string) {
	f := fs.Lookup(of)
	if f == nil {
		panic("alias of undefined flag " + of)
	}
	usage := "the same as --" + of
	if kind, _ := flag.UnquoteUsage(f); kind != "" && kind != "value" {
		usage += ", a `" + kind + "`"
	}
	fs.Var(f.Value, name, usage)
}

// minBootstrap is the fewest bootstrap resamples a 95% interval is drawn from: with fewer,
// its 2.5th and 97.5th percentiles are the extreme resamples or the estimate itself.
const minBootstrap = 20

// spaceMemoryEnv names the environment variable that gives --space-memory its default.
const spaceMemoryEnv = "KTUNE_SPACE_MEMORY"

// bytesValue is a size flag (512MiB, 4GiB; space.ParseBytes), or "none" for no bound (-1).
type bytesValue struct{ p *int64 }

func (v bytesValue) String() string {
	switch {
	case v.p == nil || *v.p == 0:
		return ""
	case *v.p < 0:
		return "none"
	}
	return space.FormatBytes(*v.p)
}

func (v bytesValue) Set(s string) error {
	if strings.TrimSpace(s) == "none" {
		*v.p = -1
		return nil
	}
	n, err := space.ParseBytes(s)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("want a size above 0 (or none)")
	}
	*v.p = n
	return nil
}

// spaceMemory defines --space-memory, the memory a space's index may take
// (space.BuildOptions.MaxBytes; 0, the default, is a share of the memory available), whose
// default $KTUNE_SPACE_MEMORY sets; an invalid value there is the error.
func spaceMemory(fs *flag.FlagSet) (*int64, error) {
	p := new(int64)
	v := bytesValue{p}
	if env := os.Getenv(spaceMemoryEnv); env != "" {
		if err := v.Set(env); err != nil {
			return nil, fmt.Errorf("$%s=%s: %v", spaceMemoryEnv, env, err)
		}
	}
	fs.Var(v, "space-memory", fmt.Sprintf("the most memory a space's index (or a cartesian-mode landscape) may take, e.g. 8GiB, or none (default: 1/%d of the memory available; also $%s)", space.MemoryShare, spaceMemoryEnv))
	return p, nil
}

// workerMemoryEnv names the environment variable that gives --worker-memory its default.
const workerMemoryEnv = "KTUNE_WORKER_MEMORY"

// workerMemory defines --worker-memory, the memory bound of each worker process
// (tuner.Options.WorkerMemory; 0, the default, is half the machine's memory on a CPU
// device and none on another, a GPU; -1 is none), whose default $KTUNE_WORKER_MEMORY
// sets; an invalid value there is the error.
func workerMemory(fs *flag.FlagSet) (*int64, error) {
	p := new(int64)
	v := bytesValue{p}
	if env := os.Getenv(workerMemoryEnv); env != "" {
		if err := v.Set(env); err != nil {
			return nil, fmt.Errorf("$%s=%s: %v", workerMemoryEnv, env, err)
		}
	}
	fs.Var(v, "worker-memory", fmt.Sprintf("the most memory each worker process may map, e.g. 4GiB, or none: a configuration that allocates more fails alone (default: 1/%d of the machine's memory on a CPU device, none on another, a GPU; also $%s)", worker.MemoryShare, workerMemoryEnv))
	return p, nil
}

// spaceTooLarge adds to a space too large for its memory bound how to allow more.
func spaceTooLarge(err error) error {
	var tl *space.TooLargeError
	var ltl *analysis.LandscapeTooLargeError
	if !errors.As(err, &tl) && !errors.As(err, &ltl) {
		return err
	}
	return fmt.Errorf("%w; to allow more, give --space-memory SIZE (or set $%s) as large as the machine can spare", err, spaceMemoryEnv)
}

// directionFlags defines --maximize and --minimize, which say whether larger values of the
// objective a command explains are better, where the recording does not say (Kernel Tuner
// caches) or a metric's name would mislead (speedup, a profiling counter's pct). The
// function it returns gives nil when neither flag was given, and an error when both were.
func directionFlags(fs *flag.FlagSet) func() (*bool, error) {
	maximize := fs.Bool("maximize", false, "larger values of the objective are better (default: as the recording says or, where it does not, as the objective's name suggests)")
	minimize := fs.Bool("minimize", false, "smaller values of the objective are better (see --maximize)")
	return func() (*bool, error) {
		switch {
		case *maximize && *minimize:
			return nil, errors.New("give --maximize or --minimize, not both")
		case *maximize:
			return maximize, nil
		case *minimize:
			f := false
			return &f, nil
		}
		return nil, nil
	}
}

// applyDirection gives rec the direction --maximize or --minimize said (maximize; nil:
// none was given), with a warning among rec's where the recording itself says the other
// (not where a Kernel Tuner cache's objective name suggested it).
func applyDirection(rec *result.Recording, maximize *bool) {
	if maximize == nil {
		return
	}
	if *maximize != rec.Maximize && !analysis.NamedDirection(rec) {
		objective := rec.Objective
		if objective == "" {
			objective = "time"
		}
		better := map[bool]string{true: "higher", false: "lower"}
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("%s: the recording says %s is better %s; the option given makes it %s",
			rec.Source, objective, better[rec.Maximize], better[*maximize]))
	}
	rec.Maximize = *maximize
}

// peakValue is a positive throughput flag (GFLOP/s, GB/s); 0, its default, is not given.
// Set records the flag as the peak's source.
type peakValue struct {
	p      *float64
	source *efficiency.Source
	flag   string
}

func (v peakValue) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v peakValue) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("want a positive number")
	}
	*v.p, *v.source = x, efficiency.Source{From: efficiency.FromFlag, Flag: "--" + v.flag}
	return nil
}

// peakFlags defines --peak-gflops and --peak-gbs, the device's peaks as the user gives
// them (efficiency against the peak, seed 003's eq. 2), which win over the derived ones,
// and, for a command reading stored runs (ofRuns), over the peaks each run stored.
func peakFlags(fs *flag.FlagSet, ofRuns bool) *efficiency.Given {
	g := &efficiency.Given{}
	def := "default: derived where the backend can: 'ktune devices'"
	if ofRuns {
		def = "default: the peaks the run stored when it was tuned, else those derived where the backend can: 'ktune devices'"
	}
	fs.Var(peakValue{&g.GFLOPS, &g.GFLOPSSource, "peak-gflops"}, "peak-gflops", "the device's arithmetic peak in `GFLOP/s`, in the precision of the spec's essential_ops ("+def+")")
	fs.Var(peakValue{&g.GBs, &g.GBsSource, "peak-gbs"}, "peak-gbs", "the device's memory bandwidth peak in `GB/s` ("+def+")")
	return g
}

// peaksFileFlag defines --peaks, a peaks file giving each device its own peaks
// (efficiency.File); read it with readPeaksFile.
func peaksFileFlag(fs *flag.FlagSet) *string {
	return fs.String("peaks", "", "a peaks `FILE` (YAML or JSON) giving each device its peaks, by its name as stored or as backend:index: \"opencl:1\": {gbs: 25.6, gflops: {float32: 150, float64: 75}}; --peak-gflops and --peak-gbs win over it")
}

// readPeaksFile reads the peaks file of --peaks; nil where none is given.
func readPeaksFile(path string) (*efficiency.File, error) {
	if path == "" {
		return nil, nil
	}
	return efficiency.ReadFile(path)
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
