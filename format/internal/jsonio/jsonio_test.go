package jsonio

import (
	"bufio"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/format"
)

// Python's NaN and Infinity become null, and positions still refer to the file.
func TestLoadReplacesPythonNonFiniteTokensKeepingPositions(t *testing.T) {
	src := "{\"a\": NaN, \"s\": \"NaN Infinity\",\n \"b\": -Infinity, \"c\": Infinity, \"d\": oops}"
	in := NewInput([]byte(src), "f.json", false)
	want := "{\"a\": null, \"s\": \"NaN Infinity\",\n \"b\": null, \"c\": null, \"d\": oops}"
	if string(in.Data) != want {
		t.Fatalf("sanitized %q", in.Data)
	}
	dec := in.Decoder()
	var doc map[string]any
	derr := dec.Decode(&doc)
	e := in.JSONError(derr, 0, "")
	var fe *format.Error
	if !errors.As(e, &fe) {
		t.Fatalf("error %v", e)
	}
	wantOff := int64(strings.Index(src, "oops"))
	if fe.Offset != wantOff || fe.Line != 2 || fe.Column != int(wantOff)-strings.Index(src, "\n") {
		t.Errorf("error at %d (%d:%d), want offset %d on line 2: %v", fe.Offset, fe.Line, fe.Column, wantOff, e)
	}
}

func TestTimesRoundTrip(t *testing.T) {
	tests := []string{
		"2023-12-22T13:17:23.719843+00:00",
		"2023-12-22T13:17:23+00:00",
		"2023-12-22T13:17:23.000001+05:30",
	}
	for _, s := range tests {
		ts, ok := ParseTime(s)
		if !ok {
			t.Fatalf("ParseTime(%q) failed", s)
		}
		if got := FormatTime(ts); got != s {
			t.Errorf("FormatTime(ParseTime(%q)) = %q", s, got)
		}
	}
	for _, s := range []string{"2024-04-19 22:17:16 UTC", "2024-04-19T22:17:16Z", "2024-04-19T22:17:16.5+01:00",
		"2023-12-22 13:17:23.719843+00:00", "2023-12-22 13:17:23.000000001+05:30"} {
		if _, ok := ParseTime(s); !ok {
			t.Errorf("ParseTime(%q) failed", s)
		}
	}
	if _, ok := ParseTime("yesterday"); ok {
		t.Error("ParseTime accepted nonsense")
	}
}

// pythonISO is what datetime.fromisoformat accepts before Python 3.11 (Kernel Tuner's
// cache module reads timestamps with it): 3 or 6 fractional digits, no more, and an
// offset; and, with the T, an RFC 3339 date-time, which Kernel Tuner's cache schema asks
// for.
var pythonISO = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?[+-]\d{2}:\d{2}$`)

// A time measured to the nanosecond is written to the microsecond, truncated, so that
// Python 3.10 and older read it; ParseTime still reads nine digits from older files, to
// the microsecond, so that what it reads writes back unchanged (the T4 fuzzer saw
// 00:00:00.0000001 come back as 00:00:00).
func TestFormatTimeWritesWhatPythonBefore311Reads(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 26, 16, 51, 15, 259656039, time.UTC), "2026-11-26T16:51:15.259656+00:00"},
		{time.Date(2026, 11, 26, 16, 51, 15, 999999999, time.UTC), "2026-11-26T16:51:15.999999+00:00"},
		{time.Date(2026, 11, 26, 16, 51, 15, 400, time.FixedZone("", 3600)), "2026-11-26T16:51:15+01:00"},
		{time.Date(2026, 11, 26, 16, 51, 15, 0, time.UTC), "2026-11-26T16:51:15+00:00"},
	}
	for _, tt := range tests {
		got := FormatTime(tt.in)
		if got != tt.want || !pythonISO.MatchString(got) {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	old, ok := ParseTime("2026-11-26 16:51:15.259656039+00:00") // as ktune wrote it before
	if !ok || old.Nanosecond() != 259656000 {
		t.Errorf("ParseTime of nine digits: %v %v", old, ok)
	}
	if back, ok := ParseTime(FormatTime(old)); !ok || !back.Equal(old) {
		t.Errorf("ParseTime(FormatTime(%v)) = %v, %v", old, back, ok)
	}
}

func TestUnitsConvertToMilliseconds(t *testing.T) {
	for _, tt := range []struct {
		u    Unit
		in   float64
		want float64
	}{{Nanoseconds, 2e6, 2}, {Microseconds, 1500, 1.5}, {Milliseconds, 3, 3}, {Seconds, 2, 2000}, {Unit{}, 4, 4}} {
		if got := tt.u.ToMS(tt.in); got != tt.want {
			t.Errorf("ToMS(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFloatRejectsWhatJSONCannotHold(t *testing.T) {
	for _, v := range []any{json.Number("1e999"), json.Number("x"), nil, "1", true} {
		if _, ok := Float(v); ok {
			t.Errorf("Float(%v) accepted", v)
		}
	}
	if f, ok := Float(json.Number("2.5")); !ok || f != 2.5 {
		t.Errorf("Float(2.5) = %v, %v", f, ok)
	}
}

// The Scanner accepts exactly what encoding/json accepts as one JSON value.
func FuzzScannerAgreesWithValid(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, -0.5e+3, "x\u00e9\n", true, false, null, {}], "b": {"c": []}}`,
		`[01]`, `[1.]`, `["\x"]`, "\"tab\there\"", `{"a" 1}`, `[1,]`, ` 1 `, `nul`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("[", 10000) + "1" + strings.Repeat("]", 10000),
		"\"\xff\xfe\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Scanner{Data: data}
		ok := Scan(func() {
			s.Skip()
			if s.Space(); s.I != len(s.Data) {
				s.Fail()
			}
		})
		if ok != json.Valid(data) {
			t.Fatalf("the scanner says %v, encoding/json %v, for %q", ok, json.Valid(data), data)
		}
	})
}

// The encoder writes <, > and & as they are, as Python's json does, and the JSON is valid.
func TestEncoderDoesNotEscapeHTML(t *testing.T) {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	e := &Encoder{W: w, Prefix: "test"}
	e.Str("{")
	e.Field("a <= b && c > d", "error: expected '<'")
	e.Str(", ")
	e.Field("n", []any{1, "x"})
	e.Str("}")
	if e.Err != nil || w.Flush() != nil {
		t.Fatal(e.Err)
	}
	want := `{"a <= b && c > d": "error: expected '<'", "n": [1,"x"]}`
	if b.String() != want || !json.Valid([]byte(b.String())) {
		t.Errorf("got %s, want %s", b.String(), want)
	}
}
