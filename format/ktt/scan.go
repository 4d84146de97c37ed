package ktt

import "github.com/ktune/ktune/format/internal/jsonio"

// The members of rawResult and of what it holds, as their json tags name them.
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
	s.Struct(resultFields, func(field int) {
		switch field {
		case 0:
			s.Text(&r.KernelName)
		case 1:
			s.Text(&r.Status)
		case 2:
			r.Configuration = jsonio.Slice(s, func(p *pair) {
				s.Struct(pairFields, func(field int) {
					switch field {
					case 0:
						s.Text(&p.Name)
					case 1:
						p.Value = s.Any()
					case 2:
						s.Text(&p.ValueType)
					}
				})
			})
		case 3:
			r.ComputationResults = jsonio.Slice(s, scanComputation(s))
		case 4:
			s.Float(&r.DataMovementOverhead)
		case 5:
			s.Float(&r.ValidationOverhead)
		case 6:
			s.Float(&r.SearcherOverhead)
		case 7:
			s.Float(&r.ProfilingRunsOverhead)
		case 8:
			s.Float(&r.ProfilingOverhead)
		case 9:
			s.Float(&r.ExtraDuration)
		case 10:
			r.TotalDuration = s.FloatPtr()
		case 11:
			r.TotalOverhead = s.FloatPtr()
		case 12:
			s.Text(&r.Timestamp)
		}
	})
}

// scanComputation returns the decoder of a computation result.
func scanComputation(s *jsonio.Scanner) func(*computation) {
	return func(c *computation) {
		s.Struct(computationFields, func(field int) {
			switch field {
			case 0:
				s.Text(&c.KernelFunction)
			case 1:
				c.Duration = s.FloatPtr()
			case 2:
				s.Float(&c.Overhead)
			case 3:
				c.CompilationOverhead = s.FloatPtr()
			case 4:
				c.CompilationData = s.ObjectPtr()
			case 5:
				if s.Null() {
					c.ProfilingData = nil
					return
				}
				c.ProfilingData = &struct {
					Counters []counter `json:"Counters"`
				}{}
				pd := c.ProfilingData
				s.Struct(profilingFields, func(int) {
					pd.Counters = jsonio.Slice(s, func(ctr *counter) {
						s.Struct(counterFields, func(field int) {
							switch field {
							case 0:
								s.Text(&ctr.Name)
							case 1:
								s.Text(&ctr.Type)
							case 2:
								ctr.Value = s.Any()
							}
						})
					})
				})
			case 6:
				c.PowerUsage = s.FloatPtr()
			case 7:
				c.EnergyConsumption = s.FloatPtr()
			case 8:
				c.GlobalSize = s.Any()
			case 9:
				c.LocalSize = s.Any()
			}
		})
	}
}
