package t4

import "github.com/ktune/ktune/format/internal/jsonio"

// The members of rawResult and measurement, as their json tags name them, in the order
// their scanners take their fields.
var (
	resultFields      = jsonio.NewFields("timestamp", "configuration", "times", "invalidity", "correctness", "measurements", "objectives", fieldMessage, fieldStatus, fieldDevice, jsonio.FieldRunsPerSample, jsonio.FieldLaunch)
	measurementFields = jsonio.NewFields("name", "value", "unit")
)

// scanResult decodes a result into the zero *r as encoding/json decodes one, or gives up
// (on what it does not mimic: then encoding/json decodes it). The results are most of a
// file, and encoding/json's garbage, ten times their size, let the heap grow to twice
// what reading holds.
func scanResult(s *jsonio.Scanner, r *rawResult) {
	s.Members(resultFields, &r.Timestamp, &r.Configuration, &r.Times, &r.Invalidity, &r.Correctness,
		func() { r.Measurements = jsonio.Slice(s, scanMeasurement) },
		&r.Objectives, &r.Message, &r.Status, &r.Device, &r.RunsPerSample, &r.Launch)
}

func scanMeasurement(s *jsonio.Scanner, m *measurement) {
	s.Members(measurementFields, &m.Name, &m.Value, &m.Unit)
}
