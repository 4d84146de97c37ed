package spec

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ktune/ktune/space"
)

// fromSpec has an array of structures (4 floats an atom) and its field arrays, integer
// triples and theirs, exact widenings, and sources written after the arguments that take
// from them.
const fromSpec = `
kernel: {name: k, source: k.cl}
seed: 7
constants: {N: 50}
parameters: {block_size_x: [32]}
problem_size: N
arguments:
  - {name: x, type: float32, length: N, fill: {from: atoms, start: 0, stride: 4}}
  - {name: charge, type: float32, length: N, fill: {from: atoms, start: 3, stride: 4}}
  - {name: atoms, type: float32, length: 4 * N, fill: {random: {low: -1, high: 1}}}
  - {name: triples, type: int32, length: 3 * N, fill: {random: {low: -1000, high: 1000}}}
  - {name: second, type: int32, length: N, fill: {from: triples, start: 1, stride: 3}}
  - {name: copy, type: int32, length: 2 * N, fill: {from: triples}}
  - {name: wide, type: float64, length: N, fill: {from: atoms, start: 2, stride: 4}}
  - {name: long, type: int64, length: N, fill: {from: triples, start: 2, stride: 3}}
  - {name: steps, type: int16, length: 10, fill: {range: {start: -5, step: 3}}}
  - {name: fsteps, type: float32, length: 5, fill: {from: steps, start: 1, stride: 2}}
`

// TestGenerateFromTakesTheSourcesElements checks that element i of a from fill is the
// source's element start + i*stride, the source's data being those it gets itself (at its
// own length), for float32 and int32, the same type or converted exactly.
func TestGenerateFromTakesTheSourcesElements(t *testing.T) {
	s := mustParse(t, fromSpec)
	const n = 50
	byName := map[string]int{}
	for i, a := range s.Arguments {
		byName[a.Name] = i
	}
	srcLen := map[string]int{"atoms": 4 * n, "triples": 3 * n, "steps": 10}
	for _, c := range []struct {
		arg, src      string
		n             int
		start, stride int
	}{
		{"x", "atoms", n, 0, 4},
		{"charge", "atoms", n, 3, 4},
		{"second", "triples", n, 1, 3},
		{"copy", "triples", 2 * n, 0, 1},
		{"wide", "atoms", n, 2, 4},
		{"long", "triples", n, 2, 3},
		{"fsteps", "steps", 5, 1, 2},
	} {
		src := values(t, s, byName[c.src], srcLen[c.src])
		got := values(t, s, byName[c.arg], c.n)
		for i, v := range got {
			if want := src[c.start+i*c.stride]; v != want {
				t.Fatalf("%s[%d] = %v, want %s[%d] = %v", c.arg, i, v, c.src, c.start+i*c.stride, want)
			}
		}
	}
	// the same bits where the types are the same, and really random data
	atoms, _ := s.Generate(byName["atoms"], 4*n)
	x, _ := s.Generate(byName["x"], n)
	for i := range n {
		if !bytes.Equal(x[4*i:4*i+4], atoms[16*i:16*i+4]) {
			t.Fatalf("x[%d] has other bits than atoms[%d]", i, 4*i)
		}
	}
	lo, hi, _, _ := stats(values(t, s, byName["x"], n))
	if lo < -1 || hi > 1 || hi-lo < 1 {
		t.Errorf("x spans [%v, %v], not a spread of atoms' uniform [-1, 1]", lo, hi)
	}
	// fsteps takes steps -2, 4, 10, 16, 22
	if got := values(t, s, byName["fsteps"], 5); !slices.Equal(got, []float64{-2, 4, 10, 16, 22}) {
		t.Errorf("fsteps = %v", got)
	}
	// a spec whose source is declared first and fills the same: the same data
	reordered := mustParse(t, strings.Replace(fromSpec,
		"  - {name: x, type: float32, length: N, fill: {from: atoms, start: 0, stride: 4}}\n", "", 1)+
		"  - {name: x, type: float32, length: N, fill: {from: atoms, start: 0, stride: 4}}\n")
	y, err := reordered.Generate(len(reordered.Arguments)-1, n)
	if err != nil || !bytes.Equal(x, y) {
		t.Errorf("x moved after its source has other data (%v)", err)
	}
}

// TestEveryFillIsPrefixStable checks what from fills rely on: element i of every fill is
// the same whatever the length it is generated at.
func TestEveryFillIsPrefixStable(t *testing.T) {
	s := parseData(t, "42")
	for k, a := range s.Arguments {
		if a.Kind != ArgArray {
			continue
		}
		short, err := s.Generate(k, 10)
		if err != nil {
			t.Fatal(err)
		}
		long, _ := s.Generate(k, 1000)
		if !bytes.Equal(short, long[:len(short)]) {
			t.Errorf("%s (%s): the first 10 elements change with the length", a.Name, a.Fill.Kind)
		}
	}
}

// TestGenerateFromAnNPYSource: the source's file, every element of it, is the data.
func TestGenerateFromAnNPYSource(t *testing.T) {
	dir := t.TempDir()
	et, _ := lookupType("int32")
	arr := &Array{Type: "int32", Shape: []int{6}, Data: make([]byte, 24)}
	for i, v := range []float64{10, 11, 20, 21, 30, 31} {
		et.put(arr.Data[4*i:], v)
	}
	if err := WriteNPYFile(filepath.Join(dir, "pairs.npy"), arr); err != nil {
		t.Fatal(err)
	}
	s, err := Parse([]byte("kernel: {name: k, source: k.cl}\nparameters: {x: [1]}\nproblem_size: 1\narguments:\n"+
		"  - {name: pairs, type: int32, length: 6, fill: {npy: pairs.npy}}\n"+
		"  - {name: odd, type: int32, length: 3, fill: {from: pairs, start: 1, stride: 2}}\n"), filepath.Join(dir, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := values(t, s, 1, 3); !slices.Equal(got, []float64{11, 21, 31}) {
		t.Errorf("odd = %v, want 11 21 31", got)
	}
	if _, err := s.Generate(1, 4); err == nil || !strings.Contains(err.Error(), `"pairs" must hold at least 8 (start + (length-1)*stride + 1), but it has 6`) {
		t.Errorf("4 elements from a file of 6: %v", err)
	}
}

// TestFromLengthsAreCheckedAtEachConfiguration: where the lengths depend on the
// configuration, Instance refuses one whose source is too short, naming the fill's field
// and line.
func TestFromLengthsAreCheckedAtEachConfiguration(t *testing.T) {
	src := "kernel: {name: k, source: k.cl}\nconstants: {N: 8}\nparameters: {P: [1, 2, 3]}\nproblem_size: N\narguments:\n" +
		"  - {name: atoms, type: float32, length: 4 * N, fill: random}\n" +
		"  - {name: y, type: float32, length: N * P, fill: {from: atoms, start: 1, stride: 2}}\n"
	s := mustParse(t, src)
	for p, ok := range map[int64]bool{1: true, 2: true, 3: false} {
		_, err := s.Instance([]space.Value{space.IntValue(p)})
		if (err == nil) != ok {
			t.Errorf("P=%d: %v", p, err)
		}
		if ok {
			continue
		}
		var se *Error
		if !errors.As(err, &se) || se.Field != "arguments[1].fill.from" || se.Line != 7 {
			t.Errorf("P=%d: not an error at arguments[1].fill.from, line 7: %#v", p, err)
		}
		for _, w := range []string{`argument "y" has 24 elements, taken from "atoms"'s elements 1, 3, ... every 2, up to element 47`, `"atoms" must hold at least 48`, "but it has 32", "restriction"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("P=%d: message lacks %q:\n%v", p, w, err)
			}
		}
	}
}

// TestFromFillsParse checks the parsed fields and the exact conversions accepted.
func TestFromFillsParse(t *testing.T) {
	s := mustParse(t, fromSpec)
	want := Fill{Kind: FillFrom, From: "atoms", FromStart: 3, FromStride: 4}
	if got := s.Arguments[1].Fill; got != want {
		t.Errorf("charge's fill %+v, want %+v", got, want)
	}
	if got := s.Arguments[5].Fill; got.FromStart != 0 || got.FromStride != 1 {
		t.Errorf("{from: triples} is start %d stride %d, want 0 and 1", got.FromStart, got.FromStride)
	}
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"float16", "float32", true}, {"float32", "float64", true}, {"float64", "float32", false},
		{"float32", "float16", false}, {"int8", "float16", true}, {"uint8", "float16", true},
		{"int16", "float16", false}, {"int16", "float32", true}, {"uint16", "float32", true},
		{"int32", "float32", false}, {"int32", "float64", true}, {"uint32", "float64", true},
		{"int64", "float64", false}, {"float32", "int32", false}, {"int8", "int64", true},
		{"int16", "int8", false}, {"uint8", "int8", false}, {"uint8", "int16", true},
		{"uint16", "uint64", true}, {"int8", "uint8", false}, {"int32", "uint64", false},
	} {
		src := base + "arguments:\n  - {name: a, type: " + c.from + ", length: 4, fill: {range: {start: -1}}}\n" +
			"  - {name: b, type: " + c.to + ", length: 4, fill: {from: a}}\n"
		if c.from[0] == 'u' {
			src = strings.Replace(src, "start: -1", "start: 1", 1)
		}
		_, err := Parse([]byte(src), "t.yaml")
		if (err == nil) != c.ok {
			t.Errorf("%s to %s: accepted %v, want %v (%v)", c.from, c.to, err == nil, c.ok, err)
			continue
		}
		if c.ok {
			s := mustParse(t, src)
			a, b := values(t, s, 0, 4), values(t, s, 1, 4)
			if !slices.Equal(a, b) {
				t.Errorf("%s to %s: %v from %v", c.from, c.to, b, a)
			}
		}
	}
}

func TestBadFromFillsNameFieldAndLine(t *testing.T) {
	arr := func(lines ...string) string {
		return base + "arguments:\n  - {name: atoms, type: float32, length: 4 * N, fill: random}\n  - {name: n, type: int32, value: N}\n" +
			"  - {name: scratch, kind: local, type: float32, length: 64}\n" + strings.Join(lines, "\n") + "\n"
	}
	tests := []badSpec{
		{"unknown source", arr("  - {name: x, type: float32, length: N, fill: {from: atom, stride: 4}}"),
			"from: atom,", []string{"arguments[3].fill.from", `no argument is named "atom"`, `did you mean "atoms"?`}},
		{"itself", arr("  - {name: x, type: float32, length: N, fill: {from: x}}"),
			"from: x", []string{"arguments[3].fill.from", `"x" cannot take its data from itself`}},
		{"a scalar", arr("  - {name: x, type: float32, length: N, fill: {from: n}}"),
			"from: n", []string{"arguments[3].fill.from", `"n" is a scalar argument, which has no data`}},
		{"local memory", arr("  - {name: x, type: float32, length: N, fill: {from: scratch}}"),
			"from: scratch", []string{"arguments[3].fill.from", `"scratch" is a local argument`}},
		{"a derived source", arr("  - {name: x, type: float32, length: 2 * N, fill: {from: atoms, stride: 2}}",
			"  - {name: y, type: float32, length: N, fill: {from: x, stride: 2}}"),
			"from: x,", []string{"arguments[4].fill.from", `"x" takes its own data from "atoms"`, `take the elements from "atoms"`}},
		{"a cycle", arr("  - {name: x, type: float32, length: N, fill: {from: y}}",
			"  - {name: y, type: float32, length: N, fill: {from: x}}"),
			"from: y", []string{"arguments[3].fill.from", `"y" takes its own data from "x"`}},
		{"inexact type", arr("  - {name: x, type: float16, length: N, fill: {from: atoms, stride: 4}}"),
			"from: atoms", []string{"arguments[3].fill.from", `"atoms" is float32, and not every float32 is exactly a float16`, "type: float32"}},
		{"float to int", arr("  - {name: x, type: int32, length: N, fill: {from: atoms}}"),
			"from: atoms", []string{"arguments[3].fill.from", "not every float32 is exactly a int32"}},
		{"source too short", arr("  - {name: x, type: float32, length: N, fill: {from: atoms, start: 1, stride: 5}}"),
			"from: atoms", []string{"arguments[3].fill.from", `argument "x" has 1000 elements, taken from "atoms"'s elements 1, 6, ... every 5, up to element 4996`, `must hold at least 4997`, "but it has 4000", `make "atoms" longer`}},
		{"zero stride", arr("  - {name: x, type: float32, length: N, fill: {from: atoms, stride: 0}}"),
			"stride: 0", []string{"arguments[3].fill.stride", "0; expected the source elements from one element to the next, 1 or more"}},
		{"negative start", arr("  - {name: x, type: float32, length: N, fill: {from: atoms, start: -1}}"),
			"start: -1", []string{"arguments[3].fill.start", "-1; expected the index in the source of element 0"}},
		{"fractional stride", arr("  - {name: x, type: float32, length: N, fill: {from: atoms, stride: 1.5}}"),
			"stride: 1.5", []string{"arguments[3].fill.stride", "integer"}},
		{"range's step", arr("  - {name: x, type: float32, length: N, fill: {from: atoms, step: 4}}"),
			"step: 4", []string{"arguments[3].fill.step", "expected one of from, start, stride"}},
		{"from as a word", arr("  - {name: x, type: float32, length: N, fill: from}"),
			"fill: from", []string{"arguments[3].fill", "a from fill names its source: write fill: {from: ARGUMENT"}},
	}
	checkRefused(t, "", tests)
}

// TestDocShowsAFromFill: the doc's example with B's data taken from A, as its comment
// says, parses and generates A's elements.
func TestDocShowsAFromFill(t *testing.T) {
	start, end := strings.Index(Doc, "\n---\n"), strings.Index(Doc, "\n...\n")
	example := Doc[start+1 : end+5]
	const line = "    fill: {random: {distribution: normal, mean: 0, stddev: 1}}\n"
	if !strings.Contains(example, line) || !strings.Contains(Doc, "# fill: {from: A, start: 1, stride: 4}") {
		t.Fatal("Doc's example no longer has B's fill and the from fill's comment")
	}
	// B (N*N elements) taking every fourth of A's N*N is refused as the spec is read
	_, err := Parse([]byte(strings.Replace(example, line, "    fill: {from: A, start: 1, stride: 4}\n", 1)), "doc.yaml")
	if err == nil || !strings.Contains(err.Error(), `fill.from: argument "B" has`) || !strings.Contains(err.Error(), `"A" must hold at least`) {
		t.Fatalf("B longer than a quarter of A: %v", err)
	}
	s := mustParse(t, strings.Replace(example, line, "    fill: {from: A}\n", 1))
	a, b := -1, -1
	for i, arg := range s.Arguments {
		switch arg.Name {
		case "A":
			a = i
		case "B":
			b = i
		}
	}
	if _, err := s.Instance(s.Default); err != nil {
		t.Fatal(err)
	}
	x, y := values(t, s, a, 100), values(t, s, b, 100)
	if !slices.Equal(x, y) {
		t.Error("B, a copy of A, has other data")
	}
}
