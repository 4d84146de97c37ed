package opencl

import "testing"

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
}
