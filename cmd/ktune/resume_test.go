package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editJSON writes to a new file of dir the JSON of path changed by edit, as a person
// editing it would (generic JSON).
func editJSON(t *testing.T, path, name string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	edit(v)
	if data, err = json.MarshalIndent(v, "", "  "); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(filepath.Dir(path), name)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// cellOf is cell i of a file edited by editJSON.
func cellOf(v map[string]any, i int) map[string]any { return v["cells"].([]any)[i].(map[string]any) }

// bench --resume, hypertune --resume and report refuse a file whose cells no run wrote (an
// edited or damaged file), naming the file, the cell (strategy, space and budget) and what
// is wrong. Before, bench and hypertune took fractions of 7.5 and inconsistent means as
// they were (hypertune's choice changed), took a second copy of a cell ("3 cells taken" of
// 2), ran a cell of too few fractions again in silence (hypertune blamed other settings),
// and report panicked on a budget of 0.
func TestResumeAndReportRefuseCellsNoRunWrote(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "bench.json")
	bench := []string{"bench", pnpoly, "--strategies", "random", "--budgets", "5,10", "--repeats", "3", "--workers", "1"}
	if _, errOut, code := ktune(t, append(bench, "--checkpoint", ckpt)...); code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	const cell = "cell 1 of 2 (random on kerneltuner_pnpoly/RTX_2080_Ti at budget 5): "
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"fraction", func(v map[string]any) { cellOf(v, 0)["fractions"].([]any)[1] = 7.5 }, cell + "fraction 2 of 3 is 7.5, outside [0, 1]"},
		{"mean", func(v map[string]any) { cellOf(v, 0)["mean_fraction_of_optimum"] = 0.1 }, cell + "mean_fraction_of_optimum 0.1 is not the mean of its fractions"},
		{"count", func(v map[string]any) { cellOf(v, 0)["fractions"] = cellOf(v, 0)["fractions"].([]any)[:2] }, cell + "it has 2 fractions, one per run, but the file has 3 repeats"},
		{"twice", func(v map[string]any) { v["cells"] = append(v["cells"].([]any), cellOf(v, 0)) },
			"cell 3 of 3 (random on kerneltuner_pnpoly/RTX_2080_Ti at budget 5): cell 1 has the same strategy, space and budget"},
		{"budget", func(v map[string]any) { cellOf(v, 0)["budget"] = 0 }, "cell 1 of 2 (random on kerneltuner_pnpoly/RTX_2080_Ti at budget 0): a budget is 1 evaluation or more"},
		{"type", func(v map[string]any) { cellOf(v, 0)["fractions"].([]any)[0] = "0.5" }, cell + "fraction 1 of 3 is a JSON string, want a number"},
		// cells and header that disagree: before, such a cell was counted as another
		// benchmark's ("1 of its cells are not of this benchmark") and run again
		{"strategy not listed", func(v map[string]any) { cellOf(v, 0)["strategy"] = "greedymls" },
			"cell 1 of 2 (greedymls on kerneltuner_pnpoly/RTX_2080_Ti at budget 5): its strategy greedymls is not among the file's strategies"},
		{"space not listed", func(v map[string]any) { cellOf(v, 0)["space"] = "kerneltuner_pnpoly/RTX_3090" },
			"cell 1 of 2 (random on kerneltuner_pnpoly/RTX_3090 at budget 5): its space kerneltuner_pnpoly/RTX_3090 is not among the file's spaces"},
		{"budget not listed", func(v map[string]any) { v["budgets"] = []any{10} }, cell + "its budget 5 is not among the file's budgets"},
		{"strategies cut", func(v map[string]any) { v["strategies"] = []any{} }, cell + "its strategy random is not among the file's strategies"},
		{"label twice", func(v map[string]any) { v["strategies"] = append(v["strategies"].([]any), v["strategies"].([]any)[0]) },
			"strategies: entry 2 of 2 (random): another entry has that label: a label is in the file once"},
		{"space twice", func(v map[string]any) { v["spaces"] = append(v["spaces"].([]any), v["spaces"].([]any)[0]) },
			"spaces: kerneltuner_pnpoly/RTX_2080_Ti is listed twice"},
	} {
		f := editJSON(t, ckpt, tc.name+".json", tc.edit)
		damaged := f + ": a --checkpoint file of 'ktune bench', edited or damaged: " + tc.want
		out, errOut, code := ktune(t, append(bench, "--resume", f)...)
		if code != 1 || out != "" || !strings.Contains(errOut, "--resume "+damaged) || strings.Contains(errOut, "taken") {
			t.Errorf("bench --resume of %s: exit %d: %s%s", tc.name, code, out, errOut)
		}
		out, errOut, code = ktune(t, "report", f, "-o", filepath.Join(dir, tc.name+".html"))
		if code != 1 || !strings.Contains(errOut, "ktune report: "+damaged) {
			t.Errorf("report of %s: exit %d: %s%s", tc.name, code, out, errOut)
		}
	}

	ht := filepath.Join(dir, "ht.json")
	hypertune := []string{"hypertune", pnpoly, "--strategy", "firstmls", "--grid", "neighbourhood=Hamming,adjacent", "--budgets", "5",
		"--repeats", "2", "--workers", "1", "--out", filepath.Join(dir, "d.json")}
	if _, errOut, code := ktune(t, append(hypertune, "--checkpoint", ht)...); code != 0 {
		t.Fatalf("hypertune: exit %d: %s", code, errOut)
	}
	const setting = "cell 1 of 2 (neighbourhood=Hamming on kerneltuner_pnpoly/RTX_2080_Ti at budget 5): "
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"fraction", func(v map[string]any) { cellOf(v, 0)["fractions"] = []any{5.0, 5.0} }, setting + "fraction 1 of 2 is 5, outside [0, 1]"},
		{"count", func(v map[string]any) { cellOf(v, 0)["fractions"] = cellOf(v, 0)["fractions"].([]any)[:1] }, setting + "it has 1 fraction, one per run, but the file has 2 repeats"},
		// cells and header that disagree, counted before as of another grid and run again
		{"setting not listed", func(v map[string]any) { cellOf(v, 0)["strategy"] = "neighbourhood=strictly-adjacent" },
			"cell 1 of 2 (neighbourhood=strictly-adjacent on kerneltuner_pnpoly/RTX_2080_Ti at budget 5): its setting neighbourhood=strictly-adjacent is not among the file's settings"},
		{"space not listed", func(v map[string]any) { cellOf(v, 0)["space"] = "kerneltuner_pnpoly/RTX_3090" },
			"cell 1 of 2 (neighbourhood=Hamming on kerneltuner_pnpoly/RTX_3090 at budget 5): its space kerneltuner_pnpoly/RTX_3090 is not among the file's spaces"},
		{"budget not listed", func(v map[string]any) { cellOf(v, 0)["budget"] = 7 },
			"cell 1 of 2 (neighbourhood=Hamming on kerneltuner_pnpoly/RTX_2080_Ti at budget 7): its budget 7 is not among the file's budgets"},
		{"settings cut", func(v map[string]any) { v["settings"] = v["settings"].([]any)[:1] },
			"settings: 1 of them, but its grid neighbourhood=Hamming,adjacent makes 2"},
		{"grid edited", func(v map[string]any) {
			v["grid"].([]any)[0].(map[string]any)["values"] = []any{"Hamming", "strictly-adjacent"}
		}, "settings: setting 2 of 2 is neighbourhood=adjacent, but its grid neighbourhood=Hamming,strictly-adjacent makes neighbourhood=strictly-adjacent there"},
		{"space info", func(v map[string]any) { v["space_info"].([]any)[0].(map[string]any)["name"] = "other" },
			"space_info does not describe spaces: space 1 of 1 is kerneltuner_pnpoly/RTX_2080_Ti in spaces, other in space_info"},
	} {
		f := editJSON(t, ht, "ht-"+tc.name+".json", tc.edit)
		out, errOut, code := ktune(t, append(hypertune, "--resume", f)...)
		want := "--resume " + f + ": the --json output or a --checkpoint file of 'ktune hypertune', edited or damaged: " + tc.want
		if code != 1 || out != "" || !strings.Contains(errOut, want) || strings.Contains(errOut, "not of this grid") {
			t.Errorf("hypertune --resume of %s: exit %d: %s%s", tc.name, code, out, errOut)
		}
	}
}

// A damaged --resume file is named with what is wrong and where, in words rather than Go's
// (QA: "unexpected end of JSON input" with no position, the Go type "struct {
// benchmark.RunInfo; ...}" of a top-level list, "cannot unmarshal object into Go struct
// field .HypertuneResult.spaces" for a benchmark's checkpoint given to hypertune).
func TestDamagedResumeFilesAreNamedWithWhereAndWhat(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "bench.json")
	bench := []string{"bench", pnpoly, "--strategies", "random", "--budgets", "5", "--repeats", "2", "--workers", "1"}
	if _, errOut, code := ktune(t, append(bench, "--checkpoint", ckpt)...); code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	cut, list := filepath.Join(dir, "cut.json"), filepath.Join(dir, "list.json")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spaces := editJSON(t, ckpt, "spaces.json", func(v map[string]any) { v["spaces"] = "x" })
	hypertune := []string{"hypertune", pnpoly, "--strategy", "firstmls", "--grid", "neighbourhood=Hamming,adjacent", "--budgets", "5",
		"--repeats", "2", "--out", filepath.Join(dir, "d.json")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(bench, "--resume", cut), fmt.Sprintf("--resume %s: not valid JSON: it ends inside a value after %d bytes (a file cut short?); "+
			"--resume takes the --json output or a --checkpoint file of 'ktune bench'", cut, len(data)/2)},
		{append(bench, "--resume", list), "--resume " + list + ": JSON whose top level is not an object but a list"},
		{append(bench, "--resume", spaces), "--resume " + spaces + ": a --checkpoint file of 'ktune bench', edited or damaged: " +
			"spaces is a JSON string, want a list, at line 25, column 15; leave --resume out to run every cell\n"},
		{append(hypertune, "--resume", cut), fmt.Sprintf("--resume %s: not valid JSON: it ends inside a value after %d bytes", cut, len(data)/2)},
		{append(hypertune, "--resume", ckpt), "--resume " + ckpt + ": not 'ktune hypertune --json' output or a --checkpoint file: it has no cells of a hypertune, " +
			"being a --checkpoint file of 'ktune bench'"},
	} {
		out, errOut, code := ktune(t, tc.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "Go struct") || strings.Contains(errOut, "struct {") {
			t.Errorf("%s --resume %s: exit %d: %s%s", tc.args[0], filepath.Base(tc.args[len(tc.args)-1]), code, out, errOut)
		}
	}
}
