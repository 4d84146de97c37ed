package tuner

import (
	"encoding/json"
	"strings"

	"github.com/ktune/ktune/space"
)

// Report sums up a tuning run, all its evaluations included (those measured before a
// resumption too): what 'ktune tune' prints, and its --json form.
type Report struct {
	Run               int64              `json:"run"`
	Database          string             `json:"database"`
	Kernel            string             `json:"kernel"`
	Backend           string             `json:"backend"`
	Device            string             `json:"device"`
	Strategy          string             `json:"strategy"`
	StrategyOptions   map[string]any     `json:"strategy_options,omitempty"` // as given and from --defaults
	Seed              uint64             `json:"seed"`
	Objective         string             `json:"objective"`
	Maximize          bool               `json:"maximize"`
	SpaceSize         int                `json:"space_size"`
	Evaluations       int                `json:"evaluations"`
	Resumed           int                `json:"resumed_from_store"` // evaluations the run had before this command
	Measured          int                `json:"measured"`           // evaluations this command measured
	Statuses          map[string]int     `json:"statuses"`
	Failures          []FailureSummary   `json:"failures,omitempty"`
	Best              Config             `json:"best_configuration,omitzero"`
	BestObjective     *float64           `json:"best_objective,omitempty"`
	BestMetrics       map[string]float64 `json:"best_metrics,omitempty"`
	BestTimeMS        *float64           `json:"best_time_ms,omitempty"` // the best configuration's kernel time, whatever the objective
	Verified          bool               `json:"verified"`               // whether the configurations' outputs were checked against the spec's verification
	MedianObjective   *float64           `json:"median_objective,omitempty"`
	SpeedupOverMed    *float64           `json:"speedup_over_median,omitempty"`
	DefaultObjective  *float64           `json:"default_objective,omitempty"`
	DefaultStatus     string             `json:"default_status,omitempty"` // the default configuration's status when it failed
	SpeedupOverDef    *float64           `json:"speedup_over_default,omitempty"`
	Stop              string             `json:"stop"`
	WallSeconds       float64            `json:"wall_seconds"`
	WorkerRestarts    int                `json:"worker_restarts"`
	MeanCompileMS     float64            `json:"mean_compile_ms"`   // over evaluations measured in this session
	MeanVerifyMS      float64            `json:"mean_verify_ms"`    // likewise
	MeanFrameworkMS   float64            `json:"mean_framework_ms"` // time outside compiling, verifying and running kernels, worker start-up included
	MedianFrameworkMS float64            `json:"median_framework_ms"`
	KernelMS          float64            `json:"kernel_ms"` // total time spent running kernels (warm-up excluded)
	// MetricOrder is the spec's metrics in its order, which BestMetrics (a map) loses and
	// a summary keeps.
	MetricOrder []string `json:"-"`
}

// FailureSummary is what the configurations of one failing status said: the message most
// of them gave, with how many gave it and one of them.
type FailureSummary struct {
	Status  string `json:"status"`
	Count   int    `json:"count"`   // configurations with the status
	Same    int    `json:"same"`    // of those, how many gave Message
	Message string `json:"message"` // the most common message (cut at 2000 bytes)
	Example Config `json:"example"` // a configuration that gave it
}

// Config is a configuration by its parameters' names, in the space's parameter order; its
// JSON form is an object in that order (a map would sort the names).
type Config struct {
	Names  []string
	Values []space.Value
}

// IsZero reports whether c holds no configuration (omitzero leaves it out of JSON).
func (c Config) IsZero() bool { return c.Values == nil }

// String is c as name=value pairs separated by commas, as space.Space.Format writes it.
func (c Config) String() string {
	var b strings.Builder
	for i, name := range c.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(c.Values[i].String())
	}
	return b.String()
}

// MarshalJSON writes c as an object of its names and values, in their order.
func (c Config) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, name := range c.Names {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(c.Values[i])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
