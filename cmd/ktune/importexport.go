package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ktune/ktune/format"
	"github.com/ktune/ktune/internal/outfile"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/store"
	_ "github.com/ktune/ktune/store/postgres" // the shared server store: postgres://
	_ "github.com/ktune/ktune/store/sqlite"   // the default store
	"github.com/ktune/ktune/tuner"
)

func init() {
	register(&command{
		name:    "import",
		summary: "import recorded results (Kernel Tuner cache, T4, KTT) into the results store",
		usage: `FILE|FOLDER|-... [--db PATH] [--again] [--json]

Reads each file (plain or gzip; the format is detected from the content, and a file with
the top-level members of two formats is refused; a folder stands for every recording under
it, other JSON files there are left out; - stands for standard input, a pipe or a file
redirected to it, named "standard input" in messages and "-" in --json), reports its
configurations, valid (successfully measured) configurations and best objective, and
stores it as a run of kind "import" in the results database. Entries of configurations
that the restrictions exclude (Kernel Tuner's InvalidConfig, T4's "constraints") are
stored but counted apart, as restricted: they are not in the space, so analyze and space
do not count them either. An interrupted Kernel Tuner cache is read up to its last
complete entry, with a warning. A problem of entries that reading goes past is one
warning line, which names the file, the first three entries (by cache key, or T4 result
index and configuration, with the line and what they hold) and counts the rest: a
measurement that is no number (counted as a runtime error), or a malformed
ktune_runs_per_sample or ktune_launch, what 'ktune export' adds (a wrong type, runs per
sample below 1, a launch without its grid or block or with sizes that are not whole
numbers of at least 1), which is left out while the measurement is kept. A file that cannot be read is reported with its position and the
problem; the other files are still imported.

A file whose recording the database holds already (the same measurements, imported from
this file or a copy of it) is skipped, and the command says which run holds it: running
an interrupted import again imports only the files it had not finished. --again imports
such a file anyway, as another run. Two imports of one file at once store it once. A file
imported before whose content has changed (a cache that grew) is imported as another run,
with a warning.

Ctrl-C stops the import between files and while a file is read (the runs stored before
stay). Files and pipes are read (a device such as /dev/zero, or a terminal as standard
input, is refused), each up to 1 GiB once decompressed: a larger one (a gzip bomb, or no
recording) is refused with its name; $KTUNE_MAX_RECORDING=SIZE (4GiB) raises the limit,
for import and every other command that reads recordings, where a recording is genuinely
that large.`,
		run: runImport,
	})
	register(&command{
		name:    "export",
		summary: "write a recording as Kernel Tuner cache JSON, T4 results JSON or KTT JSON output",
		usage: `(FILE | - | --run ID) --format kerneltuner|t4|ktt [-o|--out OUT] [--db PATH]

Converts a recorded file (- for one on standard input: a pipe or a file redirected to it),
or a run from the results store, into another tuner's format: kerneltuner (a cache file
Kernel Tuner can read, following its cache schema 1.0.0), t4 (the T4 1.0.0 results schema)
or ktt (the Kernel Tuning Toolkit's JSON output, as KTT 2.1 writes it). Writes to OUT, or
to standard output. A warning names what the format has no place for in this recording
(KTT output's, below), what reading the file or importing the run noticed (a cache cut
short), and a run that has not finished (the output holds what it has stored).

Besides the measurements (metrics, and samples: the timed runs, or under the spec's
min_time each the statistic of a batch of runs), each configuration gets:
  time        its kernel time in ms, whatever the objective: the time the run used, its
              spec's statistic (mean, median, min) of the samples, which the metrics
              (GB/s) were computed from; Kernel Tuner's "time", a "time" measurement in
              T4. For a metric objective, runs stored by ktune before it kept that time
              give the mean.
  timings     compile, verification, benchmark (kernel runs; a hung kernel's until it was
              killed), framework and strategy time (the search strategy choosing the
              configuration; 0 for the default configuration, which the spec chose). A
              timing the recording lacks is 0 in a Kernel Tuner cache, whose schema
              requires it, named in ktune_unrecorded; T4 leaves it out.
  status      Kernel Tuner's failure markers and T4's invalidity; what they cannot say goes
              in ktune_status (in T4 device_limit, written as the invalidity runtime) and a
              failure's message in ktune_message.
  timestamp   to the microsecond (2024-03-04T05:06:07.123456+00:00, which Python 3.10
              reads); in a Kernel Tuner cache the Unix epoch, named in ktune_unrecorded,
              where the recording has none (KTT output).
  device      the device that measured it, as --device names it (opencl:1), in
              ktune_device of a Kernel Tuner cache entry or a T4 result, where a run on
              several devices tells them apart (import reads it back); none where no
              device measured it or the run is older than ktune's record of it. KTT
              output has no place for it.
  runs per    how many timed runs each sample is the statistic of (1, more under
  sample      min_time), in ktune_runs_per_sample of a cache entry or a T4 result, where
              the recording knows it (import reads it back); KTT output has no place
              for it.
  launch      the grid and block the configuration is launched with, in CUDA's terms,
              in ktune_launch ({"grid": [x, y, z], "block": [x, y, z]}) of a cache
              entry or a T4 result, where the recording knows it (import reads it
              back); in KTT output, GlobalSize and LocalSize (below).
A Kernel Tuner cache's problem_size is the sizes as integers, a size over the parameters
as Kernel Tuner writes it ("num_blocks"), and [] where the recording has none (KTT
output), with which Kernel Tuner will not resume from the file until the member is
deleted; ktune_maximize keeps the objective's direction and ktune_restrictions the
restrictions. A cache entry holds the parameters
beside the measurements, so a recording with a parameter named as one of its members
(time, times, compile_time, timestamp, ...) is not written as a cache.

KTT output records kernel durations: each success gets one computation result of the
kernel whose Duration is its time in ms (TimeUnit Milliseconds); compile time, registers
and memory sizes, power and energy, and the verification, strategy and framework times go
where KTT keeps them, every other metric (and an objective other than time) is a profiling
counter. Its launch is GlobalSize and LocalSize, with Metadata's ComputeApi and
GlobalSizeType from the run's backend: a CUDA run's GlobalSize is the grid (in blocks), an
OpenCL run's the global size (in work-items), as KTT writes them, and a KTT file's come
back as they were (converted where its GlobalSizeType was not its ComputeApi's). A launch
the recording lacks (a Kernel Tuner cache or T4 file not written by ktune has none; a host
C or C++ kernel is called, not launched; a run stored before ktune kept launches) is left
out: KTT has no value for unknown (KTT's own loader wants the sizes, as it wants the
Platform, KttVersion and Timestamp no recording knows). KTT has no place for the
direction, restrictions, problem size, samples, failure messages, a failure's compile
time, metrics and launch (a failure has no computation result) or parameter values no
configuration has, nor for configurations the restrictions exclude, which are left out;
a timeout becomes ComputationFailed. A Kernel Tuner cache and T4 have no place for the
launch. A success without a kernel time is an error.

A configuration found wrong (a wrong_answer evaluation in the run: a verification, or a
check after dynamic tuning on later data, found its outputs wrong) is written once, as
its last wrong_answer evaluation, a failure; its successes are left out, with a warning
that counts them: it computes wrong answers on some input, so no format gets it as a
result (and a Kernel Tuner cache holds one entry per configuration).`,
		run: runExport,
	})
}

func defaultDB() string {
	if p := os.Getenv("KTUNE_DB"); p != "" {
		return p
	}
	return "ktune.db"
}

func runImport(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("import")
	fs := newFlags(env, c)
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB)")
	jsonOut := fs.Bool("json", false, "print JSON")
	again := fs.Bool("again", false, "import a file even when the database holds its recording already, as another run")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr(env, c, "no files to import")
	}
	if err := stdinOnce(env, c, pos); err != nil {
		return err
	}
	files, found, err := expandFolders(pos)
	if err != nil {
		return err
	}
	st, err := openDB(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	type summary struct {
		File       string       `json:"file"`
		Format     string       `json:"format,omitempty"`
		Run        int64        `json:"run,omitempty"`
		Device     string       `json:"device,omitempty"`
		Kernel     string       `json:"kernel,omitempty"`
		Configs    int          `json:"configurations"` // in the space: Restricted not counted
		Valid      int          `json:"valid"`
		Restricted int          `json:"restricted,omitempty"` // entries the restrictions exclude
		Best       *float64     `json:"best_objective,omitempty"`
		BestConfig tuner.Config `json:"best_configuration,omitzero"` // as 'ktune runs --json' and 'ktune tune --json' write it
		Warnings   []string     `json:"warnings,omitempty"`
		Error      string       `json:"error,omitempty"`
		// Skipped: the database holds the same recording already, as Run (imported from
		// SkippedFrom when that is another file)
		Skipped     bool   `json:"skipped,omitempty"`
		SkippedFrom string `json:"skipped_from,omitempty"`
	}
	var out []summary
	var left []string
	failed := 0
	// files imported before, by the source they were read from: importing one again adds
	// a run, which is said
	before := map[string]int64{}
	imports, err := st.Runs(ctx, store.RunFilter{Kind: store.KindImport})
	if err != nil {
		return err
	}
	for _, r := range imports {
		before[r.Source] = r.ID
	}
	imported := 0
	// interrupted says what an interruption at file f kept
	interrupted := func(f string) error {
		done := fmt.Sprintf("the %d files imported before it are stored, and running the same command again skips them", imported)
		if imported == 1 {
			done = "the file imported before it is stored, and running the same command again skips it"
		}
		fmt.Fprintf(env.stderr, "ktune import: interrupted at %s; %s\n", inputName(f), done)
		if *jsonOut {
			// the files done before it, as an uninterrupted import lists them
			if out == nil {
				out = []summary{}
			}
			writeJSON(env, out) // a failure is stdout's, said by main
		}
		return ctx.Err()
	}
	for _, f := range files {
		if ctx.Err() != nil {
			return interrupted(f)
		}
		s := summary{File: f}
		// a large file takes a while (a minute for a million configurations): say so on
		// a terminal
		large := false
		if fi, err := os.Stat(f); err == nil && fi.Size() >= largeRecording && isTerminal(env.stderr) {
			large = true
			fmt.Fprintf(env.stderr, "ktune import: reading %s (%d MB)...\n", f, fi.Size()>>20)
		}
		rec, err := readRecording(ctx, f)
		if ctx.Err() != nil {
			return interrupted(f) // while reading it
		}
		if large && err == nil {
			fmt.Fprintf(env.stderr, "ktune import: storing %s of %s...\n", counted(len(rec.Evaluations), "evaluation", "evaluations"), f)
		}
		if found[f] && errors.Is(err, format.ErrUnknown) {
			left = append(left, f) // a JSON file in a folder that is no recording
			continue
		}
		if err == nil && len(rec.Evaluations) == 0 {
			// a run of nothing (a cache cut short before its first entry was complete)
			// would be stored and then fail every command that reads it
			err = emptyRecording(inputName(f), rec)
		}
		if err == nil {
			s.Format, s.Device, s.Kernel, s.Warnings = rec.Format, rec.Device, rec.Kernel, rec.Warnings
			s.Configs, s.Valid, s.Restricted = importCounts(rec)
			s.Best, s.BestConfig = bestOf(rec)
			// The store looks for the same recording in the transaction that would import
			// it: another import of the same file at once skips it too.
			var run store.RunInfo
			stored := true
			if *again {
				run.ID, err = st.ImportRecording(ctx, rec)
			} else {
				run, stored, err = st.ImportRecordingOnce(ctx, rec)
			}
			switch {
			case err != nil && ctx.Err() != nil:
				return interrupted(f) // while storing it: nothing of it is stored
			case err != nil:
			case !stored:
				s.Run, s.Skipped = run.ID, true
				if run.Source != rec.Source {
					s.SkippedFrom = run.Source
				}
			default:
				s.Run = run.ID
				imported++
				// what came on standard input is another content each time
				if id, ok := before[rec.Source]; ok && f != stdinArg {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s was imported before, as run %d: this import adds another run", f, id))
				}
			}
		}
		if err != nil {
			s.Error = err.Error()
			failed++
		}
		out = append(out, s)
		if !*jsonOut {
			if s.Error != "" {
				fmt.Fprintf(env.stderr, "ktune import: %s\n", s.Error)
				continue
			}
			printWarnings(env.stderr, "import", s.Warnings)
			if s.Skipped {
				from := ""
				if s.SkippedFrom != "" {
					from = " (imported from " + s.SkippedFrom + ")"
				}
				fmt.Fprintf(env.stdout, "%s: %s, %s on %s: %s: the same recording as run %d in %s%s, skipped (--again imports it as another run)\n",
					inputName(f), s.Format, orDash(s.Kernel), orDash(s.Device), countsText(s.Configs, s.Valid, s.Restricted), s.Run, *db, from)
				continue
			}
			best := "none"
			if s.Best != nil {
				best = fmt.Sprintf("%g %s (%s)", *s.Best, objectiveUnit(rec), s.BestConfig)
			}
			fmt.Fprintf(env.stdout, "%s: %s, %s on %s: %s, best %s -> run %d in %s\n",
				inputName(f), s.Format, orDash(s.Kernel), orDash(s.Device), countsText(s.Configs, s.Valid, s.Restricted), best, s.Run, *db)
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(env.stderr, "ktune import: %s: %s\n", notRecordings(len(left)), listSome(left, 5))
	}
	if *jsonOut {
		if err := writeJSON(env, out); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files could not be imported", failed, len(out))
	}
	if len(out) == 0 {
		return fmt.Errorf("no recording to import in %s", strings.Join(pos, ", "))
	}
	return nil
}

// importCounts counts a recording's configurations as analyze and space do: those in
// its space (the entries but the restricted ones), the valid ones among them (measured
// successfully), and apart the restricted entries, which the restrictions exclude.
func importCounts(rec *result.Recording) (configs, valid, restricted int) {
	total, valid := rec.Counts()
	for i := range rec.Evaluations {
		if rec.Evaluations[i].Status == result.Restricted {
			restricted++
		}
	}
	return total - restricted, valid, restricted
}

// countsText says importCounts' numbers: "13 configurations, 11 valid (2 more entries
// are restricted, outside the space)".
func countsText(configs, valid, restricted int) string {
	s := fmt.Sprintf("%s, %d valid", counted(configs, "configuration", "configurations"), valid)
	switch {
	case restricted == 1:
		s += " (1 more entry is restricted, outside the space)"
	case restricted > 1:
		s += fmt.Sprintf(" (%d more entries are restricted, outside the space)", restricted)
	}
	return s
}

// largeRecording is the size from which import says what it is doing with a file.
const largeRecording = 32 << 20

// emptyRecording is the error for a recording without configurations, with what reading
// it noticed (an unclosed cache's "read 0 complete entries").
func emptyRecording(path string, rec *result.Recording) error {
	why := ""
	if len(rec.Warnings) > 0 {
		why = ": " + strings.Join(rec.Warnings, "; ")
	}
	return fmt.Errorf("%s: no configurations to import, nothing stored%s", path, why)
}

func objectiveUnit(rec *result.Recording) string {
	if rec.Objective == "" || rec.Objective == "time" {
		return "ms"
	}
	return rec.Objective
}

// namedConfig is e's configuration with rec's parameter names, in their order.
// bestOf returns rec's best objective and configuration (nil and none when nothing
// succeeded) for import's summary of it, which keeps nothing else of rec: a pointer into
// the best evaluation would keep all of it alive, and its samples with it, which share
// the reader's buffers (128 KiB a file for every file of a folder imported, 126 MB for
// 1,000).
func bestOf(rec *result.Recording) (*float64, tuner.Config) {
	best, ok := rec.Best()
	if !ok {
		return nil, tuner.Config{}
	}
	objective := best.Objective
	return &objective, namedConfig(rec, best)
}

func namedConfig(rec *result.Recording, e result.Evaluation) tuner.Config {
	c := tuner.Config{Values: e.Config}
	for _, p := range rec.Params[:len(e.Config)] {
		c.Names = append(c.Names, p.Name)
	}
	return c
}

func runExport(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("export")
	fs := newFlags(env, c)
	db := fs.String("db", defaultDB(), "results database: a file, or postgres://USER@HOST/DATABASE (also $KTUNE_DB), for --run")
	run := fs.Int64("run", 0, "export this run from the results database")
	name := fs.String("format", "", "output format: kerneltuner, t4 or ktt")
	outPath := fs.String("o", "", "output file (default, or -: standard output)")
	fs.StringVar(outPath, "out", "", "the same as -o")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	f, ok := format.Lookup(*name)
	if !ok || f.Write == nil {
		var names []string
		for _, f := range format.Formats() {
			if f.Write != nil {
				names = append(names, f.Name)
			}
		}
		return usageErr(env, c, "--format %q: want one of %s", *name, strings.Join(names, ", "))
	}
	toFile := *outPath != "" && *outPath != "-"
	if toFile {
		// before reading anything: a folder or an unwritable place is said at once
		if err := checkOutputs(output{"-o", *outPath, false}); err != nil {
			return err
		}
	}
	var rec *result.Recording
	switch {
	case *run != 0 && len(pos) == 0:
		st, err := openStoredRun(ctx, *db)
		if err != nil {
			return err
		}
		defer st.Close()
		if rec, err = st.Recording(ctx, *run); err != nil {
			return runError(ctx, st, *db, *run, err)
		}
		// what was noticed producing the run (an imported cache cut short), as exporting
		// its file says, and a tuning that has not finished: the output holds what it stored
		printWarnings(env.stderr, "export", rec.Warnings)
		if info, err := st.Run(ctx, *run); err == nil && info.Status != store.StatusFinished {
			printWarnings(env.stderr, "export", []string{fmt.Sprintf("run %d is %s, not finished: the output holds the %s it has stored so far",
				*run, info.Status, counted(len(rec.Evaluations), "evaluation", "evaluations"))})
		}
	case *run == 0 && len(pos) == 1:
		if rec, err = readRecording(ctx, pos[0]); err != nil {
			return err
		}
		printWarnings(env.stderr, "export", rec.Warnings)
	default:
		return usageErr(env, c, "give one input file or --run")
	}
	// a configuration found wrong is a failure: its successes count nowhere as one, and a
	// format that holds one result per configuration (a Kernel Tuner cache) could not hold
	// both; each is written once, as its last wrong_answer evaluation
	if successes, dropped := rec.KeepWrongAnswers(); dropped > 0 {
		printWarnings(env.stderr, "export", []string{foundWrongLeftOut(successes, dropped)})
	}
	if f.Losses != nil {
		if lost := f.Losses(rec); len(lost) > 0 {
			to := "the output"
			if toFile {
				to = *outPath
			}
			printWarnings(env.stderr, "export", []string{fmt.Sprintf("%s has no place for %s: they are not in %s",
				formatTitle(f.Name), joinAnd(lost), to)})
		}
	}
	if !toFile {
		return f.Write(env.stdout, rec)
	}
	return writeAtomically(*outPath, func(w io.Writer) error { return f.Write(w, rec) })
}

// foundWrongLeftOut says what export left out of configurations found wrong
// (result.Recording.KeepWrongAnswers): dropped evaluations, successes of them successful.
func foundWrongLeftOut(successes, dropped int) string {
	what := counted(dropped, "evaluation", "evaluations")
	if successes == dropped {
		what = counted(dropped, "successful evaluation", "successful evaluations")
	} else if successes > 0 {
		what += fmt.Sprintf(" (%d successful)", successes)
	}
	return fmt.Sprintf("%s of configurations found wrong (a wrong_answer evaluation: a verification, or a check after dynamic tuning, found their outputs wrong) left out: "+
		"the output holds each such configuration once, as its last wrong_answer evaluation, a failure", what)
}

// formatTitle is how the help names an output format.
func formatTitle(name string) string {
	switch name {
	case "ktt":
		return "KTT output"
	case "kerneltuner":
		return "a Kernel Tuner cache"
	case "t4":
		return "T4"
	}
	return name
}

// joinAnd joins phrases as a sentence does: "a, b and c".
func joinAnd(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// writeAtomically writes an output file with outfile.Write: a regular file is replaced
// only when write succeeds, so that a failed export leaves neither a half-written file nor
// a temporary one behind, and a device, a FIFO or a symbolic link is written through.
func writeAtomically(path string, write func(io.Writer) error) error {
	var writeErr error
	err := outfile.Write(path, func(w io.Writer) error {
		writeErr = write(w)
		return writeErr
	})
	if err != nil && err != writeErr {
		return fmt.Errorf("-o %s: %w", path, outfile.Cause(err, path))
	}
	return err
}
