package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/spec"
)

func init() {
	register(&command{
		name:    "devices",
		summary: "list the device backends, whether each is available, and their devices",
		usage: `[--json]

Lists every backend ktune knows (OpenCL, CUDA, host C): whether it can be used on this
machine and, if not, why and what to install; and for each device its index (for
'ktune tune --device BACKEND:INDEX'), name, platform, compute units and limits (maximum
block / work-group size, local memory, an OpenCL device's constant memory, global memory and
largest buffer), which tune checks each configuration against. The host C backend names its
C compiler (the driver) and its C++ compiler, or why it has none for C++ kernels.
Each device's peaks, the bounds of efficiency against the peak (seed 003, eq. 2; 'ktune
help tune'), are shown where its backend derives them, with how: CUDA's arithmetic peak
from SMs x lanes per SM (by compute capability) x 2 (FMA) x the SM clock, its memory peak
from 2 (DDR) x the memory clock x the bus width; OpenCL's arithmetic peak of AMD GPUs from
compute units x 64 x 2 x the clock. CUDA's float64 and float16 (half2, tensor cores
excluded) peaks come from the same table's lanes of each precision, as the data sheets
give their ratios to float32 (H100: 1:2 and 2:1). Each figure is shown on a line of its
own with how it was derived. What a backend cannot derive (OpenCL never reports memory
bandwidth, nor a CPU's lanes per compute unit, nor a float64 or float16 rate: it says
whether the device computes in them at all) is said, never guessed: give it to tune,
report and portability with --peak-gflops and --peak-gbs, or per device in a peaks file
(--peaks FILE: 'ktune help portability'); tune stores the peaks it used with the run.
--json has them as peak: gflops (by precision), gbs, how and unknown (every figure's text
in one, separated by "; "), and figures: one per figure, with name (a precision, memory,
or arithmetic for every precision), value and unit, and how it was derived or why it is
unknown.`,
		run: runDevices,
	})
}

type backendReport struct {
	Backend   string        `json:"backend"`
	Languages []string      `json:"languages"`
	Available bool          `json:"available"`
	Reason    string        `json:"reason,omitempty"`
	Devices   []device.Info `json:"devices,omitempty"`
}

func runDevices(ctx context.Context, env *cliEnv, args []string) error {
	c := lookup("devices")
	fs := newFlags(env, c)
	jsonOut := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr(env, c, "no arguments expected, got %s", strings.Join(pos, " "))
	}
	var reports []backendReport
	for _, b := range device.Backends() {
		r := backendReport{Backend: b.Name(), Languages: b.Languages()}
		devs, err := b.Devices()
		if err != nil {
			r.Reason = err.Error()
		} else {
			r.Available, r.Devices = len(devs) > 0, devs
			if len(devs) == 0 {
				r.Reason = "no devices found"
			}
		}
		reports = append(reports, r)
	}
	if *jsonOut {
		return writeJSON(env, reports)
	}
	w := env.stdout
	for _, r := range reports {
		state := "available"
		if !r.Available {
			state = "unavailable: " + r.Reason
		}
		fmt.Fprintf(w, "%s (languages: %v): %s\n", r.Backend, r.Languages, state)
		for _, d := range r.Devices {
			fmt.Fprintf(w, "  %s:%d  %s", r.Backend, d.Index, d.Name)
			if d.Platform != "" {
				fmt.Fprintf(w, " [%s]", d.Platform)
			}
			fmt.Fprintln(w)
			fmt.Fprintf(w, "      type %s, %d compute units", orDash(d.Type), d.ComputeUnits)
			if d.ClockMHz > 0 {
				fmt.Fprintf(w, " at %d MHz", d.ClockMHz)
			}
			fmt.Fprintln(w)
			if d.MaxBlockSize > 0 {
				fmt.Fprintf(w, "      max block size %d (per dimension %d x %d x %d), local memory %s\n",
					d.MaxBlockSize, d.MaxBlockDims[0], d.MaxBlockDims[1], d.MaxBlockDims[2], humanBytes(int(d.LocalMemBytes)))
			}
			if b, err := strconv.ParseInt(d.Extra["max_constant_bytes"], 10, 64); err == nil {
				fmt.Fprintf(w, "      constant memory %s per __constant argument", humanBytes(int(b)))
				if n := d.Extra["max_constant_args"]; n != "" {
					fmt.Fprintf(w, ", at most %s of them", n)
				}
				fmt.Fprintln(w)
			}
			if d.GlobalMemBytes > 0 {
				fmt.Fprintf(w, "      global memory %s, largest buffer %s\n", humanBytes(int(d.GlobalMemBytes)), humanBytes(int(d.MaxAllocBytes)))
			}
			if d.Version != "" || d.Driver != "" {
				fmt.Fprintf(w, "      version %s, driver %s\n", orDash(d.Version), orDash(d.Driver))
			}
			if cxx := d.Extra["cxx_compiler"]; cxx != "" {
				fmt.Fprintf(w, "      C++ compiler %s, version %s\n", cxx, orDash(d.Extra["cxx_version"]))
			} else if why := d.Extra["cxx_unavailable"]; why != "" {
				fmt.Fprintf(w, "      no C++ kernels: %s\n", why)
			}
			if d.RegistersPerBlock > 0 {
				fmt.Fprintf(w, "      %d registers per block", d.RegistersPerBlock)
				for _, k := range []string{"arch", "target", "nvrtc"} {
					if v := d.Extra[k]; v != "" {
						fmt.Fprintf(w, ", %s %s", k, v)
					}
				}
				fmt.Fprintln(w)
			}
			if inc := d.Extra["nvrtc_include"]; inc != "" {
				fmt.Fprintf(w, "      NVRTC includes %s\n", inc)
			} else if d.Extra["nvrtc"] != "" {
				fmt.Fprintln(w, "      NVRTC has no CUDA toolkit include folder (none beside it, under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda or /usr/include): kernels cannot include cuda_fp16.h")
			}
			if why := d.Extra["nvml"]; why != "" {
				fmt.Fprintf(w, "      no power or energy: %s\n", why)
			}
			writePeak(w, d.Peak)
		}
	}
	return nil
}

// writePeak shows the peaks a backend derived for a device, one figure a line with how it
// was derived (the arithmetic peaks by precision, then the memory's), and then the
// figures it could not derive with why, in the backend's order (device.Peak's Figures).
func writePeak(w io.Writer, p *device.Peak) {
	const give = "give them to tune, report and portability (--peak-gflops, --peak-gbs, or a peaks file: --peaks)"
	if p == nil {
		fmt.Fprintln(w, "      peaks: not derived by this backend; "+give)
		return
	}
	var lines []string
	for _, name := range append(slices.Clone(spec.Precisions), device.MemoryFigure) {
		for _, f := range p.Figures {
			if f.Name == name && f.Unknown == "" {
				lines = append(lines, fmt.Sprintf("%-8s %.0f %s: %s", f.Name, f.Value, f.Unit, f.How))
			}
		}
	}
	unknown := false
	for _, f := range p.Figures {
		if f.Unknown != "" {
			lines = append(lines, fmt.Sprintf("%-8s unknown: %s", f.Name, f.Unknown))
			unknown = true
		}
	}
	fmt.Fprintln(w, "      peaks, each as derived:")
	for _, l := range lines {
		fmt.Fprintln(w, "        "+l)
	}
	if unknown {
		fmt.Fprintln(w, "      peaks unknown: "+give)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
