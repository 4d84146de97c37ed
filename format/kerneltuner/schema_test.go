package kerneltuner_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
)

// loadCacheSchema reads Kernel Tuner's cache schema 1.0.0 (testdata/README.md).
func loadCacheSchema(t *testing.T) *formattest.Validator {
	t.Helper()
	data, err := os.ReadFile("testdata/cache-schema-1.0.0.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := formattest.NewValidator(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// violations validates a document against the cache schema.
func violations(t *testing.T, v *formattest.Validator, data []byte) []string {
	t.Helper()
	doc, err := formattest.DecodeJSON(data)
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v.Validate(doc)
}

// The validator must reject what the cache schema forbids, or passing means nothing.
func TestSchemaValidatorRejectsCacheViolations(t *testing.T) {
	v := loadCacheSchema(t)
	const head = `"schema_version": "1.0.0", "device_name": "d", "kernel_name": "k", "tune_params_keys": ["a"], "tune_params": {"a": [1]}, "objective": "time"`
	const timings = `"compile_time": 1, "verification_time": 0, "benchmark_time": 2, "framework_time": 0.5`
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"valid", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": 1.5, ` + timings + `, "strategy_time": 0, "timestamp": "2023-12-22T13:17:23.719843+00:00"}}}`, ""},
		{"no strategy time", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": 1.5, ` + timings + `, "timestamp": "2023-12-22T13:17:23+00:00"}}}`,
			`$.cache.1: lacks required property "strategy_time"`},
		{"str(datetime)", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": 1.5, ` + timings + `, "strategy_time": 0, "timestamp": "2023-12-22 13:17:23+00:00"}}}`,
			"not an RFC 3339 date-time"},
		{"float key", `{` + head + `, "problem_size": [4], "cache": {"1.5": {"time": 1.5}}}`, `"1.5" does not match`},
		{"no problem size", `{` + head + `, "cache": {}}`, `lacks required property "problem_size"`},
		{"named problem size", `{` + head + `, "problem_size": "num_blocks", "cache": {}}`, "$.problem_size: is string, want type array"},
		{"time of another type", `{` + head + `, "problem_size": [4], "cache": {"1": {"time": [1], ` + timings + `, "strategy_time": 0, "timestamp": "2023-12-22T13:17:23+00:00"}}}`,
			"$.cache.1.time: anyOf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := violations(t, v, []byte(tt.doc))
			got := strings.Join(errs, "\n")
			if (tt.want == "") != (len(errs) == 0) || !strings.Contains(got, tt.want) {
				t.Errorf("violations %q, want one containing %q", got, tt.want)
			}
		})
	}
}
