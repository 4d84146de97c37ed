package t4

import "github.com/ktune/ktune/format/internal/jsonio"

// The members of rawResult and measurement, as their json tags name them.
var (
	resultFields      = jsonio.NewFields("timestamp", "configuration", "times", "invalidity", "correctness", "measurements", "objectives", fieldMessage, fieldStatus, fieldDevice, jsonio.FieldRunsPerSample, jsonio.FieldLaunch)
	measurementFields = jsonio.NewFields("name", "value", "unit")
)

// scanResult decodes a result into the zero *r as encoding/json decodes one, or gives up
// (on what it does not mimic: then encoding/json decodes it). The results are most of a
// file, and encoding/json's garbage, ten times their size, let the heap grow to twice
// what reading holds.
func scanResult(s *jsonio.Scanner, r *rawResult) {
	s.Struct(resultFields, func(field int) {
		switch field {
		case 0:
			r.Timestamp = s.Any()
		case 1:
			r.Configuration = s.ObjectPtr()
		case 2:
			r.Times = s.ObjectPtr()
		case 3:
			r.Invalidity = s.Any()
		case 4:
			r.Correctness = s.Any()
		case 5:
			r.Measurements = jsonio.Slice(s, func(m *measurement) {
				s.Struct(measurementFields, func(field int) {
					switch field {
					case 0:
						s.Text(&m.Name)
					case 1:
						m.Value = s.Any()
					case 2:
						s.Text(&m.Unit)
					}
				})
			})
		case 6:
			r.Objectives = jsonio.Slice(s, func(x *any) { *x = s.Any() })
		case 7:
			r.Message = s.Any()
		case 8:
			r.Status = s.Any()
		case 9:
			r.Device = s.Any()
		case 10:
			r.RunsPerSample = s.Any()
		case 11:
			r.Launch = s.Any()
		}
	})
}
