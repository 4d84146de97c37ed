package efficiency

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
	"github.com/ktune/ktune/store"
)

// File is a peaks file: the peaks of several devices, so that runs measured on different
// devices are each measured against their own (the command-line peaks are one set for
// every run). It is YAML, or JSON, a mapping from a device to its peaks:
//
//	"NVIDIA A100-SXM4-80GB": {gbs: 2039, gflops: {float32: 19500, float64: 9700}}
//	"opencl:1": {gbs: 25.6, gflops: {float32: 150}}
//
// A device is named as the results database stores it (exactly, as 'ktune runs' lists
// it), or as backend:index (as --device names it), which tells apart devices of one name.
type File struct {
	Path    string                 // where the file was read from, for errors
	Devices map[string]DevicePeaks // by the device as the file names it
}

// DevicePeaks are one device's peaks in a peaks file.
type DevicePeaks struct {
	GBs    float64            `yaml:"gbs" json:"gbs,omitempty"`       // memory bandwidth in GB/s; 0: not given
	GFLOPS map[string]float64 `yaml:"gflops" json:"gflops,omitempty"` // arithmetic peak in GFLOP/s by precision
}

// Device is what a peaks file knows a device by.
type Device struct {
	Name    string // as the platform reports it and the store keeps it
	Backend string // "opencl", "cuda", "c"; "" when unknown
	Index   int    // the backend's device index; -1 when unknown (an import)
}

// Key is the device as backend:index ("opencl:1"); "" when either is unknown.
func (d Device) Key() string {
	if d.Backend == "" || d.Index < 0 {
		return ""
	}
	return d.Backend + ":" + strconv.Itoa(d.Index)
}

func (d Device) String() string {
	if k := d.Key(); k != "" {
		return fmt.Sprintf("%q (%s)", d.Name, k)
	}
	return strconv.Quote(d.Name)
}

// DeviceOf is the device info as a peaks file knows it.
func DeviceOf(info device.Info) Device {
	return Device{Name: info.Name, Backend: info.Backend, Index: info.Index}
}

// DeviceOfRun is the device a stored run was measured on, as a peaks file knows it: its
// name as the store keeps it, and the index the run's settings keep ('ktune tune' stores
// "device_index"; the store keeps one record for devices of one name, so its
// properties' index is whichever stored it last). The index is -1 for a run without one
// (an import).
func DeviceOfRun(ctx context.Context, st store.Store, info store.RunInfo) (Device, error) {
	d, err := st.Device(ctx, info.DeviceID)
	if err != nil {
		return Device{}, fmt.Errorf("the device of run %d: %w", info.ID, err)
	}
	out := Device{Name: d.Name, Backend: d.Backend, Index: -1}
	var settings struct {
		Index *int `json:"device_index"`
	}
	if len(info.Settings) > 0 && json.Unmarshal(info.Settings, &settings) == nil && settings.Index != nil {
		out.Index = *settings.Index
	}
	return out, nil
}

// ReadFile reads and checks a peaks file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("peaks file: %w", err)
	}
	return ParseFile(path, b)
}

// ParseFile checks and reads the peaks file path whose content is b (YAML or JSON).
func ParseFile(path string, b []byte) (*File, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	devs := map[string]DevicePeaks{}
	if err := dec.Decode(&devs); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("peaks file %s: %w (want a mapping from a device's name, or backend:index, to its peaks: gbs: GB/s, gflops: {float32: GFLOP/s, float64: ..., float16: ...})", path, err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("peaks file %s names no device; want a mapping from a device's name, or backend:index, to its peaks: gbs: GB/s, gflops: {float32: GFLOP/s, float64: ..., float16: ...}", path)
	}
	for name, p := range devs {
		if strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("peaks file %s: a device with an empty name", path)
		}
		if p.GBs == 0 && len(p.GFLOPS) == 0 {
			return nil, fmt.Errorf("peaks file %s: device %q gives no peak (gbs, gflops)", path, name)
		}
		if p.GBs != 0 && !positive(p.GBs) {
			return nil, fmt.Errorf("peaks file %s: device %q: gbs %v is not a positive number of GB/s", path, name, p.GBs)
		}
		for prec, v := range p.GFLOPS {
			if !slices.Contains(spec.Precisions, prec) {
				return nil, fmt.Errorf("peaks file %s: device %q: gflops of %q: want a precision of %s", path, name, prec, strings.Join(spec.Precisions, ", "))
			}
			if !positive(v) {
				return nil, fmt.Errorf("peaks file %s: device %q: gflops %s %v is not a positive number of GFLOP/s", path, name, prec, v)
			}
		}
	}
	return &File{Path: path, Devices: devs}, nil
}

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// Lookup finds the file's entry for d: by backend:index, else by its name exactly (a
// backend:index is the more specific where both are there). ok is false where there is
// none.
func (f *File) Lookup(d Device) (key string, p DevicePeaks, ok bool) {
	if k := d.Key(); k != "" {
		if p, ok := f.Devices[k]; ok {
			return k, p, true
		}
	}
	if p, ok := f.Devices[d.Name]; ok {
		return d.Name, p, true
	}
	return "", DevicePeaks{}, false
}

// Given is the peaks the file gives d in precision, under flags: a peak flags give wins.
// A nil file gives flags. The file's peaks say where they came from (Given.GFLOPSSource,
// Given.GBsSource: the file and its entry).
func (f *File) Given(d Device, precision string, flags Given) Given {
	if f == nil {
		return flags
	}
	key, p, ok := f.Lookup(d)
	if !ok {
		return flags
	}
	from := Source{From: FromFile, File: f.Path, Device: key}
	return flags.Or(Given{GFLOPS: p.GFLOPS[precision], GBs: p.GBs, GFLOPSSource: from, GBsSource: from})
}

// For is Given for a device the file must name (the one device of a tune or a report);
// its error names the file, its devices and d.
func (f *File) For(d Device, precision string, flags Given) (Given, error) {
	if f == nil {
		return flags, nil
	}
	if _, _, ok := f.Lookup(d); !ok {
		return Given{}, fmt.Errorf("peaks file %s names no device %s (it names %s); add the device by that name, or as backend:index", f.Path, d, f.names())
	}
	return f.Given(d, precision, flags), nil
}

// Check says which of the file's devices are none of devs (the devices of the runs it is
// used for): a name mistyped would otherwise be silently unused.
func (f *File) Check(devs []Device) error {
	if f == nil {
		return nil
	}
	var unknown []string
	for name := range f.Devices {
		used := false
		for _, d := range devs {
			if k, _, ok := f.Lookup(d); ok && k == name {
				used = true
			}
		}
		if !used {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	var have []string
	for _, d := range devs {
		if s := d.String(); !slices.Contains(have, s) {
			have = append(have, s)
		}
	}
	return fmt.Errorf("peaks file %s names %s, which is no device of the runs; their devices are %s (name one exactly as stored, or as backend:index)", f.Path, strings.Join(unknown, ", "), strings.Join(have, ", "))
}

func (f *File) names() string {
	var out []string
	for k := range f.Devices {
		out = append(out, strconv.Quote(k))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
