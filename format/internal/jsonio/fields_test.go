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

// every is a struct with a field of each type Members decodes into.
type every struct {
	S     string         `json:"s"`
	F     float64        `json:"f"`
	P     *float64       `json:"p"`
	A     any            `json:"a"`
	O     *jsonio.Object `json:"o"`
	L     []any          `json:"l"`
	Inner []inner        `json:"inner"`
}

type inner struct {
	N string `json:"n"`
}

var (
	everyFields = jsonio.NewFields("s", "f", "p", "a", "o", "l", "inner")
	innerFields = jsonio.NewFields("n")
)

func scanEvery(s *jsonio.Scanner, v *every) {
	s.Members(everyFields, &v.S, &v.F, &v.P, &v.A, &v.O, &v.L, func() { v.Inner = jsonio.Slice(s, scanInner) })
}

func scanInner(s *jsonio.Scanner, v *inner) { s.Members(innerFields, &v.N) }

// Members decodes into each type of destination as encoding/json decodes into a field of
// that type, and gives up where Struct does (a name matched by case folding alone, one
// given twice) and on a value of another type.
func TestMembersDecodeAsEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		src     string
		givesUp bool
	}{
		{`{"s": "caf\u00e9", "f": -1.5e3, "p": 0, "a": {"k": [1, "x", null]}, "o": {"b": 1, "a": 2}, "l": [1, "two", [3]], "inner": [{"n": "x"}, null, {}], "other": [1]}`, false},
		{`{"s": null, "f": null, "p": null, "a": null, "o": null, "l": null, "inner": null}`, false},
		{`{"l": [], "inner": [], "o": {}}`, false},
		{`null`, false},
		{`{}`, false},
		{`{"S": "x"}`, true},
		{`{"s": "x", "s": "y"}`, true},
		{`{"s": 1}`, true},
		{`{"f": "1"}`, true},
		{`{"p": true}`, true},
		{`{"o": []}`, true},
		{`{"l": {}}`, true},
		{`{"inner": [{"N": "x"}]}`, true},
		{`{"inner": [1]}`, true},
		{`[]`, true},
	} {
		scanned, err := formattest.ScanAgrees([]byte(c.src), scanEvery)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
		}
		if scanned == c.givesUp {
			t.Errorf("%s: scanned %v, want %v", c.src, scanned, !c.givesUp)
		}
	}
}

// A destination Members cannot decode into, or one too many or too few, is the reader's
// mistake: a panic that says which, not a giving up that would hide it behind
// encoding/json.
func TestMembersPanicsOnAMistakenDestination(t *testing.T) {
	for _, c := range []struct {
		name string
		dsts []any
		want string
	}{
		{"an int", []any{new(int)}, "jsonio: Members into a *int, for member \"n\""},
		{"a value, not a pointer", []any{"x"}, "jsonio: Members into a string, for member \"n\""},
		{"two for one field", []any{new(string), new(string)}, "jsonio: Members given 2 destinations for Fields of 1 names"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != c.want {
					t.Errorf("panic %v, want %q", r, c.want)
				}
			}()
			s := &jsonio.Scanner{Data: []byte(`{"n": "x"}`)}
			jsonio.Scan(func() { s.Members(innerFields, c.dsts...) })
		})
	}
}
