// Command ktune tunes compute kernels: it builds search spaces, imports and exports
// recorded tuning results, and replays recorded spaces to evaluate search strategies.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/ktune/ktune/expr"
)

// command is one ktune subcommand.
type command struct {
	name    string
	hidden  bool // internal commands are left out of the command list
	summary string
	usage   string // the argument synopsis and a description, printed by --help
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// cliEnv carries the output streams, so tests can run commands in-process.
type cliEnv struct {
	stdout, stderr io.Writer
	log            *slog.Logger
	// level is log's level, which --log-level sets before the command or among its flags
	level *slog.LevelVar
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// stopSignals end a command the same way: Ctrl-C, a kill and a closed terminal (SIGHUP, a
// dropped SSH session). What was measured is kept, and a run is marked interrupted so that
// the same command resumes it. The worker processes, in the same process group, take the
// same signals and stop with their parent.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func main() {
	ctx, stop := notifyStop(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopSignal is the cause of a context that notifyStop cancelled.
type stopSignal struct{ sig os.Signal }

func (s stopSignal) Error() string { return s.sig.String() + " signal received" }

// notifyStop returns a context cancelled at the first of stopSignals, with the signal as
// its cause, so that the exit status can name it (interruptedStatus). Later signals are
// taken and ignored until stop is called, as with signal.NotifyContext.
func notifyStop(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	// pipe takes SIGPIPE once stopping: a Ctrl-C in 'ktune bench ... 2>&1 | tee log' ends
	// tee too, and the first write to it (the interruption's message) would otherwise kill
	// ktune before it writes the final checkpoint and its outputs. Writes to the closed
	// pipe fail instead. Until then a closed pipe ends ktune as it ends other commands.
	pipe := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Notify(pipe, syscall.SIGPIPE)
			cancel(stopSignal{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// interruptedError says what an interruption left ("interrupted after 24 of 300 runs") and
// is ctx's error underneath, for the exit status, without Go's "context canceled" in the
// message.
type interruptedError struct {
	msg string
	err error
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.err }

// interruption is the interruptedError of ctx, cancelled, with the message format gives.
func interruption(ctx context.Context, format string, a ...any) error {
	return &interruptedError{msg: fmt.Sprintf(format, a...), err: ctx.Err()}
}

// interruptedStatus is the exit status of a command that ctx's cancellation ended: 128
// plus the signal's number, as a shell reports a process that the signal killed (130 for
// Ctrl-C, 143 for SIGTERM, 129 for SIGHUP); 130 when no signal is known.
func interruptedStatus(ctx context.Context) int {
	var s stopSignal
	if errors.As(context.Cause(ctx), &s) {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return 130
}

const mainUsage = `ktune: an auto-tuner for GPU and CPU compute kernels.

Usage:
  ktune [--log-level debug|info|warn|error] <command> [flags] [arguments]

Flags may come before or after the arguments, as --flag value or --flag=value; a flag
given twice takes its last value, but for the repeatable ones (--option, bench's
--defaults). --log-level is taken before the command or among its flags.

Commands:
%s
Run 'ktune help <command>' or 'ktune <command> --help' for a command's flags.
Run 'ktune help spec' for the kernel spec format, 'ktune help expressions' for the
restriction syntax and 'ktune help strategies' for the search strategies and their options.

Efficiency against the peak (seed 003, eq. 2): tune's summary, report's efficiency
section, tune --stop-within-peak and portability --within-peak measure a kernel whose spec
declares essential_ops against the device's peaks: --peak-gbs GB/s and --peak-gflops
GFLOP/s, or a peaks file (--peaks FILE: YAML or JSON, a device by name or backend:index to
{gbs: GB/s, gflops: {float32: GFLOP/s, ...}}), else those its backend derives ('ktune
devices'). Tune stores the peaks it used with the run, each with where it came from;
report, portability and tune resuming the run use them unless given others. Run
'ktune help peaks' for more.

Environment:
  KTUNE_DB              results database of the commands that take --db (default ktune.db):
                        an SQLite file (a path, or sqlite:PATH), or a PostgreSQL database
                        that many ktune processes share (postgres://USER@HOST/DATABASE)
  KTUNE_CACHE           folder of compiled host C and C++ kernels (hostc/ in it; default
                        ktune/hostc in the user's cache folder, $XDG_CACHE_HOME or ~/.cache)
  KTUNE_CUDA_CACHE      folder of compiled CUDA modules, or off (default ktune/cuda in the
                        user's cache folder)
  KTUNE_OPENCL_LIBRARY  the OpenCL library to load (default libOpenCL.so.1)
  KTUNE_CUDA_LIBRARY    the CUDA driver library (default libcuda.so.1)
  KTUNE_NVRTC_LIBRARY   NVRTC (default libnvrtc.so.13, .12 or .11.x, also under $CUDA_HOME
                        or /usr/local/cuda)
  KTUNE_NVML_LIBRARY    NVML, for power, energy and clocks (default libnvidia-ml.so.1)
  KTUNE_SPACE_MEMORY    default of --space-memory: the most memory a space may take
                        (default 1/8 of the memory available; none for no bound)
  KTUNE_WORKER_MEMORY   default of --worker-memory: the most memory a worker may map (default
                        half the machine's on a CPU device, else none; none for no bound)
  KTUNE_MAX_RECORDING   the largest recording read, decompressed (default 1GiB)
  CC                    the host C compiler (default cc, gcc or clang)
  CXX                   the host C++ compiler (default c++, g++ or clang++)

Input: - stands for standard input (a pipe or a file redirected to it) where import,
export, simulate, analyze and portability take a recorded file; the other commands read
their inputs by their file names, and say so when given -.

Output: results go to standard output (with --json as one JSON document, an interrupted
or partly failed command's too); errors, warnings, logs and progress go to standard error,
errors as "ktune COMMAND: ...". Progress (count, ETA, best so far) is shown on a terminal,
and with --progress elsewhere as a line at most every second.

Exit status:
  0    success
  1    failure (for commands over many inputs: some of them failed, the others are printed)
  2    usage error: an unknown command or flag, a bad flag value, missing arguments
  130  interrupted by Ctrl-C (SIGINT); 143 by SIGTERM and 129 by SIGHUP, as a shell
       reports a process the signal ended; what was finished is printed and kept
`

func printMainUsage(w io.Writer) {
	sort.Slice(commands, func(i, j int) bool { return commands[i].name < commands[j].name })
	var b strings.Builder
	for _, c := range commands {
		if !c.hidden {
			fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintf(w, mainUsage, b.String())
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	for len(args) > 0 && (args[0] == "--log-level" || args[0] == "-log-level" ||
		strings.HasPrefix(args[0], "--log-level=") || strings.HasPrefix(args[0], "-log-level=")) {
		_, val, _ := strings.Cut(args[0], "=")
		if !strings.Contains(args[0], "=") && len(args) > 1 {
			val, args = args[1], args[1:]
		}
		args = args[1:]
		if err := (logLevel{level}).Set(val); err != nil {
			fmt.Fprintf(stderr, "ktune: --log-level %q: %v\n", val, err)
			return 2
		}
	}
	out := &recordingWriter{w: stdout}
	env := &cliEnv{stdout: out, stderr: stderr, level: level,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	if len(args) == 0 {
		// a usage error: the usage goes with the errors, not into a script's output
		printMainUsage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		printMainUsage(stdout)
		return 0
	}
	if args[0] == "help" {
		if args[1] == "strategies" {
			printStrategies(stdout)
			return 0
		}
		if topic, ok := helpTopics[args[1]]; ok {
			fmt.Fprint(stdout, topic)
			return 0
		}
		c := lookup(args[1])
		if c == nil {
			names := []string{"strategies"}
			for t := range helpTopics {
				names = append(names, t)
			}
			sort.Strings(names)
			var cmds []string
			for _, c := range commands {
				if !c.hidden {
					cmds = append(cmds, c.name)
				}
			}
			sort.Strings(cmds) // in the order of the command list
			hint := ""
			if near := expr.Closest(args[1], append(slices.Clone(cmds), names...)); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			fmt.Fprintf(stderr, "ktune: no help for %q%s\ncommands: %s\ntopics: %s\n", args[1], hint, strings.Join(cmds, ", "), strings.Join(names, ", "))
			return 2
		}
		args = []string{c.name, "--help"}
	}
	c := lookup(args[0])
	if c == nil {
		var names []string
		for _, c := range commands {
			if !c.hidden {
				names = append(names, c.name)
			}
		}
		if c := expr.Closest(args[0], names); c != "" {
			fmt.Fprintf(stderr, "ktune: unknown command %q; did you mean %q?\n\n", args[0], c)
		} else {
			fmt.Fprintf(stderr, "ktune: unknown command %q\n\n", args[0])
		}
		printMainUsage(stderr)
		return 2
	}
	env.log = slog.New(newCLIHandler(stderr, c.name, level))
	err := c.run(ctx, env, args[1:])
	err = outputFailed(env, c, err, out.failed())
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, context.Canceled):
		return interruptedStatus(ctx) // interrupted; the command has said what was kept
	}
	fmt.Fprintf(stderr, "ktune %s: %v\n", c.name, err)
	return 1
}

// recordingWriter passes writes on to w and keeps the first error one of them had.
// Commands print their results with fmt.Fprintf and do not check each write: standard
// output on a full disk must still fail the command, not end it with status 0 and an
// empty file.
type recordingWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return n, err
}

// failed returns the first error writing to w.
func (r *recordingWriter) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// outputFailed is the error of command c, which returned err, when writing its standard
// output failed with werr (commands flush what they buffer before they return): err where
// nothing failed or c was interrupted, else an error saying that the output is lost. A
// command error of its own (other than werr itself) is printed first.
func outputFailed(env *cliEnv, c *command, err, werr error) error {
	if werr == nil || errors.Is(err, context.Canceled) || errors.Is(err, errUsage) {
		return err
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.Is(err, werr) {
		fmt.Fprintf(env.stderr, "ktune %s: %v\n", c.name, err)
	}
	var pe *fs.PathError
	if errors.As(werr, &pe) {
		werr = pe.Err // the file is standard output, whatever its name
	}
	return fmt.Errorf("writing standard output: %w", werr)
}

// errUsage marks an error already reported with the command's usage.
var errUsage = errors.New("usage error")

// newFlags returns a flag set whose --help prints the command's usage to stdout.
func newFlags(env *cliEnv, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("ktune "+c.name, flag.ContinueOnError)
	// The flag package reports a bad flag itself and then calls Usage, which --help calls
	// too: the whole usage goes to stdout for --help (parseFlags), and a bad flag gets the
	// command's first usage line and where to read more, so that the error is not lost
	// above pages of help.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if env.level != nil {
		// also among a command's flags, where a user adds it to a command line
		fs.Var(logLevel{env.level}, "log-level", "what is logged to standard error: debug, info, warn or error (also given before the command)")
	}
	return fs
}

// logLevel is the --log-level flag: it sets the level of the command's logger.
type logLevel struct{ v *slog.LevelVar }

func (l logLevel) String() string {
	if l.v == nil {
		return ""
	}
	return strings.ToLower(l.v.Level().String())
}

func (l logLevel) Set(s string) error {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(s)); err != nil {
		return errors.New("want debug, info, warn or error")
	}
	l.v.Set(lv)
	return nil
}

// printUsage prints the command's whole usage with its flags to w.
func printUsage(w io.Writer, fs *flag.FlagSet, c *command) {
	fmt.Fprintf(w, "Usage: ktune %s %s\n\nFlags:\n", c.name, c.usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parseFlags parses flags placed anywhere among the arguments.
func parseFlags(env *cliEnv, c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(env.stdout, fs, c)
				return nil, err
			}
			fmt.Fprintf(env.stderr, "ktune %s: %v\nUsage: ktune %s %s\nRun 'ktune %s --help' for every flag.\n",
				c.name, flagError(fs, err), c.name, firstLine(c.usage), c.name)
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// invalidValue and invalidBool match the flag package's errors for a value a flag refused.
var (
	invalidValue = regexp.MustCompile(`(?s)^invalid value ("(?:[^"\\]|\\.)*") for flag -([^:]+): (.*)$`)
	invalidBool  = regexp.MustCompile(`^invalid boolean value ("(?:[^"\\]|\\.)*") for -([^:]+): parse error$`)
	// undefinedFlag and missingValue match its errors for a flag it does not know and
	// for one given without its value
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	missingValue  = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
)

// flagError says a value a flag refused as the other usage errors do, "--time 5: want a
// duration ...", rather than as the flag package does, `invalid value "5" for flag -time:
// ...`; the flag package's bare "parse error" of a number says what number fs's flag
// wants; other errors are returned as they are.
func flagError(fs *flag.FlagSet, err error) error {
	if m := undefinedFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg := "unknown flag " + dashed(m[1])
		if near := expr.Closest(m[1], names); near != "" {
			msg += "; did you mean " + dashed(near) + "?"
		}
		return errors.New(msg)
	}
	if m := missingValue.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s needs a value", dashed(m[1]))
	}
	m := invalidValue.FindStringSubmatch(err.Error())
	if m == nil {
		if m = invalidBool.FindStringSubmatch(err.Error()); m == nil {
			return err
		}
		m = append(m, "want true or false (or the flag alone for true)")
	}
	value, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	if value == "" || strings.ContainsAny(value, " \t\n\"'\\") {
		value = m[1]
	}
	if reason := m[3]; reason == "parse error" || reason == "value out of range" {
		m[3] = numberWanted(fs.Lookup(m[2]), reason)
	}
	return fmt.Errorf("%s %s: %s", dashed(m[2]), value, m[3])
}

// dashed is the flag name as the help writes it: -o, --budget.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// numberWanted says what number the flag f wants, for the flag package's reason (parse
// error, value out of range), by the type of its value.
func numberWanted(f *flag.Flag, reason string) string {
	if f == nil {
		return reason
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return reason
	}
	what := ""
	switch g.Get().(type) {
	case uint, uint64:
		what = "a whole number, 0 or more"
	case int, int64:
		what = "a whole number"
	case float64:
		what = "a number, such as 0.5 or 1e-6"
	default:
		return reason
	}
	if reason == "value out of range" {
		return "out of range: want " + what + ", within 64 bits"
	}
	return "want " + what
}

func usageErr(env *cliEnv, c *command, format string, a ...any) error {
	fmt.Fprintf(env.stderr, "ktune %s: %s\nUsage: ktune %s %s\n", c.name, fmt.Sprintf(format, a...), c.name, firstLine(c.usage))
	return errUsage
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
