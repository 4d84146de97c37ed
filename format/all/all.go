// Package all registers every recording format ktune reads and writes. Programs import it
// for its side effect, as with database/sql drivers:
//
//	import _ "github.com/ktune/ktune/format/all"
//
// It exists because the format packages import format (to register), so format cannot
// import them.
package all

import (
	// Kernel Tuner cache files.
	_ "github.com/ktune/ktune/format/kerneltuner"
	// KTT JSON output.
	_ "github.com/ktune/ktune/format/ktt"
	// T4 results files.
	_ "github.com/ktune/ktune/format/t4"
)
