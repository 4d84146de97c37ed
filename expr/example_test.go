package expr_test

import (
	"fmt"

	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// The space of a kernel's tunable parameters under its restrictions (Python-like
// expressions, as Kernel Tuner writes them): only the valid configurations are in it, and
// a configuration's neighbours are valid ones too.
func ExampleNewSpace() {
	ints := func(vs ...int64) []space.Value {
		out := make([]space.Value, len(vs))
		for i, v := range vs {
			out[i] = space.IntValue(v)
		}
		return out
	}
	sp, err := expr.NewSpace([]space.Param{
		{Name: "block_size_x", Values: ints(16, 32, 64, 128)},
		{Name: "block_size_y", Values: ints(1, 2, 4, 8)},
		{Name: "tile_size_x", Values: ints(1, 2, 4)},
	}, []string{
		"32 <= block_size_x * block_size_y <= 256",
		"tile_size_x == 1 or block_size_x % 32 == 0",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d valid of %.0f configurations\n", sp.Len(), sp.Product())
	c, err := sp.ConfigOf(ints(64, 2, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range sp.NeighbourList(c, space.Adjacent) {
		fmt.Println(sp.Format(n))
	}
	// Output:
	// 30 valid of 48 configurations
	// block_size_x=32, block_size_y=2, tile_size_x=2
	// block_size_x=128, block_size_y=2, tile_size_x=2
	// block_size_x=64, block_size_y=1, tile_size_x=2
	// block_size_x=64, block_size_y=4, tile_size_x=2
	// block_size_x=64, block_size_y=2, tile_size_x=1
	// block_size_x=64, block_size_y=2, tile_size_x=4
}
