package ktt_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/ktt"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
)

// kttSizes is what an independent reading (encoding/json into generic values) finds of a
// KTT file's launches: its Metadata's ComputeApi and GlobalSizeType, and each result's
// computation results' GlobalSize and LocalSize as written.
type kttSizes struct {
	api, sizeType string
	sizes         [][]string // per result, per computation result: `GlobalSize LocalSize` in JSON
}

func readSizes(t *testing.T, data []byte) kttSizes {
	t.Helper()
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var doc struct {
		Metadata map[string]any
		Results  []struct {
			ComputationResults []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := kttSizes{api: str(doc.Metadata["ComputeApi"]), sizeType: str(doc.Metadata["GlobalSizeType"])}
	for _, r := range doc.Results {
		var per []string
		for _, c := range r.ComputationResults {
			per = append(per, compact(t, c["GlobalSize"])+" "+compact(t, c["LocalSize"]))
		}
		out.sizes = append(out.sizes, per)
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// compact is a JSON value without its spaces, "" for none.
func compact(t *testing.T, raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// KTT's own files keep their launch sizes through Read and Write: every computation
// result's GlobalSize and LocalSize come back as the file has them, of the same
// GlobalSizeType and ComputeApi, as an independent reading of both files finds.
func TestWriteKeepsKTTsLaunchSizes(t *testing.T) {
	for _, tt := range []struct {
		path  string
		first result.Launch // the first result's, read off the file
	}{
		{coulomb, result.Launch{Grid: [3]int{16, 64, 256}, Block: [3]int{16, 4, 1}}},
		{pnpoly, result.Launch{Grid: [3]int{625000, 1, 1}, Block: [3]int{32, 1, 1}}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			raw, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			want := readSizes(t, raw)
			rec := readFile(t, tt.path)
			if rec.Backend != "cuda" || !result.SameLaunch(rec.Evaluations[0].Launch, &tt.first) {
				t.Fatalf("backend %q, first launch %v; want cuda, %v", rec.Backend, rec.Evaluations[0].Launch, tt.first)
			}
			sized := 0
			for i, per := range want.sizes {
				if len(per) == 1 && per[0] != " " {
					sized++
					if rec.Evaluations[i].Launch == nil {
						t.Fatalf("result %d has sizes %s, its evaluation no launch", i, per[0])
					}
				}
			}
			if sized == 0 {
				t.Fatal("the file has no launch sizes")
			}
			_, data := writeRead(t, rec)
			got := readSizes(t, data)
			if got.api != want.api || got.sizeType != want.sizeType || got.api != "CUDA" || got.sizeType != "CUDA" {
				t.Errorf("ComputeApi %q, GlobalSizeType %q; the file's %q, %q", got.api, got.sizeType, want.api, want.sizeType)
			}
			if len(got.sizes) != len(want.sizes) {
				t.Fatalf("%d results written, the file has %d", len(got.sizes), len(want.sizes))
			}
			for i := range want.sizes {
				if strings.Join(got.sizes[i], "; ") != strings.Join(want.sizes[i], "; ") {
					t.Fatalf("result %d: sizes %q, the file's %q", i, got.sizes[i], want.sizes[i])
				}
			}
		})
	}
}

// GlobalSize counts work-groups or work-items as GlobalSizeType says (or, without one,
// the ComputeApi's own type): Read keeps the launch in CUDA terms, and Write writes it in
// the terms of the file's compute API, whatever type the file had.
func TestReadAndWriteGlobalSizeByItsType(t *testing.T) {
	const result0 = `{"ComputationResults": [{"KernelFunction": "k", "Duration": 2, "Overhead": 0,
		"GlobalSize": {"X": 1024, "Y": 8, "Z": 1}, "LocalSize": {"X": 64, "Y": 2, "Z": 1}}],
		"Configuration": [{"Name": "A", "Value": 1, "ValueType": "UnsignedInt"}], "Status": "Ok"}`
	threads := result.Launch{Grid: [3]int{16, 4, 1}, Block: [3]int{64, 2, 1}}
	blocks := result.Launch{Grid: [3]int{1024, 8, 1}, Block: [3]int{64, 2, 1}}
	for _, tt := range []struct {
		name, meta    string
		backend       string
		launch        result.Launch
		api, sizeType string // written
		global        string
	}{
		{"OpenCL", `"ComputeApi": "OpenCL", "GlobalSizeType": "OpenCL"`, "opencl", threads, "OpenCL", "OpenCL", `{"X":1024,"Y":8,"Z":1}`},
		{"OpenCL's own type", `"ComputeApi": "OpenCL"`, "opencl", threads, "OpenCL", "OpenCL", `{"X":1024,"Y":8,"Z":1}`},
		{"CUDA", `"ComputeApi": "CUDA", "GlobalSizeType": "CUDA"`, "cuda", blocks, "CUDA", "CUDA", `{"X":1024,"Y":8,"Z":1}`},
		{"Vulkan", `"ComputeApi": "Vulkan", "GlobalSizeType": "Vulkan"`, "vulkan", blocks, "Vulkan", "Vulkan", `{"X":1024,"Y":8,"Z":1}`},
		{"OpenCL with CUDA's type", `"ComputeApi": "OpenCL", "GlobalSizeType": "CUDA"`, "opencl", blocks, "OpenCL", "OpenCL", `{"X":65536,"Y":16,"Z":1}`},
		{"CUDA with OpenCL's type", `"ComputeApi": "CUDA", "GlobalSizeType": "OpenCL"`, "cuda", threads, "CUDA", "CUDA", `{"X":16,"Y":4,"Z":1}`},
		{"a type alone", `"GlobalSizeType": "OpenCL"`, "", threads, "", "CUDA", `{"X":16,"Y":4,"Z":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := readString(`{"Metadata": {` + tt.meta + `, "TimeUnit": "Milliseconds"}, "Results": [` + result0 + `]}`)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Backend != tt.backend || !result.SameLaunch(rec.Evaluations[0].Launch, &tt.launch) || len(rec.Warnings) > 0 {
				t.Fatalf("backend %q, launch %v, warnings %q; want %q, %v, none", rec.Backend, rec.Evaluations[0].Launch, rec.Warnings, tt.backend, tt.launch)
			}
			back, data := writeRead(t, rec)
			if d := formattest.Diff(rec, back); d != "" {
				t.Errorf("round trip differs: %s", d)
			}
			got := readSizes(t, data)
			if got.api != tt.api || got.sizeType != tt.sizeType || got.sizes[0][0] != tt.global+` {"X":64,"Y":2,"Z":1}` {
				t.Errorf("written ComputeApi %q, GlobalSizeType %q, sizes %q; want %q, %q, %s", got.api, got.sizeType, got.sizes[0][0], tt.api, tt.sizeType, tt.global)
			}
		})
	}
}

// Sizes that make no launch leave the result's launch unknown, with a warning that names
// the result and why; a result of several kernel functions keeps none, silently (each may
// have its own); a file without sizes has none and needs no warning.
func TestReadLeavesOutSizesThatAreNoLaunch(t *testing.T) {
	res := func(sizes string) string {
		return `{"ComputationResults": [{"KernelFunction": "k", "Duration": 2` + sizes + `}],
			"Configuration": [{"Name": "A", "Value": 1, "ValueType": "UnsignedInt"}], "Status": "Ok"}`
	}
	for _, tt := range []struct {
		name, meta, result, warning string
	}{
		{"not a multiple", `"GlobalSizeType": "OpenCL"`, res(`, "GlobalSize": {"X": 1000, "Y": 1, "Z": 1}, "LocalSize": {"X": 64, "Y": 1, "Z": 1}`),
			"1 result has launch sizes ktune cannot read (result 0 at line 1: GlobalSize X 1000 (work-items) is not a multiple of LocalSize X 64); its launch is left out"},
		{"zero", `"GlobalSizeType": "CUDA"`, res(`, "GlobalSize": {"X": 4, "Y": 0, "Z": 1}, "LocalSize": {"X": 64, "Y": 1, "Z": 1}`),
			"GlobalSize Y is the number 0, not a whole number of at least 1"},
		{"fraction", `"GlobalSizeType": "CUDA"`, res(`, "GlobalSize": {"X": 4, "Y": 1, "Z": 1}, "LocalSize": {"X": 6.5, "Y": 1, "Z": 1}`),
			"LocalSize X is the number 6.5, not a whole number"},
		{"no local size", `"GlobalSizeType": "CUDA"`, res(`, "GlobalSize": {"X": 4, "Y": 1, "Z": 1}`),
			"LocalSize is null, not an object of X, Y and Z"},
		{"an array", `"GlobalSizeType": "CUDA"`, res(`, "GlobalSize": [4, 1, 1], "LocalSize": {"X": 6, "Y": 1, "Z": 1}`),
			"GlobalSize is an array, not an object"},
		{"no type", `"Device": "d"`, res(`, "GlobalSize": {"X": 4, "Y": 1, "Z": 1}, "LocalSize": {"X": 64, "Y": 1, "Z": 1}`),
			"no GlobalSizeType or ComputeApi says whether GlobalSize counts threads or blocks"},
		{"too many threads", `"GlobalSizeType": "CUDA"`, res(`, "GlobalSize": {"X": 4503599627370496, "Y": 1, "Z": 1}, "LocalSize": {"X": 64, "Y": 1, "Z": 1}`),
			"more than 2^53 threads"},
		{"no sizes", `"GlobalSizeType": "CUDA"`, res(``), ""},
		{"two kernel functions", `"GlobalSizeType": "CUDA"`, `{"ComputationResults": [
			{"KernelFunction": "a", "Duration": 2, "GlobalSize": {"X": 4, "Y": 1, "Z": 1}, "LocalSize": {"X": 64, "Y": 1, "Z": 1}},
			{"KernelFunction": "b", "Duration": 1, "GlobalSize": {"X": 8, "Y": 1, "Z": 1}, "LocalSize": {"X": 32, "Y": 1, "Z": 1}}],
			"Configuration": [{"Name": "A", "Value": 1, "ValueType": "UnsignedInt"}], "Status": "Ok"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := `{"Metadata": {` + tt.meta + `, "TimeUnit": "Milliseconds"}, "Results": [` + strings.ReplaceAll(tt.result, "\n", " ") + `]}`
			rec, err := readString(src)
			if err != nil {
				t.Fatal(err)
			}
			slow, err := ktt.ReadWithDecoder(strings.NewReader(src), "test.json")
			if err != nil || formattest.Diff(slow, rec) != "" || strings.Join(slow.Warnings, "\n") != strings.Join(rec.Warnings, "\n") {
				t.Errorf("the decoder-based reader reads otherwise: %v %q", err, slow.Warnings)
			}
			if rec.Evaluations[0].Launch != nil || rec.Evaluations[0].Failed() {
				t.Errorf("launch %v, status %v; want none, a success", rec.Evaluations[0].Launch, rec.Evaluations[0].Status)
			}
			switch {
			case tt.warning == "" && len(rec.Warnings) > 0:
				t.Errorf("warnings %q, want none", rec.Warnings)
			case tt.warning != "" && (len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], tt.warning)):
				t.Errorf("warnings %q, want one containing %q", rec.Warnings, tt.warning)
			}
		})
	}
}

// A recording without launches (a Kernel Tuner cache's, a host C run's) is written
// without GlobalSize, LocalSize or GlobalSizeType, which KTT has no value for unknown for;
// a host C run names no ComputeApi either.
func TestWriteWithoutLaunchesHasNoSizes(t *testing.T) {
	for _, backend := range []string{"", "c", "opencl"} {
		rec := &result.Recording{Kernel: "k", Backend: backend, Objective: "time", Params: []space.Param{{Name: "a", Values: []space.Value{space.IntValue(1)}}},
			Evaluations: []result.Evaluation{{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: 2}}}
		back, data := writeRead(t, rec)
		got := readSizes(t, data)
		wantAPI := map[string]string{"opencl": "OpenCL"}[backend]
		if got.api != wantAPI || got.sizeType != "" || got.sizes[0][0] != " " || back.Evaluations[0].Launch != nil {
			t.Errorf("backend %q: ComputeApi %q, GlobalSizeType %q, sizes %q; want %q and no sizes", backend, got.api, got.sizeType, got.sizes[0], wantAPI)
		}
	}
}
