package ktt

import "github.com/ktune/ktune/format/internal/jsonio"

// The members of rawResult and of what it holds, as their json tags name them, in the
// order their scanners take their fields.
var (
	resultFields = jsonio.NewFields("KernelName", "Status", "Configuration", "ComputationResults",
		"DataMovementOverhead", "ValidationOverhead", "SearcherOverhead", "ProfilingRunsOverhead", "ProfilingOverhead",
		"ExtraDuration", "TotalDuration", "TotalOverhead", "Timestamp")
	pairFields        = jsonio.NewFields("Name", "Value", "ValueType")
	computationFields = jsonio.NewFields("KernelFunction", "Duration", "Overhead", "CompilationOverhead", "CompilationData",
		"ProfilingData", "PowerUsage", "EnergyConsumption", "GlobalSize", "LocalSize")
	profilingFields = jsonio.NewFields("Counters")
	counterFields   = jsonio.NewFields("Name", "Type", "Value")
)

// scanResult decodes a result into the zero *r as encoding/json decodes one, or gives up
// (on what it does not mimic: then encoding/json decodes it). The results are most of a
// file, and encoding/json's garbage, several times their size, let the heap grow to twice
// what reading holds.
func scanResult(s *jsonio.Scanner, r *rawResult) {
	s.Members(resultFields, &r.KernelName, &r.Status,
		func() { r.Configuration = jsonio.Slice(s, scanPair) },
		func() { r.ComputationResults = jsonio.Slice(s, scanComputation) },
		&r.DataMovementOverhead, &r.ValidationOverhead, &r.SearcherOverhead, &r.ProfilingRunsOverhead, &r.ProfilingOverhead,
		&r.ExtraDuration, &r.TotalDuration, &r.TotalOverhead, &r.Timestamp)
}

func scanPair(s *jsonio.Scanner, p *pair) {
	s.Members(pairFields, &p.Name, &p.Value, &p.ValueType)
}

// scanComputation decodes a computation result.
func scanComputation(s *jsonio.Scanner, c *computation) {
	s.Members(computationFields, &c.KernelFunction, &c.Duration, &c.Overhead, &c.CompilationOverhead, &c.CompilationData,
		func() {
			if s.Null() {
				c.ProfilingData = nil
				return
			}
			c.ProfilingData = &struct {
				Counters []counter `json:"Counters"`
			}{}
			pd := c.ProfilingData
			s.Members(profilingFields, func() { pd.Counters = jsonio.Slice(s, scanCounter) })
		},
		&c.PowerUsage, &c.EnergyConsumption, &c.GlobalSize, &c.LocalSize)
}

func scanCounter(s *jsonio.Scanner, c *counter) {
	s.Members(counterFields, &c.Name, &c.Type, &c.Value)
}
