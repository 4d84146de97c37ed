package result

import (
	"fmt"
	"strings"
	"testing"
)

// gccOutput is what gcc 13 printed for a host C kernel built with -Wall.
const gccOutput = `vadd.c: In function 'vadd':
vadd.c:3:13: warning: unused variable 'unused' [-Wunused-variable]
    3 |         int unused = 3;
      |             ^~~~~~
vadd.c:5:17: warning: conversion from 'double' to 'float' may change value [-Wfloat-conversion]
    5 |         c[i] = a[i] * 0.1;
      |                ^`

func TestSplitWarningsCutsEachCompilersOutputIntoItsWarnings(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
	}{
		{"gcc", gccOutput, []string{
			"vadd.c:3:13: warning: unused variable 'unused' [-Wunused-variable]\n    3 |         int unused = 3;\n      |             ^~~~~~",
			"vadd.c:5:17: warning: conversion from 'double' to 'float' may change value [-Wfloat-conversion]\n    5 |         c[i] = a[i] * 0.1;\n      |                ^",
		}},
		{"clang with its tally", "k.c:2:6: warning: unused variable 'x' [-Wunused-variable]\n  int x;\n      ^\n1 warning generated.\n",
			[]string{"k.c:2:6: warning: unused variable 'x' [-Wunused-variable]\n  int x;\n      ^"}},
		{"PoCL's build log", "warning: /x/k.cl:3:10: implicit conversion from 'double' to 'int' changes value from 1.5 to 1\nwarning: /x/k.cl:4:3: unused variable 'y'",
			[]string{"warning: /x/k.cl:3:10: implicit conversion from 'double' to 'int' changes value from 1.5 to 1", "warning: /x/k.cl:4:3: unused variable 'y'"}},
		{"NVRTC", "scale.cu(3): warning #177-D: variable \"t\" was declared but never referenced\n\n  int t;\n      ^\n\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"",
			[]string{"scale.cu(3): warning #177-D: variable \"t\" was declared but never referenced\n  int t;\n      ^\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\""}},
		{"no warning line", "remark: loop vectorized", []string{"remark: loop vectorized"}},
		{"nothing", "  \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitWarnings(tt.out)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("splitWarnings =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestDistinctWarningsCountsConfigurationsAndKeepsTheFirst(t *testing.T) {
	otherValue := strings.Replace(gccOutput, "a[i] * 0.1", "a[i] * 0.2", 1) // the same first lines
	evals := []Evaluation{
		{},                    // a clean build
		{Warnings: gccOutput}, // both warnings
		{Status: WrongAnswer, Warnings: "vadd.c:3:13: warning: unused variable 'unused' [-Wunused-variable]"},
		{Warnings: otherValue}, // both again, its own excerpt
		{Warnings: "vadd.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]\nvadd.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]"},
	}
	ws, more := DistinctWarnings(evals)
	if more != 0 || len(ws) != 3 {
		t.Fatalf("%d warnings, %d more: %+v", len(ws), more, ws)
	}
	want := []struct {
		line         string
		count, first int
	}{
		{"vadd.c:3:13: warning: unused variable 'unused' [-Wunused-variable]", 3, 1},
		{"vadd.c:5:17: warning: conversion from 'double' to 'float' may change value [-Wfloat-conversion]", 2, 1},
		{"vadd.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]", 1, 4}, // once per build
	}
	for i, w := range want {
		if line, _, _ := strings.Cut(ws[i].Text, "\n"); line != w.line || ws[i].Count != w.count || ws[i].First != w.first {
			t.Errorf("warning %d: %q, %d configurations, first %d; want %q, %d, %d", i, line, ws[i].Count, ws[i].First, w.line, w.count, w.first)
		}
	}
	if !strings.Contains(ws[1].Text, "0.1") {
		t.Errorf("the excerpt is not the first configuration's:\n%s", ws[1].Text)
	}
}

func TestDistinctWarningsAreBounded(t *testing.T) {
	var evals []Evaluation
	for i := range MaxWarnings + 5 {
		long := fmt.Sprintf("k.c:%d:1: warning: w", i+1) + strings.Repeat("\n  excerpt", 20)
		evals = append(evals, Evaluation{Warnings: long})
	}
	evals = append(evals, Evaluation{Warnings: "k.c:1:1: warning: " + strings.Repeat("é", 2*MaxWarningBytes)})
	ws, more := DistinctWarnings(evals)
	if len(ws) != MaxWarnings || more != 6 {
		t.Fatalf("%d warnings and %d more, want %d and 6", len(ws), more, MaxWarnings)
	}
	for _, w := range ws {
		if n := strings.Count(w.Text, "\n") + 1; n > MaxWarningLines+1 || len(w.Text) > MaxWarningBytes+4 || !strings.HasSuffix(w.Text, "...") {
			t.Errorf("a warning of %d lines, %d bytes, ending %q", n, len(w.Text), w.Text[len(w.Text)-5:])
		}
	}
	if w, _ := DistinctWarnings(evals[len(evals)-1:]); !strings.HasSuffix(w[0].Text, " ...") || !strings.Contains(w[0].Text, "é") || strings.ContainsRune(w[0].Text, '\uFFFD') {
		t.Errorf("a long line is not cut at a character: %q", w[0].Text[len(w[0].Text)-10:])
	}
}
