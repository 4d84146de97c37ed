package sqlrow

import (
	"database/sql"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/store"
)

func TestJSONObject(t *testing.T) {
	if v, err := JSONObject("x", nil); v != nil || err != nil {
		t.Errorf("empty: %v, %v; want nil, nil", v, err)
	}
	if v, err := JSONObject("x", json.RawMessage(`{"a":1}`)); v != `{"a":1}` || err != nil {
		t.Errorf("object: %v, %v", v, err)
	}
	for _, raw := range []string{`[1]`, `null`, `{`} {
		if _, err := JSONObject("settings", json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), "settings must be a JSON object") {
			t.Errorf("%s: err %v", raw, err)
		}
	}
}

func TestUnixNanoRoundTrip(t *testing.T) {
	if UnixNano(time.Time{}) != nil || !FromUnixNano(sql.NullInt64{}).IsZero() {
		t.Error("the zero time is not NULL")
	}
	now := time.Now()
	got := FromUnixNano(sql.NullInt64{Int64: UnixNano(now).(int64), Valid: true})
	if !got.Equal(now) || got.Location() != time.UTC {
		t.Errorf("got %v, want %v in UTC", got, now)
	}
}

func TestNullHelpers(t *testing.T) {
	if RealOrNull(math.NaN()) != nil || RealOrNull(1.5) != 1.5 {
		t.Error("RealOrNull")
	}
	if !math.IsNaN(NullAsNaN(sql.NullFloat64{})) || NullAsNaN(sql.NullFloat64{Float64: 2, Valid: true}) != 2 {
		t.Error("NullAsNaN")
	}
	if PositiveOrNull(0) != nil || PositiveOrNull(3) != int64(3) || EmptyAsNull("") != nil || NullText(nil) != nil {
		t.Error("NULL for unknown")
	}
}

func TestRunArgsDefaults(t *testing.T) {
	args, err := RunArgs(store.RunInfo{Kind: store.KindImport, Maximize: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 16 || args[6] != "time" || args[7] != "max" || args[11] != string(store.StatusRunning) || args[9] == nil {
		t.Errorf("args %v", args)
	}
	if _, err := RunArgs(store.RunInfo{Kind: "nope"}); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

func TestEvaluationArgsText(t *testing.T) {
	e := result.Evaluation{Config: []space.Value{space.IntValue(1)}, Status: result.OK, Objective: math.NaN(),
		Message: "m", Warnings: "w", Device: "opencl:1", Launch: &result.Launch{Grid: [3]int{4, 5, 6}, Block: [3]int{7, 8, 9}}}
	args, err := EvaluationArgs(&e, 1, strings.ToUpper)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 22 || args[3] != nil || args[10] != "M" || args[19] != "W" || args[21] != "OPENCL:1" {
		t.Errorf("args %v", args)
	}
	if args[13] != int64(4) || args[15] != int64(6) || args[16] != int64(7) || args[18] != int64(9) {
		t.Errorf("launch args %v, want grid 4 5 6 and block 7 8 9 in grid_x..block_z", args[13:19])
	}
	e.Device, e.Launch = "", nil
	if args, err = EvaluationArgs(&e, 1, nil); err != nil || args[21] != nil || args[13] != nil {
		t.Errorf("no device, no launch: args %v, %v; want NULL device and launch", args, err)
	}
	if _, err := EvaluationArgs(&e, 2, nil); err == nil {
		t.Error("a configuration of the wrong width was accepted")
	}
}

func TestStorableText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain ASCII", "plain ASCII"},
		{"naïve é ∑ 😀", "naïve é ∑ 😀"},
		{"a\x00b", "a\uFFFDb"},
		{"\x00\x00", "\uFFFD\uFFFD"},
		{"caf\xe9", "caf\uFFFD"},
		{"\xff\xfe\xfd end", "\uFFFD end"}, // a run of bytes that are not UTF-8 is one U+FFFD
		{"\xe2\x82", "\uFFFD"},             // a sequence cut short
		{"x\xff\x00y", "x\uFFFD\uFFFDy"},
	} {
		got := StorableText(tc.in)
		if got != tc.want {
			t.Errorf("StorableText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if StorableText(got) != got {
			t.Errorf("StorableText(%q) changes its own result %q", tc.in, got)
		}
	}
}
