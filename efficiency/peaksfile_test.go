package efficiency

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktune/ktune/device"
)

func TestPeaksFileGivesEachDeviceItsOwn(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "peaks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pthread := "cpu-haswell-Intel(R) Xeon(R)"
	for _, tc := range []struct {
		name      string
		dev       Device
		precision string
		flags     Given
		want      Given
	}{
		{"by backend:index", Device{pthread, "opencl", 1}, "float64", Given{}, Given{GFLOPS: 150, GBs: 40}},
		{"the other index", Device{pthread, "opencl", 0}, "float32", Given{}, Given{GFLOPS: 100, GBs: 20}},
		{"precision absent", Device{pthread, "opencl", 0}, "float64", Given{}, Given{GBs: 20}},
		{"by name", Device{"NVIDIA H100 80GB HBM3", "cuda", 3}, "float64", Given{}, Given{GFLOPS: 33500, GBs: 3350}},
		{"an import by name, index unknown", Device{"NVIDIA H100 80GB HBM3", "", -1}, "float32", Given{}, Given{GFLOPS: 66900, GBs: 3350}},
		{"a flag wins", Device{pthread, "opencl", 1}, "float32", Given{GBs: 7}, Given{GFLOPS: 300, GBs: 7}},
		{"absent device: the flags", Device{"other", "opencl", 2}, "float32", Given{GFLOPS: 5}, Given{GFLOPS: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := f.Given(tc.dev, tc.precision, tc.flags)
			if g.GFLOPS != tc.want.GFLOPS || g.GBs != tc.want.GBs {
				t.Errorf("Given = %+v, want GFLOPS %v GBs %v", g, tc.want.GFLOPS, tc.want.GBs)
			}
			p := Resolve(&device.Peak{GFLOPS: map[string]float64{"float32": 1}, GBs: 1, How: "derived"}, tc.precision, g)
			if tc.want.GBs > 0 && tc.flags.GBs == 0 && !strings.Contains(p.GBsFrom, "peaks.yaml") {
				t.Errorf("GBsFrom %q does not name the peaks file", p.GBsFrom)
			}
			if tc.flags.GBs > 0 && p.GBsFrom != "given" {
				t.Errorf("GBsFrom %q, want given (the flag)", p.GBsFrom)
			}
		})
	}
}

func TestPeaksFileUnknownDevicesAreErrors(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "peaks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	runs := []Device{{"pthread-cpu", "opencl", 0}, {"pthread-cpu", "opencl", 1}}
	err = f.Check(runs)
	if err == nil || !strings.Contains(err.Error(), `"NVIDIA H100 80GB HBM3", which is no device of the runs`) ||
		!strings.Contains(err.Error(), `"pthread-cpu" (opencl:0), "pthread-cpu" (opencl:1)`) || !strings.Contains(err.Error(), "peaks.yaml") {
		t.Errorf("Check = %v, want the unknown device, the file and the runs' devices named", err)
	}
	if err := f.Check(append(runs, Device{"NVIDIA H100 80GB HBM3", "cuda", 0})); err != nil {
		t.Errorf("Check with every device = %v", err)
	}
	if _, err := f.For(Device{"gfx90a", "opencl", 2}, "float32", Given{}); err == nil || !strings.Contains(err.Error(), `names no device "gfx90a" (opencl:2)`) {
		t.Errorf("For an absent device = %v", err)
	}
}

func TestPeaksFileRejectsWhatIsNoPeak(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "names no device"},
		{"unknown field", `"a": {gbs: 1, tflops: 3}`, "tflops"},
		{"unknown precision", `"a": {gflops: {fp32: 3}}`, `want a precision of float32, float64, float16`},
		{"negative", `"a": {gbs: -1}`, "not a positive number"},
		{"no peak", `"a": {}`, "gives no peak"},
		{"not a mapping", `[1, 2]`, "want a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile("p.yaml", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.yaml") {
				t.Errorf("ParseFile(%q) = %v, want an error naming p.yaml and saying %q", tc.text, err, tc.want)
			}
		})
	}
	f, err := ParseFile("p.json", []byte(`{"opencl:0": {"gbs": 12.5, "gflops": {"float16": 80}}}`))
	if err != nil || f.Devices["opencl:0"].GBs != 12.5 || f.Devices["opencl:0"].GFLOPS["float16"] != 80 {
		t.Errorf("JSON peaks file: %+v, %v", f, err)
	}
}
