package opencl

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

func TestBuildOptionsQuotesWhatRuntimesWouldSplit(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		src  device.Source
		want string
	}{
		{"nothing", device.Source{}, ""},
		{"user options as written", device.Source{Options: []string{"-cl-fast-relaxed-math", " ", "-cl-std=CL1.2"}}, "-cl-fast-relaxed-math -cl-std=CL1.2"},
		{"defines are left to the source", device.Source{Defines: []device.Define{{Name: "B", Value: "256"}, {Name: "X", Value: "(1 + 2)"}}}, ""},
		{"options then include", device.Source{
			Options: []string{"-w"}, Defines: []device.Define{{Name: "N", Value: "1"}}, File: filepath.Join("testdata", "k.cl"),
		}, "-w -I " + dir},
		{"include directory with a space", device.Source{File: "/tmp/my kernels/k.cl"}, `-I "/tmp/my kernels"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := buildOptions(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("buildOptions = %q, want %q", got, tt.want)
			}
		})
	}
}

// The defines are written ahead of the code, in order, each as the value reads (quotes,
// spaces and backslashes are the preprocessor's to read), with a #line directive where
// the code has none of its own, so that the compiler's line numbers stay the code's.
func TestDefineLinesPrecedeTheCode(t *testing.T) {
	defs := []device.Define{{Name: "B", Value: "256"}, {Name: "A", Value: "2.0f"}, {Name: "E", Value: ""}, {Name: "P", Value: `_Pragma("unroll 4")`}}
	got, err := defineLines(device.Source{Code: "__kernel void k() {}\n", Defines: defs})
	if err != nil {
		t.Fatal(err)
	}
	if want := "#define B 256\n#define A 2.0f\n#define E \n#define P _Pragma(\"unroll 4\")\n#line 1 \"<code>\"\n"; got != want {
		t.Errorf("defineLines = %q, want %q", got, want)
	}
	got, err = defineLines(device.Source{Code: "#line 12 \"spec.yaml\"\n__kernel void k() {}\n", Defines: defs[:1]})
	if err != nil || got != "#define B 256\n" {
		t.Errorf("defineLines of code with its own #line = %q, %v; want the define alone", got, err)
	}
	if got, err := defineLines(device.Source{Code: "__kernel void k() {}\n"}); got != "" || err != nil {
		t.Errorf("defineLines without defines = %q, %v; want nothing", got, err)
	}
}

func TestDefineLinesRejectWhatCannotBeCarried(t *testing.T) {
	tests := []struct {
		name    string
		define  device.Define
		wantErr string
	}{
		{"empty name", device.Define{Name: "", Value: "1"}, "not a C identifier"},
		{"name with a space", device.Define{Name: "A B", Value: "1"}, "not a C identifier"},
		{"name starting with a digit", device.Define{Name: "1A", Value: "1"}, "not a C identifier"},
		{"name smuggling a definition", device.Define{Name: "A 1\n#define B", Value: "1"}, "not a C identifier"},
		{"line break", device.Define{Name: "A", Value: "1\n2"}, "line break"},
		{"NUL", device.Define{Name: "A", Value: "1\x002"}, "NUL"},
		{"line continuation", device.Define{Name: "A", Value: `1 \`}, "backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := defineLines(device.Source{Defines: []device.Define{tt.define}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("defineLines(%+v) error = %v, want one containing %q", tt.define, err, tt.wantErr)
			}
		})
	}
}

func TestStatusNamesCodes(t *testing.T) {
	tests := []struct {
		code Status
		want string
	}{
		{-5, "CL_OUT_OF_RESOURCES"},
		{-54, "CL_INVALID_WORK_GROUP_SIZE"},
		{-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
		{-9999, "CL_ERROR_-9999"},
	}
	for _, tt := range tests {
		if got := tt.code.Name(); got != tt.want {
			t.Errorf("Status(%d).Name() = %q, want %q", tt.code, got, tt.want)
		}
	}
	if got := check("clFinish", -36).Error(); got != "clFinish: CL_INVALID_COMMAND_QUEUE (-36)" {
		t.Errorf("check error = %q", got)
	}
}
