package report

import (
	"encoding/json"
	"testing"
)

// A run's settings read as text: nested fingerprints as their members, no JSON braces,
// quotes or underscores.
func TestSettingsTextReadsAsText(t *testing.T) {
	raw := json.RawMessage(`{"backend":"opencl","budget":6,"device_index":0,"inputs":{"kernel source":"812ff477","spec a.yaml":"4e08f48b"},"restrictions":["a < b","c"]}`)
	want := "backend: opencl, budget: 6, device index: 0, inputs: (kernel source 812ff477; spec a.yaml 4e08f48b), restrictions: a < b, c"
	if got := settingsText(raw); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
