package opencl

import (
	"testing"

	"github.com/ktune/ktune/device"
)

// A runtime that ignores #line (NVIDIA's, some PoCL builds) names positions in the program
// text as ktune gave it: the note says where they are in the user's files. One that
// follows the directives gets no note.
func TestLineNotesPlaceARuntimesOwnPositions(t *testing.T) {
	code := "#define B 1\n#line 6 \"/x/inline.yaml\"\n__kernel void k(__global float *x) {\n  x[0] = u;\n}\n#line 1 \"/x/ref.cl\"\n__kernel void r() { y; }\n"
	tests := []struct{ log, want string }{
		{"<kernel>:4:10: error: use of undeclared identifier 'u'\n  x[0] = u;\n         ^\n<kernel>:7:21: error: y\n",
			"note: this OpenCL runtime ignores #line, so its positions count lines of the program as ktune gave it: " +
				"<kernel>:4:10 is /x/inline.yaml:7:10; <kernel>:7:21 is /x/ref.cl:1:21"},
		{"/x/inline.yaml:7:10: error: use of undeclared identifier 'u'\n", ""}, // it follows them
		{"<kernel>:1:1: error: before any directive\n", ""},
		{"error: no position\n", ""},
	}
	for _, tt := range tests {
		if got := lineNotes(code, tt.log); got != tt.want {
			t.Errorf("log %q:\n got %q\nwant %q", tt.log, got, tt.want)
		}
	}
	if got := lineNotes("__kernel void k() {}\n", "<kernel>:1:1: error: x\n"); got != "" {
		t.Errorf("code without directives: %q", got)
	}

	// Code given without a #line of its own gets one naming it "<code>" after the defines:
	// NVIDIA's driver (H200, driver 580) counted the define lines and reported line 4.
	defines, err := defineLines(device.Source{Code: "__kernel void k(__global int* out) {\n\tout[0] = p *;\n}\n", Defines: []device.Define{{Name: "p", Value: "2"}}})
	if err != nil {
		t.Fatal(err)
	}
	code = defines + "__kernel void k(__global int* out) {\n\tout[0] = p *;\n}\n"
	want := "note: this OpenCL runtime ignores #line, so its positions count lines of the program as ktune gave it: <kernel>:4:14 is <code>:2:14"
	if got := lineNotes(code, "<kernel>:4:14: error: expected expression\n"); got != want {
		t.Errorf("code with defines, NVIDIA's log:\n got %q\nwant %q", got, want)
	}
	if got := lineNotes(code, "<code>:2:14: error: expected expression\n"); got != "" {
		t.Errorf("code with defines, a log that follows #line: %q, want no note", got)
	}
}
