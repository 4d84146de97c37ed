package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A run tuned on two devices says which device measured what: 'ktune runs' counts each
// device's evaluations (as many as tune's summary says it measured) and names the device
// of the best, and an export gives each configuration the device that measured it.
func TestARunOnTwoDevicesSaysWhichMeasuredWhat(t *testing.T) {
	needBackend(t, "opencl")
	db := filepath.Join(t.TempDir(), "k.db")
	// PoCL reads POCL_DEVICES once per process: two CPU devices need a process of their own
	cmd := exec.Command(os.Args[0], "tune", "../../examples/vector_add/vector_add_opencl.yaml", "--device", "opencl:0,opencl:1",
		"--strategy", "random", "--seed", "2", "--budget", "8", "--no-precompile", "--db", db, "--json")
	cmd.Env = append(os.Environ(), "KTUNE_TEST_AS_MAIN=1", "POCL_DEVICES=pthread pthread")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tune on two devices: %v\n%s", err, errb.String())
	}
	var rep struct {
		Run     int64 `json:"run"`
		Devices []struct {
			Device   string `json:"device"`
			Index    int    `json:"index"`
			Measured int    `json:"measured"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, out)
	}
	measured := map[string]int{}
	for _, d := range rep.Devices {
		if d.Device != fmt.Sprintf("opencl:%d", d.Index) {
			t.Errorf("tune --json names device %d %q, want opencl:%d as the stored evaluations name it", d.Index, d.Device, d.Index)
		}
		measured[d.Device] = d.Measured
	}
	if len(measured) != 2 || measured["opencl:0"]+measured["opencl:1"] != 8 {
		t.Fatalf("tune says the devices measured %v, want 8 on opencl:0 and opencl:1 together", measured)
	}

	out2, errOut, code := ktune(t, "runs", "--db", db, "--json")
	var runs []struct {
		BestDevice string `json:"best_device"`
		Devices    []struct {
			Device      string   `json:"device"`
			Evaluations int      `json:"evaluations"`
			Succeeded   int      `json:"succeeded"`
			Best        *float64 `json:"best_objective"`
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(out2), &runs); code != 0 || err != nil || len(runs) != 1 {
		t.Fatalf("runs --json: exit %d, %v: %s%s", code, err, out2, errOut)
	}
	listed := map[string]int{}
	for _, d := range runs[0].Devices {
		listed[d.Device] = d.Evaluations
		if d.Succeeded != d.Evaluations || d.Best == nil {
			t.Errorf("device %s: %d of %d succeeded, best %v; want all, with a best", d.Device, d.Succeeded, d.Evaluations, d.Best)
		}
	}
	if !maps.Equal(listed, measured) {
		t.Errorf("runs lists the devices' evaluations as %v, tune said %v", listed, measured)
	}
	if _, ok := measured[runs[0].BestDevice]; !ok {
		t.Errorf("best_device %q, want one of %v", runs[0].BestDevice, measured)
	}

	text, _, _ := ktune(t, "runs", "--db", db)
	want := fmt.Sprintf("(opencl:0 %d, opencl:1 %d)", measured["opencl:0"], measured["opencl:1"])
	if first := runs[0].Devices[0].Device; first == "opencl:1" {
		want = fmt.Sprintf("(opencl:1 %d, opencl:0 %d)", measured["opencl:1"], measured["opencl:0"])
	}
	if !strings.Contains(text, want) || !strings.Contains(text, " on "+runs[0].BestDevice) {
		t.Errorf("runs:\n%s\nwant the devices %s and the best's device %s", text, want, runs[0].BestDevice)
	}

	exported, errOut, code := ktune(t, "export", "--run", fmt.Sprint(rep.Run), "--format", "kerneltuner", "--db", db)
	var cache struct {
		Cache map[string]map[string]any `json:"cache"`
	}
	if err := json.Unmarshal([]byte(exported), &cache); code != 0 || err != nil {
		t.Fatalf("export: exit %d, %v: %s", code, err, errOut)
	}
	inExport := map[string]int{}
	for _, e := range cache.Cache {
		d, _ := e["ktune_device"].(string)
		inExport[d]++
	}
	if !maps.Equal(inExport, measured) {
		t.Errorf("the export's entries by ktune_device %v, tune said %v", inExport, measured)
	}
}

// A run on one device lists no devices: its device column is the run's device alone.
func TestARunOnOneDeviceListsNoDevices(t *testing.T) {
	needBackend(t, "c")
	db := filepath.Join(t.TempDir(), "k.db")
	if _, errOut, code := ktune(t, "tune", "../../examples/vector_add/vector_add_c.yaml", "--strategy", "random", "--budget", "2",
		"--no-precompile", "--db", db); code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	out, _, code := ktune(t, "runs", "--db", db, "--json")
	var runs []map[string]any
	if err := json.Unmarshal([]byte(out), &runs); code != 0 || err != nil || len(runs) != 1 {
		t.Fatalf("runs --json: exit %d, %v: %s", code, err, out)
	}
	if _, ok := runs[0]["devices"]; ok || runs[0]["best_device"] != "c:0" {
		t.Errorf("a run on one device: devices %v, best_device %v; want no devices, the best measured on c:0", runs[0]["devices"], runs[0]["best_device"])
	}
}
