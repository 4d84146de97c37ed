package device

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Derive and Lack keep the figures one by one and the joined How and Unknown texts that
// 'ktune devices --json' had before figures, in the backend's order.
func TestPeakFiguresAndTheirJoinedTexts(t *testing.T) {
	var p Peak
	p.Derive("float32", 1000, "10 SMs x 50 lanes x 2 (FMA) x 1.000 GHz")
	p.Lack("float16", "no 16-bit rate")
	p.Derive(MemoryFigure, 320, "2 (DDR) x 1250 MHz x 1024-bit bus")
	if p.GFLOPS["float32"] != 1000 || p.GBs != 320 || len(p.GFLOPS) != 1 {
		t.Errorf("values %v, %v", p.GFLOPS, p.GBs)
	}
	if want := "float32 10 SMs x 50 lanes x 2 (FMA) x 1.000 GHz; memory 2 (DDR) x 1250 MHz x 1024-bit bus"; p.How != want {
		t.Errorf("How %q, want %q", p.How, want)
	}
	if want := "float16: no 16-bit rate"; p.Unknown != want {
		t.Errorf("Unknown %q, want %q", p.Unknown, want)
	}
	want := []PeakFigure{
		{Name: "float32", Value: 1000, Unit: "GFLOP/s", How: "10 SMs x 50 lanes x 2 (FMA) x 1.000 GHz"},
		{Name: "float16", Unknown: "no 16-bit rate"},
		{Name: "memory", Value: 320, Unit: "GB/s", How: "2 (DDR) x 1250 MHz x 1024-bit bus"},
	}
	if !reflect.DeepEqual(p.Figures, want) {
		t.Errorf("figures %+v, want %+v", p.Figures, want)
	}
	if got := p.HowOf(MemoryFigure); got != "2 (DDR) x 1250 MHz x 1024-bit bus" {
		t.Errorf("HowOf(memory) %q", got)
	}
	if got := p.HowOf("float16"); got != "" {
		t.Errorf("HowOf an unknown figure %q, want none", got)
	}
	// the JSON keeps the joined texts beside the figures, and reads back the same
	b, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	var back Peak
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Errorf("JSON %s reads back as %+v (%v)", b, back, err)
	}
}

// A device stored by a ktune before figures has only the joined texts: HowOf is all of How.
func TestPeakStoredBeforeFiguresSaysHowAsAWhole(t *testing.T) {
	var p Peak
	if err := json.Unmarshal([]byte(`{"gbs": 320, "how": "memory 2 (DDR) x 1250 MHz x 1024-bit bus"}`), &p); err != nil {
		t.Fatal(err)
	}
	if got := p.HowOf(MemoryFigure); got != "memory 2 (DDR) x 1250 MHz x 1024-bit bus" {
		t.Errorf("HowOf(memory) %q", got)
	}
}

// UnknownOf gives one figure's reason alone: its own, the arithmetic one for every
// precision where the backend lacks them all, none for a figure derived or not mentioned,
// and for a device stored before figures, the parts of the joined text that name it.
func TestPeakUnknownOfSaysWhyOneFigureIsUnknown(t *testing.T) {
	var opencl Peak
	opencl.Lack("float32", "no lanes per compute unit")
	opencl.Lack(MemoryFigure, "OpenCL reports no memory bandwidth")
	opencl.Lack("float64", "no rate of it")
	var cuda Peak
	cuda.Lack(ArithmeticFigure, "no SM clock")
	cuda.Derive(MemoryFigure, 320, "2 (DDR) x 1250 MHz x 1024-bit bus")
	var old Peak
	if err := json.Unmarshal([]byte(`{"unknown": "float32: no lanes; memory: no bandwidth; float64: no rate"}`), &old); err != nil {
		t.Fatal(err)
	}
	var oldAll Peak
	if err := json.Unmarshal([]byte(`{"gbs": 320, "unknown": "arithmetic: no SM clock"}`), &oldAll); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		p      *Peak
		figure string
		want   string
	}{
		{"own memory", &opencl, MemoryFigure, "OpenCL reports no memory bandwidth"},
		{"own precision", &opencl, "float32", "no lanes per compute unit"},
		{"another precision", &opencl, "float64", "no rate of it"},
		{"not mentioned", &opencl, "float16", ""},
		{"every precision", &cuda, "float16", "no SM clock"},
		{"derived", &cuda, MemoryFigure, ""},
		{"stored before figures", &old, "float64", "no rate"},
		{"stored before figures, memory", &old, MemoryFigure, "no bandwidth"},
		{"stored before figures, every precision", &oldAll, "float32", "no SM clock"},
		{"stored before figures, memory derived", &oldAll, MemoryFigure, ""},
		{"no peak", nil, MemoryFigure, ""},
	} {
		if got := tc.p.UnknownOf(tc.figure); got != tc.want {
			t.Errorf("%s: UnknownOf(%s) %q, want %q", tc.name, tc.figure, got, tc.want)
		}
	}
}
