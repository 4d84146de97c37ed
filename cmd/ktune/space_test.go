package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeT1 writes a T1 space definition of params parameters of ten values 0..9 each, with
// the restrictions, and returns its path.
func writeT1(t *testing.T, names []string, restrictions ...string) string {
	t.Helper()
	var ps, cs []string
	for _, n := range names {
		ps = append(ps, fmt.Sprintf(`{"Name": %q, "Type": "int", "Values": "list(range(10))"}`, n))
	}
	for _, r := range restrictions {
		cs = append(cs, fmt.Sprintf(`{"Expression": %q}`, r))
	}
	path := filepath.Join(t.TempDir(), "space.json")
	text := fmt.Sprintf(`{"General": {"FormatVersion": "0.0.1"}, "ConfigurationSpace": {"TuningParameters": [%s], "Conditions": [%s]}}`,
		strings.Join(ps, ", "), strings.Join(cs, ", "))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSpaceConstructionStopsWhenInterrupted(t *testing.T) {
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("p%d", i))
	}
	// a product of 1e12 that only the last parameter's restriction check prunes
	path := writeT1(t, names, strings.Join(names, "+")+" == 3")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel) // what Ctrl-C does through signal.NotifyContext
	var out, errOut bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"space", "--progress", path}, &out, &errOut)
	if code != 130 {
		t.Fatalf("exit %d, want 130 (interrupted); stderr %q", code, errOut.String())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("stopped %v after the start, interrupted at 200ms", took)
	}
	if !strings.Contains(errOut.String(), "interrupted after") || !strings.Contains(errOut.String(), "of the product") {
		t.Errorf("stderr %q: want it to say the construction was interrupted and how far it got", errOut.String())
	}
}

func TestSpaceListJSONKeepsTheIndexApartFromParameters(t *testing.T) {
	// a parameter named "index" must not hide the configuration's index
	path := writeT1(t, []string{"index", "x"}, "index < 2", "x == 5")
	out, errOut, code := ktune(t, "space", "list", path, "--json", "--limit", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []struct {
		Index  int            `json:"index"`
		Config map[string]int `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	want := []struct{ index, param int }{{0, 0}, {1, 1}}
	if len(got) != len(want) {
		t.Fatalf("%d configurations, want %d:\n%s", len(got), len(want), out)
	}
	for k, w := range want {
		if got[k].Index != w.index || got[k].Config["index"] != w.param || got[k].Config["x"] != 5 {
			t.Errorf("entry %d = %+v, want index %d with parameter index=%d, x=5", k, got[k], w.index, w.param)
		}
	}
	// an empty page is an empty array, not null
	if out, _, code := ktune(t, "space", "neighbours", path, "--json", "--config", "index=0,x=5", "--neighbourhood", "adjacent"); code != 0 || strings.TrimSpace(out) == "" {
		t.Errorf("neighbours --json: exit %d %q", code, out)
	} else if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || got[0].Index != 1 {
		t.Errorf("neighbours --json: %v %+v", err, got)
	}
}

// limitedWriter fails once more than n bytes were written: a reader that stopped.
type limitedWriter struct {
	n   int
	buf bytes.Buffer
}

var errReaderGone = fmt.Errorf("reader gone")

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.n {
		return 0, errReaderGone
	}
	return w.buf.Write(p)
}

func TestSpaceListStreamsAListTooLargeToHold(t *testing.T) {
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("p%d", i))
	}
	path := writeT1(t, names) // 1e10 configurations: the list can only be streamed
	for _, jsonOut := range []bool{false, true} {
		args := []string{"space", "list", path, "--limit", "0"}
		if jsonOut {
			args = append(args, "--json")
		}
		w := &limitedWriter{n: 1 << 20}
		var errOut bytes.Buffer
		code := run(context.Background(), args, w, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), errReaderGone.Error()) {
			t.Errorf("json %v: exit %d, stderr %q: want the write error", jsonOut, code, errOut.String())
		}
		first := strings.SplitN(w.buf.String(), "\n", 3)
		want := "0\tp0=0, p1=0, p2=0, p3=0, p4=0, p5=0, p6=0, p7=0, p8=0, p9=0"
		if jsonOut {
			want = "[" + "\n" + `  {"index": 0, "config": {"p0": 0, "p1": 0, "p2": 0, "p3": 0, "p4": 0, "p5": 0, "p6": 0, "p7": 0, "p8": 0, "p9": 0}},`
			first[0] += "\n" + first[1]
		}
		if len(first) < 2 || first[0] != want {
			t.Errorf("json %v: output starts %q, want %q", jsonOut, first[0], want)
		}
	}
}

func TestSpaceSampleSaysWhenTheSpaceIsSmallerThanN(t *testing.T) {
	path := writeT1(t, []string{"a", "b"}, "a < 2", "b < 2") // 4 configurations
	out, errOut, code := ktune(t, "space", "sample", path, "--n", "10")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 4 {
		t.Fatalf("exit %d, output %q: want the 4 configurations", code, out)
	}
	if !strings.Contains(errOut, "--n 10 is more than the space's 4 configurations") {
		t.Errorf("stderr %q: want it to say the sample was capped", errOut)
	}
	if _, errOut, _ := ktune(t, "space", "sample", path, "--n", "4"); errOut != "" {
		t.Errorf("--n 4 of 4: stderr %q, want nothing", errOut)
	}
}

// A group whose index would pass --space-memory (or $KTUNE_SPACE_MEMORY) is refused at
// once, with the restriction, the file and the flag named; "none" lifts the bound.
func TestSpaceRefusesAGroupPastSpaceMemory(t *testing.T) {
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("p%d", i))
	}
	path := writeT1(t, names, strings.Join(names, "+")+" >= 6")
	check := func(what string, args ...string) {
		t.Helper()
		start := time.Now()
		_, errOut, code := ktune(t, append([]string{"space", "count", path}, args...)...)
		if code != 1 || !strings.Contains(errOut, path+": the restriction") || !strings.Contains(errOut, ">= 6\" ties the parameters") ||
			!strings.Contains(errOut, "64.0 MiB allowed") || !strings.Contains(errOut, "--space-memory SIZE") {
			t.Errorf("%s: exit %d, %s", what, code, errOut)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: refused after %v, want at once", what, took)
		}
	}
	check("--space-memory 64MiB", "--space-memory", "64MiB")
	t.Setenv("KTUNE_SPACE_MEMORY", "64MiB")
	check("$KTUNE_SPACE_MEMORY=64MiB")
	if _, errOut, code := ktune(t, "space", "count", path, "--space-memory", "0"); code != 2 || !strings.Contains(errOut, "--space-memory 0: want a size above 0") {
		t.Errorf("--space-memory 0: exit %d, %s", code, errOut)
	}
	t.Setenv("KTUNE_SPACE_MEMORY", "lots")
	if _, errOut, code := ktune(t, "space", "count", path); code != 2 || !strings.Contains(errOut, "$KTUNE_SPACE_MEMORY=lots") {
		t.Errorf("$KTUNE_SPACE_MEMORY=lots: exit %d, %s", code, errOut)
	}
}

// The summary quotes string values ("320" is not 320), keeps a restriction written over
// several lines under its first line, says "1 value" and "1 independent group", and its
// JSON writes <, > and & as they are.
func TestSpaceCountSaysValuesAndRestrictionsAsWritten(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "k.yaml")
	text := `kernel: {name: k, source: k.c}
parameters:
  - {name: a, values: [1, 2, 4]}
  - {name: s, values: ["<x>", "a&b", "4"]}
  - {name: c, values: [7]}
restrictions:
  - >-
    a <= 2 or
     s != '>' and c > 0
problem_size: [1]
arguments:
  - {name: n, type: int32, value: 1}
`
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ktune(t, "space", "count", spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`3 values: "<x>", "a&b", "4"` + "\n",
		"  c                          1 value: 7\n",
		"  restriction: a <= 2 or\n                s != '>' and c > 0\n",
		"1 independent group,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"space", "count", "--json", spec}, {"space", "list", "--json", spec}} {
		out, errOut, code := ktune(t, args...)
		if code != 0 || !json.Valid([]byte(out)) {
			t.Fatalf("%v: exit %d, %s\n%s", args, code, errOut, out)
		}
		if strings.Contains(out, `\u00`) || !strings.Contains(out, `"<x>"`) || !strings.Contains(out, `"a&b"`) {
			t.Errorf("%v: <, > or & escaped:\n%s", args, out)
		}
		if args[1] == "count" && !strings.Contains(out, `"a <= 2 or\n s != '>' and c > 0"`) {
			t.Errorf("%v: the restriction is not as written:\n%s", args, out)
		}
	}
}

// A configuration written back as 'space list' and --json write it reads as that
// configuration: a boolean as true or True, a string parameter's "1" (not the number 1),
// a string with a comma in it.
func TestSpaceNeighboursReadsValuesAsListAndJSONWriteThem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values.yaml")
	text := `kernel: {name: k, source: k.cl}
problem_size: [1024]
arguments:
  - {name: out, type: int32, value: 1}
parameters:
  - {name: layout, values: ["1", "2", "row,col"]}
  - {name: flag, values: [true, false]}
  - {name: f, values: [0.5, 1.0]}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want, errOut, code := ktune(t, "space", "neighbours", path, "--config", "layout=2,flag=True,f=1.0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, config := range []string{
		"layout=2,flag=true,f=1.0",   // as --json writes a boolean
		`layout="2",flag=True,f=1`,   // as 'space count' writes a string; 1 finds 1.0
		"layout=2, flag=True, f=1.0", // as 'space list' writes a configuration
	} {
		out, errOut, code := ktune(t, "space", "neighbours", path, "--config", config)
		if code != 0 || out != want {
			t.Errorf("--config %s: exit %d %s\n%s\nwant\n%s", config, code, errOut, out, want)
		}
	}
	for _, config := range []string{"layout=row,col,flag=False,f=0.5", "layout=row,col, flag=False, f=0.5", `layout="row,col",flag=false,f=0.5`} {
		// the neighbours of index 10 include index 11, which differs in f only
		out, errOut, code := ktune(t, "space", "neighbours", path, "--config", config, "--json")
		if code != 0 || !strings.Contains(out, `{"index": 11, "config": {"layout": "row,col", "flag": false, "f": 1.0}}`) {
			t.Errorf("--config %s: exit %d %s\n%s", config, code, errOut, out)
		}
	}
	_, errOut, code = ktune(t, "space", "neighbours", path, "--config", "layout=3,flag=True,f=1.0")
	if code == 0 || !strings.Contains(errOut, `parameter "layout" has no value 3 (its values are "1", "2", "row,col")`) {
		t.Errorf("a value the parameter lacks: exit %d %s", code, errOut)
	}
}

func TestSpaceNamesAnActionItDoesNotKnow(t *testing.T) {
	_, errOut, code := ktune(t, "space", "lsit", "../../examples/vector_add/vector_add_c.yaml")
	if code != 2 || !strings.Contains(errOut, `unknown action "lsit"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
