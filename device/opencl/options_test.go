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
		{"plain defines in order", device.Source{Defines: []device.Define{{Name: "B", Value: "256"}, {Name: "A", Value: "2.0f"}, {Name: "E", Value: ""}}}, "-D B=256 -D A=2.0f -D E="},
		{"expression with spaces", device.Source{Defines: []device.Define{{Name: "X", Value: "(1 + 2)"}}}, `-D X="(1 + 2)"`},
		{"parentheses without spaces", device.Source{Defines: []device.Define{{Name: "X", Value: "(a*b)"}}}, "-D X=(a*b)"},
		{"backslash doubled", device.Source{Defines: []device.Define{{Name: "X", Value: `x\y`}}}, `-D X="x\\y"`},
		{"char literal", device.Source{Defines: []device.Define{{Name: "C", Value: "'q'"}}}, `-D C="'q'"`},
		{"options then defines then include", device.Source{
			Options: []string{"-w"}, Defines: []device.Define{{Name: "N", Value: "1"}}, File: filepath.Join("testdata", "k.cl"),
		}, "-w -D N=1 -I " + dir},
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

func TestBuildOptionsRejectsWhatCannotBeCarried(t *testing.T) {
	tests := []struct {
		name    string
		define  device.Define
		wantErr string
	}{
		{"empty name", device.Define{Name: "", Value: "1"}, "not a C identifier"},
		{"name with a space", device.Define{Name: "A B", Value: "1"}, "not a C identifier"},
		{"name starting with a digit", device.Define{Name: "1A", Value: "1"}, "not a C identifier"},
		{"name smuggling an option", device.Define{Name: "A=1 -I/etc", Value: "1"}, "not a C identifier"},
		{"line break", device.Define{Name: "A", Value: "1\n2"}, "line break"},
		{"double quote", device.Define{Name: "A", Value: `"text"`}, "double quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := buildOptions(device.Source{Defines: []device.Define{tt.define}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("buildOptions(%+v) error = %v, want one containing %q", tt.define, err, tt.wantErr)
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
