package format_test

import (
	"bytes"
	"fmt"

	"github.com/ktune/ktune/format"
	_ "github.com/ktune/ktune/format/all" // registers the Kernel Tuner, KTT and T4 readers and writers
)

// Convert a Kernel Tuner cache to the T4 results format and to KTT's output: Open detects
// the format a file is in, each format's Write writes a recording in its own, and Losses
// says what a format has no place for.
func Example_convert() {
	rec, err := format.Open("../testdata/kernel_tuner/vector_add_A4000.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	best, _ := rec.Best()
	fmt.Printf("%s: %s on %s, %d evaluations, best %v at %.4f ms\n", rec.Format, rec.Kernel, rec.Device, len(rec.Evaluations), best.Config, best.Objective)
	for _, name := range []string{"t4", "ktt"} {
		f, _ := format.Lookup(name)
		var b bytes.Buffer // or a file
		if err := f.Write(&b, rec); err != nil {
			fmt.Println(err)
			return
		}
		var lost []string
		if f.Losses != nil {
			lost = f.Losses(rec)
		}
		back, err := format.Read(&b, "vector_add."+name+".json")
		if err != nil {
			fmt.Println(err)
			return
		}
		best, _ := back.Best()
		fmt.Printf("%s: %d evaluations, best %v at %.4f ms; left out %q\n", back.Format, len(back.Evaluations), best.Config, best.Objective, lost)
	}
	// Output:
	// kerneltuner: vector_add on NVIDIA RTX A4000, 15 evaluations, best [768] at 0.0318 ms
	// t4: 15 evaluations, best [768] at 0.0318 ms; left out []
	// ktt: 15 evaluations, best [768] at 0.0318 ms; left out ["the problem size 100" "the timing samples of 15 configurations"]
}
