package t4_test

import (
	"strings"
	"testing"

	"github.com/ktune/ktune/format/internal/formattest"
)

// validator is the shared test validator; the T4 tests check the schema's subset with it.
type validator = formattest.Validator

func newValidator(schema []byte) (*validator, error) { return formattest.NewValidator(schema) }

func decodeDoc(t *testing.T, data []byte) any {
	t.Helper()
	doc, err := formattest.DecodeJSON(data)
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return doc
}

// The validator itself must reject what the schema forbids, or passing means nothing.
func TestSchemaValidatorRejectsViolations(t *testing.T) {
	v := loadSchema(t)
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"valid", `{"schema_version": "1.0.0", "results": [{"configuration": {}, "times": {}, "invalidity": "correct", "correctness": 1}]}`, ""},
		{"missing required", `{"results": [{"configuration": {}, "times": {}, "invalidity": "correct"}]}`, `lacks required property "correctness"`},
		{"bad enum", `{"results": [{"configuration": {}, "times": {}, "invalidity": "fine", "correctness": 1}]}`, "not in enum"},
		{"bad type", `{"results": [{"configuration": [], "times": {}, "invalidity": "correct", "correctness": 1}]}`, "want type object"},
		{"bad version", `{"schema_version": "one", "results": []}`, "does not match"},
		{"bad measurement value", `{"results": [{"configuration": {}, "times": {}, "invalidity": "correct", "correctness": 1, "measurements": [{"name": "time", "value": true}]}]}`, "results[0].measurements[0].value"},
		{"bad timing", `{"results": [{"configuration": {}, "times": {"framework": "x"}, "invalidity": "correct", "correctness": 1}]}`, "times.framework"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := v.Validate(decodeDoc(t, []byte(tt.doc)))
			got := strings.Join(errs, "\n")
			if (tt.want == "") != (len(errs) == 0) || !strings.Contains(got, tt.want) {
				t.Errorf("violations %q, want one containing %q", got, tt.want)
			}
		})
	}
}
