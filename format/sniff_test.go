package format

import (
	"strings"
	"testing"
)

func TestTopLevelKeys(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{`{"a": 1, "b": {"c": [1, {"d": "}"}]}, "e": "x\"y", "f": null}`, "a b e f"},
		{` {"a": [1, 2], "b": {`, "a b"},
		{`{"a\u0062": true}`, "ab"},
		{`{"a": 1 "b": 2}`, "a"},
		{`[{"a": 1}]`, ""},
		{``, ""},
		{`{"a":`, "a"},
	}
	for _, tt := range tests {
		if got := strings.Join(TopLevelKeys([]byte(tt.src)), " "); got != tt.want {
			t.Errorf("TopLevelKeys(%s) = %q, want %q", tt.src, got, tt.want)
		}
	}
}
