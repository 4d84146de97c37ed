package jsonio_test

import (
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
	"github.com/ktune/ktune/format/internal/jsonio"
)

// Values with the corners Any and ObjectPtr decode as encoding/json does.
var fieldCorners = []string{
	`{"a": 1, "b": [1.5e3, -0, "x", true, false, null, {}, []], "a": {"c": "\u00e9\ud800\n"}, "d": "caf\u00e9 ok"}`,
	`{}`, `null`, `[]`, `"s"`, `12345678901234567890123`, `1e400`, `{"k": 1, "k": 2}`, `{"\u004b": 1, "\u212a": 2}`,
	`{"x": "same", "y": "same", "z": 7, "w": 7}`,
}

func TestAnyAndObjectPtrDecodeAsEncodingJSON(t *testing.T) {
	for _, src := range fieldCorners {
		if _, err := formattest.ScanAgrees([]byte(src), scanAny); err != nil {
			t.Errorf("Any of %s: %v", src, err)
		}
		scanned, err := formattest.ScanAgrees([]byte(src), scanObject)
		if err != nil {
			t.Errorf("ObjectPtr of %s: %v", src, err)
		}
		if isObject := src[0] == '{' || src == "null"; scanned != isObject {
			t.Errorf("ObjectPtr of %s: scanned %v", src, scanned)
		}
	}
}

func scanAny(s *jsonio.Scanner, v *any) { *v = s.Any() }

func scanObject(s *jsonio.Scanner, o **jsonio.Object) { *o = s.ObjectPtr() }

func FuzzAnyAndObjectPtr(f *testing.F) {
	for _, src := range fieldCorners {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := formattest.ScanAgrees(data, scanAny); err != nil {
			t.Fatalf("Any: %v", err)
		}
		if _, err := formattest.ScanAgrees(data, scanObject); err != nil {
			t.Fatalf("ObjectPtr: %v", err)
		}
	})
}
