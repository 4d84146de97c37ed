package t1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

const data = "../../testdata/t1"

// bruteForceCount enumerates the full cartesian product, checking every restriction on every
// point with the exact Python-semantics interpreter (small spaces) or the compiled
// predicates (large ones): no pruning, no ordering, no trie.
func bruteForceCount(t *testing.T, d *Definition, exact bool) int {
	t.Helper()
	scope, err := expr.ParamScope(d.Params)
	if err != nil {
		t.Fatal(err)
	}
	var preds []*expr.Predicate
	var nodes []expr.Node
	for _, r := range d.Restrictions {
		p, err := expr.CompilePredicate(r, scope)
		if err != nil {
			t.Fatal(err)
		}
		preds = append(preds, p)
		n, _ := expr.Parse(r)
		nodes = append(nodes, n)
	}
	n := len(d.Params)
	env := &expr.Env{Num: make([]float64, n), Str: make([]string, n)}
	vars := map[string]any{}
	idx := make([]int, n)
	count := 0
	for {
		for p, k := range idx {
			v := d.Params[p].Values[k]
			env.Num[p] = v.Float()
			if v.Kind() == space.String {
				env.Str[p] = v.Str()
			}
			if exact {
				switch v.Kind() {
				case space.Int:
					vars[d.Params[p].Name] = v.Int()
				case space.Float:
					vars[d.Params[p].Name] = v.Float()
				case space.Bool:
					vars[d.Params[p].Name] = v.Bool()
				default:
					vars[d.Params[p].Name] = v.Str()
				}
			}
		}
		ok := true
		for k, p := range preds {
			if exact {
				ok = expr.EvalTruth(nodes[k], vars)
			} else {
				ok = p.Eval(env)
			}
			if !ok {
				break
			}
		}
		if ok {
			count++
		}
		p := n - 1
		for p >= 0 {
			idx[p]++
			if idx[p] < len(d.Params[p].Values) {
				break
			}
			idx[p] = 0
			p--
		}
		if p < 0 {
			return count
		}
	}
}

func TestValidCountsMatchBruteForce(t *testing.T) {
	tests := []struct {
		file           string
		product, valid int
		exact          bool
		long           bool
	}{
		{"benchmark_hub/convolution_milo.json", 10240, 4362, true, false},
		{"benchmark_hub/dedispersion_milo.json", 22272, 11130, true, false},
		{"benchmark_hub/gemm_milo.json", 663552, 116928, false, false},
		{"benchmark_hub/hotspot_milo.json", 4440000, 82984, false, false},
		{"cltune_gemm_full.json", 1327104, 241600, false, false},
		{"bat/hotspot-CAFF.json", 22200000, 349853, false, true},
		{"bat/GEMM-CAFF.json", 20736, 10312, true, false},
		{"ktt/cltune_gemm_space.json", 26244, 5788, true, false},
		{"ktt/coulomb_sum_3d_space.json", 672, 210, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if tt.long && testing.Short() {
				t.Skip("22 million points; skipped with -short")
			}
			d, err := ReadFile(filepath.Join(data, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			s, err := d.Space()
			if err != nil {
				t.Fatal(err)
			}
			if int(s.Product()) != tt.product || s.Len() != tt.valid {
				t.Fatalf("product %v valid %d, want %d %d", s.Product(), s.Len(), tt.product, tt.valid)
			}
			if got := bruteForceCount(t, d, tt.exact); got != tt.valid {
				t.Fatalf("brute force counts %d valid, space has %d", got, s.Len())
			}
			// Every indexed configuration is valid, distinct and maps back to its index.
			var c space.Config
			for i := 0; i < s.Len(); i++ {
				c = s.At(i, c)
				if j, ok := s.Index(c); !ok || j != i {
					t.Fatalf("Index(At(%d)) = %d, %v", i, j, ok)
				}
				if i%97 == 0 {
					if r := s.Satisfies(c); r != nil {
						t.Fatalf("config %d %s violates %s", i, s.Format(c), r.Source())
					}
				}
			}
		})
	}
}

func TestEveryDefinitionReadsOrFailsClearly(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(data, "*/*.json"))
	if len(files) < 15 {
		t.Fatalf("only %d definition files found", len(files))
	}
	bad := map[string]string{
		"Scan-CAFF.json": "line 78, column 9",
		"Sort-CAFF.json": "line 92, column 13",
		"SPMV-CAFF.json": "TuningParameters[2] (TEXTURE_MEMORY): Values: missing",
	}
	for _, f := range files {
		d, err := ReadFile(f)
		if want, isBad := bad[filepath.Base(f)]; isBad {
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), f) {
				t.Errorf("%s: error %v, want one naming the file and %q", f, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if _, err := d.Space(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestBadDefinitionsNameTheProblem(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1, 2"}]}}`, `TuningParameters[0] (x): Values: expression "[1, 2", column 6: expected`},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1.5]"}]}}`, "Type int but value 0 (1.5) is a float"},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1, 2]"}], "Conditions": [{"Expression": "y > 1"}]}}`, `ConfigurationSpace.Conditions[0]: expression "y > 1", column 1: unknown name "y"`},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1, 2]"}], "Conditions": [{"Expression": "x > 1"}, {"Expression": "x = 2"}]}}`, `ConfigurationSpace.Conditions[1]: expression "x = 2", column 3:`},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1, 2]"}], "Conditions": [{"Expression": "x > 0"}], "Constraints": [{"Expression": "x > 0 + "}]}}`, `ConfigurationSpace.Constraints[0]: expression "x > 0 + "`},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[1, 2]"}], "Conditions": [{"Expression": "x > 5"}]}}`, "space is empty"},
		{`{"ConfigurationSpace": {"TuningParameters": []}}`, "TuningParameters is empty"},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "t", "Type": "int", "Values": "[1, 2, 4] + list(range(4, 17, 4))"}]}}`, "(t): Values: 4 is listed twice (values 3 and 4, counting from 1)"},
		{`{"ConfigurationSpace": {"TuningParameters": [{"Name": "bx", "Type": "int", "Values": "[32, 'a']"}]}}`, `(bx): Type int but value 1 ("a") is a string`},
		{"{\"General\": {},\n  \"ConfigurationSpace\": {,}}", "line 2, column 26 (byte 41)"},
	}
	for _, tt := range tests {
		d, err := Read(strings.NewReader(tt.json), "spec.json")
		if err == nil {
			_, err = d.Space()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want it to contain %q", err, tt.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"benchmark_hub/convolution_milo.json", "ktt/coulomb_sum_3d_space.json"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Read(strings.NewReader(string(b)), "fuzz.json")
		if err != nil {
			return
		}
		if len(d.Params) == 0 {
			t.Fatal("a definition without parameters was accepted")
		}
		// Building can be huge for arbitrary inputs; only small products are built.
		prod := 1.0
		for _, p := range d.Params {
			prod *= float64(len(p.Values))
		}
		if prod < 1e5 {
			_, _ = d.Space()
		}
	})
}

var benchSpaces = []string{
	"benchmark_hub/convolution_milo.json",
	"benchmark_hub/dedispersion_milo.json",
	"benchmark_hub/gemm_milo.json",
	"benchmark_hub/hotspot_milo.json",
	"cltune_gemm_full.json",
	"bat/hotspot-CAFF.json",
}

func BenchmarkConstruct(b *testing.B) {
	for _, f := range benchSpaces {
		d, err := ReadFile(filepath.Join(data, f))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Space(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
