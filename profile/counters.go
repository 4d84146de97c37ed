// Package profile is seed 001's profile-based search (Filipovič et al., "Using hardware
// performance counters to speed up autotuning convergence on GPUs"): the profiling
// counters of an evaluation, classified as the paper's Table 1 does (PCops count
// operations and are stable across GPUs and inputs, PCstress measure how busy a subsystem
// is); the expert system that reads bottlenecks from them and the changes of PCops that
// would relieve them (eqs. 6-15); a model from tuning parameters to PCops trained on a
// recording (least squares per binary subspace, Section 3.4.1, or regression trees,
// Section 3.4.2); and the scoring of candidate configurations by the model (eqs. 16-17).
// The biased random search of its Algorithm 1 is strategy "profile", built on this
// package.
package profile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ktune/ktune/result"
)

// Counter is one profiling counter of Table 1, by the paper's abbreviation.
type Counter int

// The counters of Table 1, and Threads, the launch's thread count the paper adds as
// "global" (eq. 14).
const (
	DRAMRead       Counter = iota // DRAM_RT: DRAM sectors read
	DRAMWrite                     // DRAM_WT: DRAM sectors written
	L2Read                        // L2_RT: L2 sectors read
	L2Write                       // L2_WT: L2 sectors written
	TexRequests                   // TEX_RWT: global load requests through L1/texture
	LocalSectors                  // LOC: local memory sectors, loads and stores (LOC_O is derived from it)
	SharedLoad                    // SHR_LT: shared memory load wavefronts
	SharedStore                   // SHR_WT: shared memory store wavefronts
	InstF32                       // INST_F32: thread instructions, single precision
	InstF64                       // INST_F64: double precision
	InstInt                       // INST_INT: integer
	InstMisc                      // INST_MISC: miscellaneous
	InstLdSt                      // INST_LDST: memory
	InstControl                   // INST_CONT: control flow
	InstConversion                // INST_BCONV: conversions
	InstExecuted                  // INST_EXE: warp instructions executed
	IssueUtil                     // INST_ISSUE_U: issue slots busy, % (PCops, as the paper assigns it)
	DRAMUtil                      // DRAM_U: DRAM throughput, % of peak
	L2Util                        // L2_U: L2 throughput, % of peak
	TexUtil                       // TEX_U: L1/texture global load throughput, % of peak
	SharedUtil                    // SHR_U: shared memory throughput, % of peak
	SMEfficiency                  // SM_E: SM sub-partitions active, % of elapsed cycles
	WarpEfficiency                // WARP_E: active threads per warp instruction, % of 32
	WarpNonPredEff                // WARP_NP_E: the same for threads not predicated off, %
	Threads                       // global: threads launched (grid times block), not a hardware counter
	NumCounters                   // how many counters there are
)

// Class is the paper's classification of a counter (Section 3.1).
type Class uint8

// Classes.
const (
	Ops    Class = iota // PCops: operations performed or resources used; model-able from tuning parameters alone
	Stress              // PCstress: how busy a subsystem is; depends on the GPU and the input
)

func (c Class) String() string {
	if c == Ops {
		return "PCops"
	}
	return "PCstress"
}

// Source says where a counter's value comes from in a recording: the sum of the named
// Nsight Compute metrics (Volta and newer, the right column of Table 1) times Scale.
type Source struct {
	Abbr    string   // the paper's abbreviation
	Class   Class    // PCops or PCstress
	Metrics []string // Nsight Compute metric names, as KTT records them
	Scale   float64  // converts their sum to the unit the equations here use
}

// Table is Table 1 for Volta and newer GPUs, as data: what each counter is read from.
// Utilisations are kept in percent (the paper's "rank" counters of 0-10, DRAM_U, TEX_U,
// SHR_U and, by its equations, L2_U, are these divided by 10; the equations below divide
// by 100 where the paper divides by 10). WARP_E is the ratio of threads per warp
// instruction times 100/32. LOC reads both local loads and stores, where Table 1 names
// the stores alone: the paper's LOC_O (CUPTI's local_memory_overhead, local traffic as a
// percentage of all L1-L2 traffic) is computed from it by LocalOverhead. Threads comes from
// the launch, not from a metric.
var Table = [NumCounters]Source{
	DRAMRead:       {"DRAM_RT", Ops, []string{"dram__sectors_read.sum"}, 1},
	DRAMWrite:      {"DRAM_WT", Ops, []string{"dram__sectors_write.sum"}, 1},
	L2Read:         {"L2_RT", Ops, []string{"lts__t_sectors_op_read.sum"}, 1},
	L2Write:        {"L2_WT", Ops, []string{"lts__t_sectors_op_write.sum"}, 1},
	TexRequests:    {"TEX_RWT", Ops, []string{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"}, 1},
	LocalSectors:   {"LOC", Ops, []string{"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"}, 1},
	SharedLoad:     {"SHR_LT", Ops, []string{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"}, 1},
	SharedStore:    {"SHR_WT", Ops, []string{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}, 1},
	InstF32:        {"INST_F32", Ops, []string{"smsp__sass_thread_inst_executed_op_fp32_pred_on.sum"}, 1},
	InstF64:        {"INST_F64", Ops, []string{"smsp__sass_thread_inst_executed_op_fp64_pred_on.sum"}, 1},
	InstInt:        {"INST_INT", Ops, []string{"smsp__sass_thread_inst_executed_op_integer_pred_on.sum"}, 1},
	InstMisc:       {"INST_MISC", Ops, []string{"smsp__sass_thread_inst_executed_op_misc_pred_on.sum"}, 1},
	InstLdSt:       {"INST_LDST", Ops, []string{"smsp__sass_thread_inst_executed_op_memory_pred_on.sum"}, 1},
	InstControl:    {"INST_CONT", Ops, []string{"smsp__sass_thread_inst_executed_op_control_pred_on.sum"}, 1},
	InstConversion: {"INST_BCONV", Ops, []string{"smsp__sass_thread_inst_executed_op_conversion_pred_on.sum"}, 1},
	InstExecuted:   {"INST_EXE", Ops, []string{"smsp__inst_executed.sum"}, 1},
	IssueUtil:      {"INST_ISSUE_U", Ops, []string{"smsp__issue_active.avg.pct_of_peak_sustained_active"}, 1},
	DRAMUtil:       {"DRAM_U", Stress, []string{"dram__throughput.avg.pct_of_peak_sustained_elapsed"}, 1},
	L2Util:         {"L2_U", Stress, []string{"lts__t_sectors.avg.pct_of_peak_sustained_elapsed"}, 1},
	TexUtil:        {"TEX_U", Stress, []string{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.avg.pct_of_peak_sustained_active"}, 1},
	SharedUtil:     {"SHR_U", Stress, []string{"l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"}, 1},
	SMEfficiency:   {"SM_E", Stress, []string{"smsp__cycles_active.avg.pct_of_peak_sustained_elapsed"}, 1},
	WarpEfficiency: {"WARP_E", Stress, []string{"smsp__thread_inst_executed_per_inst_executed.ratio"}, 100.0 / 32},
	WarpNonPredEff: {"WARP_NP_E", Stress, []string{"smsp__thread_inst_executed_per_inst_executed.pct"}, 1},
	Threads:        {"global", Ops, nil, 1},
}

// String is the counter's abbreviation in the paper.
func (c Counter) String() string {
	if c >= 0 && c < NumCounters {
		return Table[c].Abbr
	}
	return fmt.Sprintf("counter(%d)", int(c))
}

// Counters are one evaluation's counters, indexed by Counter. Threads is NaN when the
// launch is unknown.
type Counters [NumCounters]float64

// ErrNoCounters is wrapped by Read's error for an evaluation that carries none of Table
// 1's metrics: a recording made without profiling, or a real run on a device whose
// backend collects no counters.
var ErrNoCounters = fmt.Errorf("no profiling counters (seed 001 needs Nsight Compute's metrics of Table 1, e.g. %s, with every evaluation)", Table[DRAMRead].Metrics[0])

// Read takes the counters of Table 1 from an evaluation's metrics and the thread count from
// its launch. It fails, naming them, when metrics lack some of the counters, and with
// ErrNoCounters when they have none.
func Read(e *result.Evaluation) (Counters, error) {
	var c Counters
	var missing []string
	found := 0
	for i := range NumCounters {
		src := Table[i]
		if src.Metrics == nil {
			continue
		}
		sum := 0.0
		for _, m := range src.Metrics {
			v, ok := e.Metrics[m]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				missing = append(missing, m)
				continue
			}
			found++
			sum += v
		}
		c[i] = sum * src.Scale
	}
	c[Threads] = math.NaN()
	if l := e.Launch; l != nil {
		c[Threads] = float64(l.Grid[0]*l.Grid[1]*l.Grid[2]) * float64(l.Block[0]*l.Block[1]*l.Block[2])
	}
	switch {
	case found == 0:
		return c, ErrNoCounters
	case len(missing) > 0:
		slices.Sort(missing)
		return c, fmt.Errorf("profiling counters incomplete: missing %s", strings.Join(missing, ", "))
	}
	return c, nil
}

// LocalOverhead is the paper's LOC_O: local memory traffic as a percentage of the traffic
// between L1 and L2 (CUPTI's local_memory_overhead, which Volta's counters lack), taken as
// local sectors over L2 sectors read and written, at most 100.
func (c *Counters) LocalOverhead() float64 {
	l2 := c[L2Read] + c[L2Write]
	if l2 <= 0 {
		return 0
	}
	return min(100, 100*c[LocalSectors]/l2)
}
