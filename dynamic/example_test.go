package dynamic_test

import (
	"context"
	"fmt"
	"log"

	_ "github.com/ktune/ktune/device/opencl" // or device/all: every backend
	"github.com/ktune/ktune/dynamic"
	"github.com/ktune/ktune/spec"
)

// An application adds vectors in a loop, calling the kernel through a dynamic tuner
// instead of running it itself: the first calls try configurations on its own data, the
// rest run the best of them. Every call's c is a + b, whichever configuration computed it.
// (It runs on the machine's OpenCL device; PoCL runs it on the CPU.)
func Example() {
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tu, err := dynamic.New(ctx, s, dynamic.Options{Backend: "opencl", Budget: 8, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer tu.Close()

	const n = 1000000 // the spec's N: its arrays' length
	a, b := make([]float32, n), make([]float32, n)
	correct, tuningCalls := 0, 0
	for step := range 12 {
		for i := range a { // the application's data of this step
			a[i], b[i] = float32(i%1000+step), float32(step)
		}
		res, err := tu.Run(ctx, dynamic.Data{"a": a, "b": b})
		if err != nil {
			log.Fatal(err)
		}
		c, err := res.Float32s("c")
		if err != nil {
			log.Fatal(err)
		}
		ok := true
		for i := range c {
			ok = ok && c[i] == a[i]+b[i]
		}
		if ok {
			correct++
		}
		if res.Tuning {
			tuningCalls++
		}
	}
	sum := tu.Summary()
	fmt.Printf("%d of 12 calls correct; %d tuning steps and the baseline, then the best (%s)\n", correct, tuningCalls, sum.Stop)
	// Output:
	// 12 of 12 calls correct; 7 tuning steps and the baseline, then the best (budget)
}

// An application whose input changes size from call to call (seed 003's 3D Fourier
// reconstruction, here vector additions of three lengths) names each call's size: the
// spec's constant N. The tuner keeps a search per size, each with its own budget, and
// each size's later calls run that size's best.
func Example_sizes() {
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tu, err := dynamic.New(ctx, s, dynamic.Options{Backend: "opencl", Budget: 4, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer tu.Close()

	correct := 0
	for step := range 12 {
		n := []int{100000, 400000, 1000000}[step%3] // this step's input size
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i%1000+step), float32(step)
		}
		res, err := tu.RunSized(ctx, dynamic.Sizes{"N": float64(n)}, dynamic.Data{"a": a, "b": b})
		if err != nil {
			log.Fatal(err)
		}
		c, err := res.Float32s("c")
		if err != nil {
			log.Fatal(err)
		}
		ok := len(c) == n
		for i := range c {
			ok = ok && c[i] == a[i]+b[i]
		}
		if ok {
			correct++
		}
	}
	fmt.Printf("%d of 12 calls correct\n", correct)
	for _, sr := range tu.Searches() { // the most recently called first
		name := sr.Sizes.String()
		if name == "" {
			name = "the spec's own N"
		}
		fmt.Printf("%s: %d evaluations (%s)\n", name, sr.Summary.Evaluations, sr.Summary.Stop)
	}
	// Output:
	// 12 of 12 calls correct
	// the spec's own N: 4 evaluations (budget)
	// N=400000: 4 evaluations (budget)
	// N=100000: 4 evaluations (budget)
}

// An application whose calls may differ in ways the tuning calls did not show asks for
// checks after tuning: here every fourth call after tuning also runs the reference
// configuration on the call's data and compares (Options.CheckEvery). A tuned
// configuration found wrong would be reported in Result.CheckErrors and
// Searches()[i].Failed, and replaced by the next best; vector_add is right in every
// configuration, so none is.
func Example_checkAfterTuning() {
	s, err := spec.Load("../examples/vector_add/vector_add_opencl.yaml")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	tu, err := dynamic.New(ctx, s, dynamic.Options{Backend: "opencl", Budget: 4, Seed: 1, CheckEvery: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer tu.Close()

	const n = 1000000
	a, b := make([]float32, n), make([]float32, n)
	correct := 0
	for step := range 12 {
		for i := range a {
			a[i], b[i] = float32(i%1000+step), float32(step)
		}
		res, err := tu.Run(ctx, dynamic.Data{"a": a, "b": b})
		if err != nil {
			log.Fatal(err)
		}
		for _, ce := range res.CheckErrors {
			fmt.Println(ce) // the call, the configuration, the output that differed
		}
		c, err := res.Float32s("c")
		if err != nil {
			log.Fatal(err)
		}
		ok := true
		for i := range c {
			ok = ok && c[i] == a[i]+b[i]
		}
		if ok {
			correct++
		}
	}
	fmt.Printf("%d of 12 calls correct; %d configurations found wrong after tuning\n", correct, len(tu.Searches()[0].Failed))
	// Output:
	// 12 of 12 calls correct; 0 configurations found wrong after tuning
}
