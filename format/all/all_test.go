package all_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all"
	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/result"
)

const testdata = "../../testdata"

// independent returns the independent reading of a file in the given format.
func independent(formatName, path string) (formattest.Stats, error) {
	switch formatName {
	case "kerneltuner":
		return formattest.KernelTunerStats(path)
	case "t4":
		return formattest.T4Stats(path)
	}
	return formattest.KTTStats(path)
}

func TestFormatsAreRegistered(t *testing.T) {
	var names []string
	for _, f := range format.Formats() {
		names = append(names, f.Name)
		if f.Write == nil { // every format writes, KTT since its writer came
			t.Errorf("%s: Write is nil", f.Name)
		}
	}
	if got := strings.Join(names, ","); got != "kerneltuner,ktt,t4" {
		t.Errorf("formats %s", got)
	}
	if _, ok := format.Lookup("t4"); !ok {
		t.Error("Lookup(t4) failed")
	}
}

func TestOpenDetectsTheFormat(t *testing.T) {
	tests := []struct {
		file, format string
	}{
		{"kernel_tuner/vector_add_A4000.json", "kerneltuner"},
		{"kernel_tuner/strategies_test_cache.json", "kerneltuner"},
		{"kernel_tuner/time_energy.json", "kerneltuner"},
		{"benchmark_hub/convolution_milo/A100.json.gz", "kerneltuner"},
		{"benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz", "kerneltuner"},
		{"benchmark_hub/convolution_milo/A100_T4.json.gz", "t4"},
		{"benchmark_hub/ktt_pnpoly/RTX_2080_Ti.json.gz", "ktt"},
		{"ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz", "ktt"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(testdata, tt.file)
			rec, err := format.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Format != tt.format || rec.Source != path {
				t.Errorf("format %q source %q", rec.Format, rec.Source)
			}
			want, err := independent(tt.format, path)
			if err != nil {
				t.Fatal(err)
			}
			formattest.CheckStats(t, rec, want)
		})
	}
}

func TestOpenRejectsUnknownFormats(t *testing.T) {
	dir := t.TempDir()
	gz := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.String()
	}
	tests := []struct {
		name, content string
		want          []string
	}{
		{"t1.json", `{"General": {}, "ConfigurationSpace": {"TuningParameters": []}, "KernelSpecification": {}}`,
			[]string{"unknown file format", "top-level keys ConfigurationSpace, General, KernelSpecification", "tried kerneltuner, ktt, t4", "ktt: top-level Metadata and Results"}},
		{"empty.json", ``, []string{"unknown file format", "the file is empty"}},
		{"binary.bin", "\x00\x01\x02garbage", []string{"unknown file format", "not JSON"}},
		{"array.json.gz", gz(`[1, 2, 3]`), []string{"unknown file format", "top level is not an object"}},
		{"broken.json", "{\"a\": 1,\n \"b\": [1, , 2]}", []string{"not valid JSON", "line 2, column 11"}},
		{"short.json", `{"results": [1, 2`, []string{"not valid JSON", "ends inside a value after 17 bytes"}},
		{"cut.json.gz", gz(`{"tune_params_keys": ["a"], "cache": {}}`)[:20], []string{"gzip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := format.Open(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tt.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := format.Open(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("no error for a missing file")
	}
}

// An interrupted Kernel Tuner run leaves the cache open; Open must still detect and read
// it, with a warning, whether it is compressed or not.
func TestOpenReadsAnInterruptedCache(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testdata, "benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := format.ReadAll(bytes.NewReader(raw), "pnpoly")
	if err != nil {
		t.Fatal(err)
	}
	// Cut in the middle of the line of entry 1000.
	lines := bytes.SplitAfterN(data, []byte("\n"), 1100)
	start := bytes.Index(data, []byte(`"cache": {`))
	cacheLine := bytes.Count(data[:start], []byte("\n"))
	cut := 0
	for _, l := range lines[:cacheLine+1+1000] {
		cut += len(l)
	}
	cut += 40
	for _, compress := range []bool{false, true} {
		content := data[:cut]
		name := "open.json"
		if compress {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(content)
			zw.Close()
			content, name = b.Bytes(), "open.json.gz"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := format.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Format != "kerneltuner" || len(rec.Evaluations) != 1000 || len(rec.Warnings) != 1 ||
			!strings.Contains(rec.Warnings[0], "read 1000 complete entries") {
			t.Errorf("%s: format %q, %d evaluations, warnings %q", name, rec.Format, len(rec.Evaluations), rec.Warnings)
		}
	}
}

// A gzip file cut short (copied while it was written, or a download broken off) is read as
// far as its stream goes, as an interrupted recording, with warnings saying so; one that
// holds nothing readable is still an error naming the cut.
func TestOpenReadsATruncatedGzipAsFarAsItGoes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testdata, "benchmark_hub/kerneltuner_pnpoly/RTX_2080_Ti.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	half := filepath.Join(dir, "half.json.gz")
	if err := os.WriteFile(half, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := format.Open(half)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Evaluations); n < 1000 || n >= 4092 || len(rec.Warnings) != 2 || !rec.Truncated ||
		!strings.Contains(rec.Warnings[0], "gzip stream truncated after") || !strings.Contains(rec.Warnings[1], "unclosed cache file") {
		t.Errorf("%d evaluations, warnings %q", n, rec.Warnings)
	}
	stub := filepath.Join(dir, "stub.json.gz")
	if err := os.WriteFile(stub, raw[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := format.Open(stub); err == nil || !strings.Contains(err.Error(), "gzip stream truncated") {
		t.Errorf("a stub of a gzip file: %v", err)
	}
}

// Every recorded file of the shared data set, checked against the independent reading and
// against the counts the data's README states.
func TestOpenEveryRecordedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads about 300 MB of JSON")
	}
	root := formattest.SharedSpaces(t, "../../../shared/data/spaces")
	type expect struct {
		total            int
		minValid, maxVal int
	}
	// From the README's table.
	readme := map[string]expect{
		"benchmark_hub/convolution_milo":        {4362, 3889, 4362},
		"benchmark_hub/dedispersion_milo":       {11130, 11130, 11130},
		"benchmark_hub/kerneltuner_gemm":        {17956, 17956, 17956},
		"benchmark_hub/kerneltuner_convolution": {6768, 5000, 5500},
		"benchmark_hub/kerneltuner_pnpoly":      {4092, 3700, 3800},
		"benchmark_hub/ktt_convolution":         {6768, 0, 6768},
		"benchmark_hub/ktt_pnpoly":              {4092, 0, 4092},
		"ktt/coulomb_sum_3d":                    {210, 210, 210},
		"kernel_tuner":                          {15, 15, 15},
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// Space definitions (T1, BAT) are another package's business.
			if rel == "bat" || rel == filepath.Join("benchmark_hub", "kernels") {
				return filepath.SkipDir
			}
			return nil
		}
		base := filepath.Base(path)
		switch {
		case strings.HasSuffix(base, ".json.gz"):
			files = append(files, path)
		case strings.HasSuffix(base, ".json") && filepath.Dir(rel) == "kernel_tuner":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 28 {
		t.Fatalf("found only %d recorded files under %s", len(files), root)
	}
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		t.Run(rel, func(t *testing.T) {
			rec, err := format.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := independent(rec.Format, path)
			if err != nil {
				t.Fatal(err)
			}
			formattest.CheckStats(t, rec, want)
			if len(rec.Warnings) != 0 {
				t.Errorf("warnings %q", rec.Warnings)
			}
			exp, ok := readme[filepath.Dir(rel)]
			if !ok {
				t.Fatalf("no README expectation for %s", filepath.Dir(rel))
			}
			total, valid := rec.Counts()
			if total != exp.total || valid < exp.minValid || valid > exp.maxVal {
				t.Errorf("%d configurations, %d valid; the README says %d, valid in [%d, %d]", total, valid, exp.total, exp.minValid, exp.maxVal)
			}
			checkConsistent(t, rec)
		})
	}
}

// checkConsistent checks what every reader must guarantee to its users.
func checkConsistent(t *testing.T, rec *result.Recording) {
	t.Helper()
	for i, e := range rec.Evaluations {
		if len(e.Config) != len(rec.Params) {
			t.Fatalf("evaluation %d has %d values for %d parameters", i, len(e.Config), len(rec.Params))
		}
		for j, v := range e.Config {
			if rec.Params[j].Index(v) < 0 {
				t.Fatalf("evaluation %d: %s=%v is not among the parameter's values", i, rec.Params[j].Name, v)
			}
		}
		if (e.Status == result.OK) == e.Failed() {
			t.Fatalf("evaluation %d: status %v with objective %v", i, e.Status, e.Objective)
		}
	}
}

// A file with the top-level members of two formats (a Kernel Tuner cache merged with a T4
// results file) is refused with both formats named: read as the first format by name, it
// was imported as a Kernel Tuner cache and its T4 results were left out without a word.
func TestOpenRefusesAFileInTwoFormats(t *testing.T) {
	dir := t.TempDir()
	cache, err := os.ReadFile(filepath.Join(testdata, "kernel_tuner/vector_add_A4000.json"))
	if err != nil {
		t.Fatal(err)
	}
	t4, err := format.ReadAll(mustOpen(t, filepath.Join(testdata, "benchmark_hub/convolution_milo/A100_T4.json.gz")), "t4")
	if err != nil {
		t.Fatal(err)
	}
	// the T4 file's members (metadata, results, schema_version) appended to the cache's
	i := bytes.LastIndexByte(cache, '}')
	j := bytes.IndexByte(t4, '{')
	merged := append(append(append([]byte{}, cache[:i]...), ',', '\n'), t4[j+1:]...)
	path := filepath.Join(dir, "merged.json")
	if err := os.WriteFile(path, merged, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = format.Open(path)
	if !errors.Is(err, format.ErrAmbiguous) || errors.Is(err, format.ErrUnknown) {
		t.Fatalf("error %v, want one that wraps ErrAmbiguous (not ErrUnknown: a folder's import would pass over it)", err)
	}
	for _, w := range []string{path, "kerneltuner (top-level tune_params_keys", "t4 (top-level results"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// each file alone is still read
	for _, f := range []string{"kernel_tuner/vector_add_A4000.json", "benchmark_hub/convolution_milo/A100_T4.json.gz"} {
		if _, err := format.Open(filepath.Join(testdata, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A byte that is not UTF-8 (a cache re-encoded as Latin-1, or damaged) is refused with its
// line and column: the JSON decoder turned it into U+FFFD and the file was imported with a
// kernel name of "vector\uFFFD\uFFFDadd". UTF-8 beyond ASCII is read as it is.
func TestOpenRefusesBytesThatAreNotUTF8(t *testing.T) {
	dir := t.TempDir()
	cache, err := os.ReadFile(filepath.Join(testdata, "kernel_tuner/vector_add_A4000.json"))
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	latin1 := bytes.Replace(cache, []byte(`"vector_add"`), []byte("\"vector\xb5add\""), 1)
	line, col := format.Position(latin1, int64(bytes.IndexByte(latin1, 0xb5)))
	at := fmt.Sprintf(":%d:%d ", line, col)
	for name, content := range map[string][]byte{"latin1.json": latin1, "latin1.json.gz": gz(latin1)} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := format.Open(path)
		if err == nil {
			t.Errorf("%s: read, kernel %q", name, rec.Kernel)
			continue
		}
		for _, w := range []string{path + at, "byte 0xb5 is not UTF-8", "iconv"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
	}
	utf8 := bytes.Replace(cache, []byte(`"vector_add"`), []byte(`"vector_add_µs"`), 1)
	path := filepath.Join(dir, "utf8.json")
	if err := os.WriteFile(path, utf8, 0o644); err != nil {
		t.Fatal(err)
	}
	if rec, err := format.Open(path); err != nil || rec.Kernel != "vector_add_µs" {
		t.Errorf("UTF-8 kernel name: %v, %v", rec, err)
	}
}

// A recording saved by an editor that puts a byte order mark before UTF-8 (Notepad) reads
// as it did before, plain or compressed: it was refused as "not JSON (it starts with
// \ufeff{...)" without saying what was wrong.
func TestOpenReadsARecordingWithAByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"kernel_tuner/vector_add_A4000.json", "benchmark_hub/convolution_milo/A100_T4.json.gz", "ktt/coulomb_sum_3d/RTX_2080_Ti.json.gz"} {
		path := filepath.Join(testdata, name)
		want, err := format.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := format.ReadAll(mustOpen(t, path), path)
		if err != nil {
			t.Fatal(err)
		}
		withBOM := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(withBOM, append([]byte("\xef\xbb\xbf"), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := format.Open(withBOM)
		if err != nil {
			t.Errorf("%s with a byte order mark: %v", name, err)
			continue
		}
		got.Source = want.Source
		if !got.SameAs(want) {
			t.Errorf("%s with a byte order mark reads otherwise: %s", name, formattest.Diff(want, got))
		}
	}
}
