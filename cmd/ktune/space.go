package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/format/t1"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/spec"
)

func init() {
	register(&command{
		name:    "space",
		summary: "build a search space: count, list, sample, neighbours, construction timing",
		usage: `[count|list|sample|neighbours] FILE [flags]

Builds the valid configurations of a search-space definition (a ktune kernel spec, a T1
JSON file, BAT or KTT tuning-spec JSON) under its restrictions, or the space of
configurations a recorded run measured (Kernel Tuner cache, T4 or KTT output).

  count       parameters, product, valid count and independent groups (the default)
  list        valid configurations in index order (--offset, --limit)
  sample      --n uniformly random valid configurations (--seed)
  neighbours  the valid neighbours of --config under --neighbourhood

With --json, list, sample and neighbours print a JSON array with one object per
configuration, {"index": I, "config": {"NAME": VALUE, ...}}: the index in the space and the
parameters' values, in the parameters' order. Lists are written as they are made, so
'list --limit 0' of billions of configurations starts printing at once; a sample of more
than 1,048,576 configurations is drawn in index order rather than shuffled. Ctrl-C while
they print stops them (exit status 130), the JSON array closed, and says on standard error
how many were printed and, for list, the --offset that goes on from there.

Building a space enumerates the combinations its restrictions tie together: Ctrl-C stops
it (exit status 130), saying how much of the product it had enumerated; with --json, for
every action, the output is then one object with the fields of count's, "interrupted"
first and "enumerated" (the fraction of the product) last: those not known yet are null
(valid, groups and index_bytes; the parameters, restrictions and product too for a
recording, or a file still being read). On a terminal (or with --progress) a construction
that takes longer than a second shows how much of the product it has enumerated. Its index
takes at most --space-memory (default: 1/8 of the memory available; $KTUNE_SPACE_MEMORY):
a group of tied parameters whose valid combinations would need more is refused, at once
when a sample of its combinations shows it, with an error that names its restrictions
('ktune help expressions' says how spaces are built).

--time builds the space --repeat times and reports the fastest and median construction
time and the process's peak resident memory; Ctrl-C during the constructions after the
first prints the count with the timing of those finished.`,
		run: runSpace,
	})
}

type spaceFlags struct {
	jsonOut       bool
	timeIt        bool
	repeat        int
	offset, limit int
	n             int
	seed          uint64
	config        string
	neighbourhood string
	progress      bool
}

func runSpace(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("space")
	fs := newFlags(env, c)
	var f spaceFlags
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.BoolVar(&f.timeIt, "time", false, "time the construction")
	fs.BoolVar(&f.progress, "progress", false, "show the construction's progress even when standard error is not a terminal")
	countVar(fs, &f.repeat, "repeat", 5, 1, "constructions", "constructions to time with --time")
	alias(fs, "repeats", "repeat")
	countVar(fs, &f.offset, "offset", 0, 0, "configurations", "list: first index")
	countVar(fs, &f.limit, "limit", 100, 0, "configurations", "list: configurations to print (0: all)")
	countVar(fs, &f.n, "n", 10, 0, "configurations", "sample: configurations to draw (without replacement)")
	fs.Uint64Var(&f.seed, "seed", 1, "sample: random seed")
	fs.StringVar(&f.config, "config", "", `neighbours: the configuration, as "name=value,name=value,..."`)
	fs.StringVar(&f.neighbourhood, "neighbourhood", "Hamming", "neighbours: Hamming, adjacent or strictly-adjacent")
	maxBytes, err := spaceMemory(fs)
	if err != nil {
		return usageErr(env, c, "%v", err)
	}
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	action := "count"
	if len(pos) > 0 && slices.Contains([]string{"count", "list", "sample", "neighbours", "neighbors"}, pos[0]) {
		action, pos = pos[0], pos[1:]
	}
	if len(pos) == 2 && action == "count" && filepath.Ext(pos[0]) == "" {
		// 'space lsit FILE': a typo of an action, not a second file
		return usageErr(env, c, "unknown action %q (want count, list, sample or neighbours) before the space file %s", pos[0], pos[1])
	}
	if len(pos) != 1 {
		return usageErr(env, c, "want one space file, got %d arguments", len(pos))
	}
	if err := noStdin(env, c, pos, "a YAML kernel spec is told from a recording by its file name: give the file"); err != nil {
		return err
	}
	path := pos[0]
	src, err := loadSpaceSource(ctx, env.stderr, path)
	if err != nil {
		if ctx.Err() != nil {
			return spaceInterrupted(env, f, spaceSource{}, path, interruption(ctx, "interrupted while reading %s; nothing was built", path), 0)
		}
		return err
	}
	build := src.build
	o := space.BuildOptions{MaxBytes: *maxBytes}
	var done float64 // the fraction of the product enumerated, for an interruption's message
	var prog *progress
	if f.progress || isTerminal(env.stderr) {
		prog = newProgress(env.stderr, "of the product enumerated")
		prog.delay = time.Second // a space built in a blink shows nothing
	}
	o.Progress = func(fr float64) {
		done = fr
		if prog != nil {
			prog.fraction(fr, "building "+filepath.Base(path))
		}
	}
	start := time.Now()
	s, err := build(ctx, o)
	if prog != nil {
		prog.finish()
	}
	if err != nil {
		if ctx.Err() != nil {
			return spaceInterrupted(env, f, src, path, interruption(ctx, "interrupted after %s, %.3g%% of the product of %s enumerated",
				time.Since(start).Round(time.Millisecond), 100*done, path), done)
		}
		var se *spec.Error
		if errors.As(err, &se) {
			return err // it names the file
		}
		return spaceTooLarge(fmt.Errorf("%s: %w", path, err))
	}
	first := time.Since(start)
	timing := []time.Duration{first}
	var interrupted error // in the timed constructions after the first
	if f.timeIt {
		prog = nil
		for k := 1; k < f.repeat; k++ {
			start := time.Now()
			if _, err := build(ctx, o); err != nil {
				if ctx.Err() == nil {
					return err
				}
				interrupted = interruption(ctx, "interrupted after %d of %d constructions", len(timing), f.repeat)
				if action == "count" {
					interrupted = fmt.Errorf("%w; the timing is of those", interrupted)
				}
				fmt.Fprintf(env.stderr, "ktune space: %v\n", interrupted)
				break
			}
			timing = append(timing, time.Since(start))
		}
	}
	if interrupted != nil && action != "count" {
		return interrupted
	}
	switch action {
	case "count":
		if err := printSpaceSummary(env, path, s, timing, f, interrupted); err != nil {
			return err
		}
		return interrupted
	case "list":
		if f.offset > 0 && f.offset >= s.Len() {
			return fmt.Errorf("--offset %d: the space has %s (indices 0 to %d)", f.offset, counted(s.Len(), "configuration", "configurations"), s.Len()-1)
		}
		end := s.Len()
		if f.limit > 0 && f.limit < end-f.offset {
			end = f.offset + f.limit
		}
		return printConfigs(ctx, env, s, func(yield func(int) bool) {
			for i := f.offset; i < end && yield(i); i++ {
			}
		}, f.jsonOut, func(n int) string {
			next := fmt.Sprintf("--offset %d continues the list", f.offset+n)
			if f.limit > 0 {
				next += fmt.Sprintf(" (with --limit %d for the rest of this page)", f.limit-n)
			}
			return next
		})
	case "sample":
		r := rand.New(rand.NewPCG(f.seed, 0x6b74756e65))
		if f.n > s.Len() {
			each := "each of them"
			if s.Len() == 1 {
				each = "it"
			}
			fmt.Fprintf(env.stderr, "ktune space: --n %d is more than the space's %s: printing %s once\n", f.n, counted(s.Len(), "configuration", "configurations"), each)
		}
		if min(f.n, s.Len()) > maxHeldSample {
			fmt.Fprintf(env.stderr, "ktune space: a sample of more than %d configurations is drawn in index order (it is not held in memory to be shuffled)\n", maxHeldSample)
			return printConfigs(ctx, env, s, s.SampleInOrder(r, f.n), f.jsonOut, nil)
		}
		return printConfigs(ctx, env, s, slices.Values(s.SampleIndices(r, f.n)), f.jsonOut, nil)
	default:
		if f.config == "" {
			return usageErr(env, c, "neighbours needs --config")
		}
		n, err := space.ParseNeighbourhood(f.neighbourhood)
		if err != nil {
			return err
		}
		cfg, err := parseConfig(s, f.config)
		if err != nil {
			return err
		}
		if !s.Contains(cfg) {
			reason := "it is not in the space"
			if r := s.Satisfies(cfg); r != nil {
				reason = fmt.Sprintf("it violates %q", r.Source())
			}
			return fmt.Errorf("--config %s is not a valid configuration: %s", f.config, reason)
		}
		var idx []int
		s.Neighbours(cfg, n, func(x space.Config) {
			i, _ := s.Index(x)
			idx = append(idx, i)
		})
		slices.Sort(idx)
		return printConfigs(ctx, env, s, slices.Values(idx), f.jsonOut, nil)
	}
}

// maxHeldSample is the largest sample 'space sample' draws in random order: drawing it
// holds its indices (a map and a slice, some 50 MB for a million).
const maxHeldSample = 1 << 20

// spaceSource is the definition of a space read from a file: its construction, which
// --time repeats without reading the file again, and the parameters and restrictions it
// is built from (none for a recording, whose space is the configurations it holds).
type spaceSource struct {
	build        func(context.Context, space.BuildOptions) (*space.Space, error)
	params       []space.Param
	restrictions []string
}

// loadSpaceSource reads the definition of the space a file defines.
func loadSpaceSource(ctx context.Context, warn io.Writer, path string) (spaceSource, error) {
	data, err := format.ReadFile(ctx, path)
	if err != nil {
		return spaceSource{}, err
	}
	if t1.Sniff(data) {
		d, err := t1.Read(strings.NewReader(string(data)), path)
		if err != nil {
			return spaceSource{}, err
		}
		return spaceSource{d.SpaceContext, d.Params, d.Restrictions}, nil
	}
	if isSpec(path, data) {
		// the parameters and restrictions only: the kernel sources need not be there
		s, err := spec.Parse(data, path)
		if err != nil {
			return spaceSource{}, err
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(warn, "ktune space: warning: %v\n", w)
		}
		return spaceSource{s.SpaceContext, s.Parameters, s.Restrictions}, nil
	}
	rec, err := format.ReadContext(ctx, bytes.NewReader(data), path)
	if err != nil {
		return spaceSource{}, err
	}
	printWarnings(warn, "space", rec.Warnings)
	if _, err := recordedSpace(rec); err != nil && len(rec.Restrictions) > 0 {
		// A recording of part of its restricted space (ktune's own T4 export of a run its
		// budget stopped): its space is the configurations it holds, as analyze takes it.
		explored := *rec
		explored.Restrictions = nil
		if sp, err2 := recordedSpace(&explored); err2 == nil {
			fmt.Fprintf(warn, "ktune space: warning: %s holds only %d of the configurations its restrictions allow (a partial run): the space below is those it holds\n", path, sp.Len())
			rec = &explored
		}
	}
	// the configurations a recording holds: as many as it measured, built in no time
	return spaceSource{build: func(ctx context.Context, _ space.BuildOptions) (*space.Space, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return recordedSpace(rec)
	}}, nil
}

// spaceInterrupted says an interruption before the space was built, and with --json
// prints one document saying it: the fields of 'space count --json' with what was known
// (the file, and for a definition its parameters, restrictions and product) and null for
// the rest, and the fraction of the product enumerated. --json prints that object for
// every action: a list cut off before its first configuration would not say it was.
func spaceInterrupted(env *cliEnv, f spaceFlags, src spaceSource, path string, interrupted error, enumerated float64) error {
	fmt.Fprintf(env.stderr, "ktune space: %v\n", interrupted)
	if !f.jsonOut {
		return interrupted
	}
	out := struct {
		Interrupted  string      `json:"interrupted"`
		File         string      `json:"file"`
		Params       []paramJSON `json:"parameters"`
		Restrictions []string    `json:"restrictions"`
		Product      *float64    `json:"product"`
		Valid        unknown     `json:"valid"`
		Groups       unknown     `json:"groups"`
		IndexBytes   unknown     `json:"index_bytes"`
		Enumerated   float64     `json:"enumerated"` // the fraction of the product
	}{Interrupted: interrupted.Error(), File: path, Params: paramsJSON(src.params), Restrictions: src.restrictions, Enumerated: enumerated}
	if len(src.params) > 0 {
		product := 1.0
		for _, p := range src.params {
			product *= float64(len(p.Values))
		}
		out.Product = &product
	}
	if err := writeJSON(env, out); err != nil {
		return err
	}
	return interrupted
}

// paramJSON is a parameter in the JSON of 'space count': its name and values.
type paramJSON struct {
	Name   string      `json:"name"`
	Values []jsonValue `json:"values"`
}

func paramsJSON(params []space.Param) []paramJSON {
	var out []paramJSON
	for _, p := range params {
		vs := make([]jsonValue, len(p.Values))
		for i, v := range p.Values {
			vs[i] = jsonValue(v)
		}
		out = append(out, paramJSON{p.Name, vs})
	}
	return out
}

// isSpec tells a ktune kernel spec from a recording: YAML files, or JSON with a kernel
// object at the top.
func isSpec(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	head := string(data[:min(len(data), 4096)])
	return strings.Contains(head, `"kernel"`) && strings.Contains(head, `"parameters"`)
}

// parseConfig reads --config: name=value pairs separated by commas. A value is written as
// 'space list' or 'space count' writes it (Python's str: True, 1.0, a string bare or quoted)
// or as --json writes it (true, "x"); a comma that starts no name=value pair belongs to the
// value before it, so a string value holding a comma reads back as 'space list' prints it.
func parseConfig(s *space.Space, text string) (space.Config, error) {
	params := s.Params()
	vals := make([]space.Value, len(params))
	set := make([]bool, len(params))
	var pairs []string
	for _, part := range strings.Split(text, ",") {
		if len(pairs) > 0 && !strings.Contains(part, "=") {
			pairs[len(pairs)-1] += "," + part // a value's own comma
			continue
		}
		pairs = append(pairs, part)
	}
	for _, part := range pairs {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("--config: %q is not name=value", part)
		}
		p := slices.IndexFunc(params, func(p space.Param) bool { return p.Name == name })
		if p < 0 {
			var names []string
			for _, q := range params {
				names = append(names, q.Name)
			}
			hint := ""
			if c := expr.Closest(name, names); c != "" {
				hint = fmt.Sprintf("; did you mean %q?", c)
			}
			return nil, fmt.Errorf("--config: unknown parameter %q (the space has %s)%s", name, strings.Join(names, ", "), hint)
		}
		v, err := configValue(params[p], val)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		vals[p], set[p] = v, true
	}
	for p, ok := range set {
		if !ok {
			if len(params[p].Values) == 1 {
				vals[p] = params[p].Values[0]
				continue
			}
			return nil, fmt.Errorf("--config: no value for parameter %q", params[p].Name)
		}
	}
	return s.ConfigOf(vals)
}

// configValue finds the value of p that text names: a number by its value (2 finds 2.0),
// True or False, or else the value that 'space list' or --json writes as text: a string
// ("1" of a string parameter, bare or quoted) or a boolean as JSON writes it (true).
func configValue(p space.Param, text string) (space.Value, error) {
	v := space.StringValue(text)
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		v = space.IntValue(i)
	} else if x, err := strconv.ParseFloat(text, 64); err == nil {
		v = space.FloatValue(x)
	} else if text == "True" || text == "False" {
		v = space.BoolValue(text == "True")
	}
	if k := p.Index(v); k >= 0 {
		return p.Values[k], nil
	}
	found := -1
	for k, w := range p.Values {
		j, _ := w.MarshalJSON()
		if w.String() == text || literalValue(w) == text || string(j) == text {
			if found >= 0 {
				found = -1 // two values written alike: none is meant more than the other
				break
			}
			found = k
		}
	}
	if found >= 0 {
		return p.Values[found], nil
	}
	written := make([]string, len(p.Values))
	for k, w := range p.Values {
		written[k] = literalValue(w)
	}
	return space.Value{}, fmt.Errorf("parameter %q has no value %s (its values are %s)", p.Name, text, strings.Join(written, ", "))
}

// printConfigs prints the configurations of the indices as they come, one a line, or with
// jsonOut as a JSON array of {"index": I, "config": {"NAME": VALUE, ...}} objects, one a
// line: nothing is held, so a list of billions streams. It stops when ctx is done, closing
// the array, and says on standard error how many it printed, and what more tells how to go
// on from there (more(n) for n printed; nil for nothing), as other commands say what an
// interruption kept.
func printConfigs(ctx context.Context, env *cliEnv, s *space.Space, indices iter.Seq[int], jsonOut bool, more func(n int) string) error {
	w := bufio.NewWriterSize(env.stdout, 64<<10)
	params := s.Params()
	var names [][]byte // the parameters' names as JSON strings, followed by ": "
	if jsonOut {
		for _, p := range params {
			b, _ := jsonText(p.Name)
			names = append(names, append(b, ": "...))
		}
		w.WriteString("[")
	}
	var c space.Config
	var line []byte
	n := 0
	var err error
	for i := range indices {
		if n&4095 == 4095 {
			if err = ctx.Err(); err != nil {
				break
			}
		}
		c = s.At(i, c)
		line = line[:0]
		if jsonOut {
			if n > 0 {
				line = append(line, ',')
			}
			line = append(line, "\n  {\"index\": "...)
			line = strconv.AppendInt(line, int64(i), 10)
			line = append(line, `, "config": {`...)
			for p, v := range c {
				if p > 0 {
					line = append(line, ", "...)
				}
				line = append(line, names[p]...)
				b, merr := jsonValue(params[p].Values[v]).MarshalJSON()
				if merr != nil {
					return fmt.Errorf("configuration %d, parameter %s: %w", i, params[p].Name, merr)
				}
				line = append(line, b...)
			}
			line = append(line, "}}"...)
		} else {
			line = strconv.AppendInt(line, int64(i), 10)
			line = append(line, '\t')
			line = append(line, s.Format(c)...)
			line = append(line, '\n')
		}
		if _, err = w.Write(line); err != nil {
			return err
		}
		n++
	}
	if jsonOut {
		if n > 0 {
			w.WriteString("\n")
		}
		w.WriteString("]\n")
	}
	if ferr := w.Flush(); ferr != nil {
		return ferr
	}
	if err != nil {
		msg := "interrupted after " + counted(n, "configuration", "configurations") + " printed"
		if jsonOut {
			msg += ", the JSON array closed after them"
		}
		if more != nil {
			msg += "; " + more(n)
		}
		err = interruption(ctx, "%s", msg)
		fmt.Fprintf(env.stderr, "ktune space: %v\n", err)
	}
	return err
}

func printSpaceSummary(env *cliEnv, path string, s *space.Space, timing []time.Duration, f spaceFlags, interrupted error) error {
	sorted := slices.Clone(timing)
	slices.Sort(sorted)
	peak := peakRSS()
	out := struct {
		Interrupted  string      `json:"interrupted,omitempty"` // the timed constructions were cut short
		File         string      `json:"file"`
		Params       []paramJSON `json:"parameters"`
		Restrictions []string    `json:"restrictions"`
		Product      float64     `json:"product"`
		Valid        int         `json:"valid"`
		Groups       [][]string  `json:"groups"`
		IndexBytes   int         `json:"index_bytes"`
		Builds       int         `json:"builds,omitempty"`
		FirstMS      float64     `json:"first_ms,omitempty"`
		FastestMS    float64     `json:"fastest_ms,omitempty"`
		MedianMS     float64     `json:"median_ms,omitempty"`
		PeakRSSMiB   float64     `json:"peak_rss_mib,omitempty"`
	}{File: path, Params: paramsJSON(s.Params()), Product: s.Product(), Valid: s.Len(), IndexBytes: s.MemoryBytes()}
	if interrupted != nil {
		out.Interrupted = interrupted.Error()
	}
	for _, r := range s.Restrictions() {
		out.Restrictions = append(out.Restrictions, r.Source())
	}
	for _, g := range s.Groups() {
		var names []string
		for _, p := range g {
			names = append(names, s.Params()[p].Name)
		}
		out.Groups = append(out.Groups, names)
	}
	if f.timeIt {
		out.Builds = len(sorted)
		out.FirstMS = float64(timing[0].Microseconds()) / 1e3
		out.FastestMS = float64(sorted[0].Microseconds()) / 1e3
		out.MedianMS = float64(sorted[len(sorted)/2].Microseconds()) / 1e3
		out.PeakRSSMiB = float64(peak) / (1 << 20)
	}
	if f.jsonOut {
		return writeJSON(env, out)
	}
	w := env.stdout
	fmt.Fprintf(w, "space %s\n", path)
	for _, p := range out.Params {
		var vs []string
		for _, v := range p.Values {
			vs = append(vs, literalValue(space.Value(v)))
		}
		noun := "values"
		if len(p.Values) == 1 {
			noun = "value"
		}
		fmt.Fprintf(w, "  %-24s %3d %s: %s\n", p.Name, len(p.Values), noun, abbreviate(vs, 12))
	}
	const restriction = "  restriction: "
	for _, r := range out.Restrictions {
		// a restriction written over several lines (a YAML block) keeps its lines, under
		// its first one
		fmt.Fprintf(w, "%s%s\n", restriction, strings.ReplaceAll(r, "\n", "\n"+strings.Repeat(" ", len(restriction))))
	}
	fmt.Fprintf(w, "product %.0f, valid %d (%.2f%%), %s, index %s\n",
		out.Product, out.Valid, 100*float64(out.Valid)/out.Product, counted(len(out.Groups), "independent group", "independent groups"), humanBytes(out.IndexBytes))
	if f.timeIt {
		fmt.Fprintf(w, "construction: first %.3f ms (cold, in this process), fastest %.3f ms, median %.3f ms over %d builds; peak RSS %.1f MiB\n",
			out.FirstMS, out.FastestMS, out.MedianMS, out.Builds, out.PeakRSSMiB)
	}
	return nil
}

func abbreviate(vs []string, n int) string {
	if len(vs) <= n {
		return strings.Join(vs, ", ")
	}
	return strings.Join(vs[:n-2], ", ") + ", ..., " + vs[len(vs)-1]
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// peakRSS reads the process's peak resident set size (VmHWM) on Linux; 0 elsewhere.
func peakRSS() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb * 1024
		}
	}
	return 0
}

// literalValue writes a parameter value for people: a string quoted, so that the string
// "320" and the number 320 differ.
func literalValue(v space.Value) string {
	if v.Kind() == space.String {
		return strconv.Quote(v.Str())
	}
	return v.String()
}

// writeJSON writes v as indented JSON, with <, > and & as they are: the output is read by
// people and programs, not embedded in HTML.
func writeJSON(env *cliEnv, v any) error {
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonText is json.Marshal without HTML escaping (a <= b stays a <= b).
func jsonText(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonValue is a space.Value whose JSON string is not HTML-escaped.
type jsonValue space.Value

func (v jsonValue) MarshalJSON() ([]byte, error) {
	if x := space.Value(v); x.Kind() == space.String {
		return jsonText(x.Str())
	}
	return space.Value(v).MarshalJSON()
}
