package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers every result format
	"github.com/ktune/ktune/internal/outfile"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/simulator"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
	"github.com/ktune/ktune/store/sqlite"
	"github.com/ktune/ktune/tuner"
)

func openRecording(path string) (*result.Recording, error) {
	return format.Open(path)
}

// measuredNothing says that run of the database at db, read as rec, has no evaluations to
// verb yet, where the simulator would say that its space is empty: a tuning run stores
// each evaluation as it is measured, and one that has just started (analysed while it is
// tuned) or was killed before its first has none.
func measuredNothing(db string, run int64, rec *result.Recording, verb string) error {
	if len(rec.Evaluations) > 0 {
		return nil
	}
	return fmt.Errorf("run %d in %s: no evaluations yet, nothing to %s (a tuning run stores each as it is measured: one that has just started, or was killed before its first, has none)", run, db, verb)
}

// stdinArg is the input argument that names standard input, as for other Unix tools.
const stdinArg = "-"

// readRecording reads the recording that an input argument names: the file, or standard
// input for stdinArg.
func readRecording(ctx context.Context, arg string) (*result.Recording, error) {
	if arg == stdinArg {
		return format.OpenStdin(ctx)
	}
	return format.OpenContext(ctx, arg)
}

// inputName calls an input argument in messages: standard input by that name.
func inputName(arg string) string {
	if arg == stdinArg {
		return format.Stdin
	}
	return arg
}

// stdinOnce refuses standard input given twice among the input arguments of command c:
// it is read once.
func stdinOnce(env *cliEnv, c *command, args []string) error {
	if n := slices.Index(args, stdinArg); n >= 0 && slices.Contains(args[n+1:], stdinArg) {
		return usageErr(env, c, "- (standard input) is given twice: it is read once")
	}
	return nil
}

// noStdin refuses standard input among the input arguments of command c, which reads
// its inputs by their file names, saying why.
func noStdin(env *cliEnv, c *command, args []string, why string) error {
	if slices.Contains(args, stdinArg) {
		return usageErr(env, c, "- (standard input) is not read: %s", why)
	}
	return nil
}

// cutShort refuses a recording whose file ends early (a gzip stream cut short, by a copy
// or download that did not finish), for the commands that measure strategies against it:
// its space and optimum would be those of the part read, and the fractions of the optimum
// meaningless. An unclosed Kernel Tuner cache (an interrupted run, not compressed) is read
// as far as it goes, with a warning: its entries are what that run measured.
func cutShort(path string, rec *result.Recording) error {
	if !rec.Truncated {
		return nil
	}
	where := ""
	if len(rec.Warnings) > 0 { // the reader's note of the cut, less what this error says
		where = " (" + strings.TrimSuffix(strings.TrimPrefix(rec.Warnings[0], rec.Source+": "), "; read up to there") + ")"
	}
	return fmt.Errorf("%s: the file is truncated%s: only %d entries could be read, so its space and optimum are not the recording's; "+
		"give the whole file ('ktune import' reads what a cut file holds)", path, where, len(rec.Evaluations))
}

// printWarnings writes what reading a recording or building its simulator noticed without
// failing, one line each, as "ktune CMD: warning: ...".
func printWarnings(w io.Writer, cmd string, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "ktune %s: warning: %s\n", cmd, s)
	}
}

// recordedSpace is the space of the configurations a recording holds that its producer did
// not mark as restricted: the space the simulator's recorded mode searches.
func recordedSpace(rec *result.Recording) (*space.Space, error) {
	sim, err := simulator.New(rec, simulator.Options{Mode: simulator.Recorded})
	if err != nil {
		return nil, err
	}
	return sim.Space(), nil
}

// checkOutputs makes sure that each named output (a file, or with dir a folder) can be
// written before a long computation starts, creating the folders it needs, so that an
// hour of benchmark is not lost to a typo in --csv at the end. Empty paths are skipped.
// A file is checked where outfile.Write will write it: where its symbolic links lead; a
// device or a FIFO there is written in place, so it is not checked (opening a FIFO would
// wait for its reader).
func checkOutputs(outputs ...output) error {
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		dir := o.path
		if !o.dir {
			target, fi, err := outfile.Target(o.path)
			switch {
			case err != nil:
				return fmt.Errorf("%s %s: %w", o.flag, o.path, outfile.Cause(err, o.path))
			case fi != nil && fi.IsDir():
				return fmt.Errorf("%s %s: is a folder, want a file", o.flag, o.path)
			case fi != nil && !fi.Mode().IsRegular():
				continue
			}
			dir = filepath.Dir(target)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		f, err := os.CreateTemp(dir, ".ktune-write-check-*")
		if err != nil {
			return fmt.Errorf("%s %s: cannot write there: %w", o.flag, o.path, err)
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// output is a path a command will write, named by its flag for errors.
type output struct {
	flag, path string
	dir        bool
}

// openStoredRun opens the results database for commands that read a run from it (--run,
// report RUN): a database file that is not there is an error that says where ktune looked,
// instead of an empty database created under a mistyped name; nor does an empty file
// become one.
func openStoredRun(ctx context.Context, db string) (store.Store, error) {
	if store.Scheme(db) == store.DefaultScheme {
		path := sqlite.PathOf(db)
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no results database at %s (give --db or set $KTUNE_DB; ktune tune and ktune import create one)", path)
		}
		// SQLite takes an empty file for an empty database, and opening it would write
		// ktune's tables into it: a command that only reads leaves the file as it is.
		if err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			return nil, fmt.Errorf("%s is an empty file, not a results database: it holds no runs (give --db or set $KTUNE_DB; ktune tune and ktune import create one)", path)
		}
	}
	st, err := openDB(ctx, db)
	if err != nil {
		return nil, err
	}
	// a run recorded as running that no ktune process holds (its tuning was killed)
	// reads as interrupted
	return tuner.LiveStatus(st, db), nil
}

// runError is err, from reading run id of the database db, as a message: a run the
// database does not hold gets one that says which runs it holds, rather than the store's
// "run 99: not found" under "run 99 in db".
func runError(ctx context.Context, st store.Store, db string, id int64, err error) error {
	e := &storedRunError{db: db, id: id, err: err}
	if !errors.Is(err, store.ErrNotFound) {
		e.msg = fmt.Sprintf("run %d in %s: %v", id, db, err)
		return e
	}
	runs, lerr := st.Runs(ctx, store.RunFilter{})
	switch {
	case lerr != nil:
		e.msg = fmt.Sprintf("%s holds no run %d", db, id)
		return e
	case len(runs) == 0:
		e.msg = fmt.Sprintf("%s holds no run %d: it holds no runs yet", db, id)
		return e
	}
	lo, hi := runs[0].ID, runs[0].ID
	for _, r := range runs {
		lo, hi = min(lo, r.ID), max(hi, r.ID)
	}
	held := fmt.Sprintf("run %d", lo)
	if len(runs) > 1 {
		held = fmt.Sprintf("%d runs, ids %d to %d", len(runs), lo, hi)
	}
	e.msg = fmt.Sprintf("%s holds no run %d: it holds %s ('ktune runs --db %s' lists them)", db, id, held, db)
	return e
}

// storedRunError is an error reading a run of a results database.
type storedRunError struct {
	db  string
	id  int64
	msg string
	err error
}

func (e *storedRunError) Error() string { return e.msg }
func (e *storedRunError) Unwrap() error { return e.err }

// input names the run as analyze --json's list of errors does.
func (e *storedRunError) input() string { return fmt.Sprintf("run %d in %s", e.id, e.db) }

// noBackend is the error for a --db whose scheme no store of this build serves.
func noBackend(db string) error {
	return fmt.Errorf("--db %s: ktune stores results in SQLite files and PostgreSQL databases, not at %s: locations (give a file path, sqlite:PATH, or postgres://USER@HOST/DATABASE)",
		db, store.Scheme(db))
}

// openDB opens the results database named by --db.
func openDB(ctx context.Context, db string) (store.Store, error) {
	st, err := store.Open(ctx, db)
	if errors.Is(err, store.ErrNoBackend) {
		return nil, noBackend(db)
	}
	return st, err
}

// distinctOutputs refuses outputs that are the same file as a recording read (files, a
// folder standing for those under it), as another input, or as each other: the run
// would destroy what it read (QA: hypertune --out onto its recording replaced the
// recording by the defaults file; --out onto the --resume file lost its cells). The
// --resume file (resume) may be --checkpoint, which keeps it up to date; no other input
// may be an output.
func distinctOutputs(files []string, resume string, inputs []outfile.Named, outputs ...outfile.Named) error {
	expanded, _, _ := expandFolders(files) // a folder that fails is said when it is read
	if expanded == nil {
		expanded = files
	}
	for _, f := range expanded {
		inputs = append(inputs, outfile.Named{What: "the recording", Path: f})
	}
	var others []outfile.Named
	for _, o := range outputs {
		if o.What != "--checkpoint" {
			others = append(others, o)
		}
	}
	if err := outfile.Distinct([]outfile.Named{{What: "the --resume file", Path: resume}}, others); err != nil {
		return err
	}
	return outfile.Distinct(inputs, outputs)
}
