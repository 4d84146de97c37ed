package tuning_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/result"
	"github.com/ktune/ktune/space"
	"github.com/ktune/ktune/strategy"
	"github.com/ktune/ktune/tuning"
)

// An application that runs its kernel itself tunes it step by step: it asks the session
// for a configuration, runs the kernel with it, and tells the session what it measured.
// Here the measurement is a formula standing in for a kernel's time in milliseconds.
func ExampleSession_Ask() {
	ints := func(vs ...int64) []space.Value {
		out := make([]space.Value, len(vs))
		for i, v := range vs {
			out[i] = space.IntValue(v)
		}
		return out
	}
	sp, err := expr.NewSpace([]space.Param{
		{Name: "block_size_x", Values: ints(32, 64, 128, 256, 512, 1024)},
		{Name: "tile_size_x", Values: ints(1, 2, 4, 8)},
	}, []string{"block_size_x * tile_size_x <= 2048"})
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := strategy.New("auto", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := tuning.New(sp, st, nil, tuning.Options{Budget: 12, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	for {
		c, err := s.Ask(ctx)
		if errors.Is(err, tuning.ErrDone) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		v := sp.Values(c) // the parameters' values (a Config holds their indices)
		block, tile := v[0].Float(), v[1].Float()
		ms := 1 + (block-256)*(block-256)/1e5 + (tile-4)*(tile-4)/10 // the kernel's time
		if err := s.Tell(c, result.Evaluation{Status: result.OK, Objective: ms}); err != nil {
			fmt.Println(err)
			return
		}
	}
	sum := s.Summary()
	fmt.Printf("%d of %d configurations evaluated; best %s at %.2f ms\n", sum.Distinct, sp.Len(), sp.Format(sum.Best), sum.BestObjective)
	// Output:
	// 12 of 21 configurations evaluated; best block_size_x=256, tile_size_x=4 at 1.00 ms
}
