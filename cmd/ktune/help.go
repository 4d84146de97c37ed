package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/strategy"
)

func init() { helpTopics["spec"] = spec.Doc }

func printStrategies(w io.Writer) {
	fmt.Fprintln(w, "Search strategies: choose one with --strategy NAME and set its options with --option name=value")
	fmt.Fprintln(w, "(repeatable), or write both at once as --strategy 'NAME:OPT=VALUE;OPT=VALUE', the form")
	fmt.Fprintln(w, "'ktune bench --strategies' takes. Choices are matched in any case (hamming = Hamming).")
	fmt.Fprintln(w, "Options that mean the same are the same however written (hamming = Hamming, 1e3 = 1000,")
	fmt.Fprintln(w, "0.50 = 0.5, 1 = true for a yes/no option): tune resumes, and bench --resume and hypertune")
	fmt.Fprintln(w, "--resume take, the runs and cells of either spelling; tune stores and prints a run's options")
	fmt.Fprintln(w, "as the strategy spells them.")
	fmt.Fprintln(w, "An option that takes a list is written a,b or [a,b] with --option; inside --strategies")
	fmt.Fprintln(w, "(and a hypertune --grid) write it in brackets, whose commas separate nothing:")
	fmt.Fprintln(w, "--strategies 'random,greedymls:order=[tile_size,use_method]'.")
	for _, name := range strategy.Names() {
		f, _ := strategy.Lookup(name)
		fmt.Fprintf(w, "\n%s\n", name)
		for _, line := range wrap(f.Doc, 86) {
			fmt.Fprintf(w, "    %s\n", line)
		}
		for _, o := range f.Options {
			fmt.Fprintf(w, "    --option %s=...\n", o.Name)
			for _, line := range wrap(o.Doc+". Default: "+o.Default+".", 82) {
				fmt.Fprintf(w, "        %s\n", line)
			}
		}
	}
}

func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

var helpTopics = map[string]string{
	"peaks": `Peaks: the device's memory bandwidth (GB/s) and arithmetic rate (GFLOP/s, by precision),
against which efficiency is measured (seed 003, eq. 2): 100 x max((essential bytes/time) /
GB/s peak, (essential flops/time) / GFLOP/s peak), for a spec that declares essential_ops
('ktune help spec'). Tune's summary, report's efficiency section, tune --stop-within-peak
and portability --within-peak use them.

Where a peak comes from, the first that gives it winning:
  --peak-gbs GB/s, --peak-gflops GFLOP/s   flags of tune, report and portability; the
                    arithmetic peak is of essential_ops' precision
  --peaks FILE      a peaks file, YAML or JSON: a device, by its name as stored ('ktune
                    runs') or as backend:index (as --device names it), to its peaks:
                      "NVIDIA A100-SXM4-80GB": {gbs: 2039, gflops: {float32: 19500, float64: 9700}}
                      "opencl:1": {gbs: 25.6, gflops: {float32: 150}}
  stored            the peaks the run stored when it was tuned: report and portability
                    of the run, and tune resuming it (its summary and --stop-within-peak)
  derived           what the device's backend derives from its attributes ('ktune
                    devices' shows each figure with how, or why it cannot: OpenCL never
                    reports memory bandwidth)

Tune stores the peaks it used with the run, in its settings ("peaks"): each figure with
its value, unit and source (flag, and which; file, with its path and the device's entry;
derived, with how). Report and portability of the run use them unless given others, and
say where each figure came from ("stored with run 3: given: --peak-gbs"). A resumed run
keeps the peaks it was given before where it is given none: 'ktune tune --stop-within-peak
F' on an interrupted run stops against them, and stores them again, with those it is given
now, which win. Runs stored before ktune stored peaks, and imports, have none: they use what
they are given, or the derived ones.
A peak that is needed and unknown is never guessed: the output names each figure missing,
alone (memory bandwidth, or the arithmetic peak of a precision), with why the backend could
not derive it and what gives it, e.g.
  the device's memory bandwidth peak is unknown (OpenCL reports no memory bandwidth): give
  it with --peak-gbs GB/s, or gbs: GB/s in the device's entry of a peaks file (--peaks)
Tune refuses --stop-within-peak so before any run is created, resumed or changed.
`,
	"expressions": `Restrictions and value lists use Python expression syntax and semantics.

Restrictions (a configuration is valid when every restriction is true):
  arithmetic   + - * / // % **   (/ is true division, // floor division, % takes the
               divisor's sign, ** binds tighter than unary minus: -2**2 == -4)
  bitwise      & | ^ ~ << >> on ints and bools, with Python's precedence (looser than
               + and -, tighter than comparisons): (x & (x-1)) == 0 is a power of two
  comparison   < <= > >= == !=, chained as in Python: 32 <= bx*by <= 1024
  logic        and or not;  x in [1, 2, 4];  x not in (3, 5);  a if cond else b
  functions    min max abs int float round bool; round(x, n) rounds halves to even
  values       integers, floats, 'strings', "strings", True, False
A restriction that would raise in Python is not satisfied: division by zero, 0 ** -1,
a float ** that overflows, a bitwise operator on a float, a negative shift count;
only where Python would reach it: 'a == 1 or 1 // 0 == 0' holds where a is 1.
Integers are exact below 2**53; a restriction whose integers reach it (Python's are
unbounded) stops the space's construction with an error naming the configuration.
Names are parameter names and a spec's constants; an unknown name is an error that
suggests the closest one. An expression reads the names directly: Kernel Tuner's
lambda p: p["bx"] * p["by"] <= 1024 is written bx * by <= 1024. A comparison of a
parameter with a value it never takes (ACC == 'dubble', bx in [32, 48] where no bx is 48)
is computed as Python does, never true (or, with != and not in, always), and tune and
space warn of it with the spec's line and the parameter's values.

How a space is built: parameters that no restriction reads together are independent, and
the space is the product of such groups, indexed without enumerating it (billions of
configurations cost nothing). Inside a group of parameters that restrictions tie
together, every combination of their values is enumerated and every valid one indexed,
6 bytes or more each: tie few parameters in each restriction. A group whose index would
take more than --space-memory (by default 1/8 of the memory available, or
$KTUNE_SPACE_MEMORY; 'none' for no bound) is refused with an error that names its
restrictions, at once when a sample of its combinations shows it. A restriction that
ktune proves true for every combination of integer values (sums, differences, products
and comparisons: "a + b > 0" of positive a and b) ties nothing.

Parameter value lists (in specs and T1 files) are constant expressions, which may read
a spec's constants (a whole constant is an int):
  [1, 2, 4] + list(range(32, 1024+1, 32))
  [2**i for i in range(0, 6)]
  [i for i in range(1, 11) if i % 2 == 0]
  [NB, 2*NB]
`,
}
