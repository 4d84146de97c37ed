package t4_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ktune/ktune/format/t4"
	"github.com/ktune/ktune/result"
)

// written decodes what Write wrote.
func written(t *testing.T, rec *result.Recording) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := t4.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return doc
}

func TestWriteGivesTheProblemSizeAsAnArrayOfIntegers(t *testing.T) {
	for in, want := range map[string]string{"128,128": "[128,128]", "400000": "[400000]", "[1,2]": "[1,2]", "N*M": `"N*M"`} {
		rec := handMade()
		rec.ProblemSize = in
		meta, _ := written(t, rec)["metadata"].(map[string]any)
		got, _ := json.Marshal(meta["problem_size"])
		if string(got) != want {
			t.Errorf("problem size %q written as %s, want %s", in, got, want)
		}
	}
}
