package profile

import "math"

// Bottleneck is one entry of the paper's bottleneck vector B (Section 3.5.1).
type Bottleneck int

// Bottlenecks, each in [0, 1]: 0 the subsystem is idle, 1 at its peak.
const (
	BDRAMRead      Bottleneck = iota // eq. 6
	BDRAMWrite                       // eq. 7
	BL2Read                          // as eq. 6 with L2_RT, L2_WT, L2_U
	BL2Write                         // as eq. 7
	BSharedRead                      // as eq. 6 with SHR_LT, SHR_WT, SHR_U
	BSharedWrite                     // as eq. 7
	BTex                             // TEX_U scaled to [0, 1]
	BLocal                           // eq. 8
	BF32                             // eq. 10, and the same for the instruction kinds below
	BF64                             //
	BInt                             //
	BMisc                            //
	BLdSt                            //
	BControl                         //
	BConversion                      //
	BIssue                           // eq. 12
	BSM                              // eq. 13
	BParallelism                     // eq. 14
	NumBottlenecks                   // how many there are
)

var bottleneckNames = [NumBottlenecks]string{"dram_read", "dram_write", "l2_read", "l2_write", "shared_read",
	"shared_write", "tex", "local", "fp32", "fp64", "int", "misc", "ldst", "control", "conversion", "issue", "sm", "parallelism"}

func (b Bottleneck) String() string {
	if b >= 0 && b < NumBottlenecks {
		return bottleneckNames[b]
	}
	return "bottleneck(?)"
}

// Bottlenecks is the vector B of one profiled evaluation.
type Bottlenecks [NumBottlenecks]float64

// instructionKinds pairs the instruction bottlenecks with their counters (eq. 10).
var instructionKinds = [...]struct {
	b Bottleneck
	c Counter
}{{BF32, InstF32}, {BF64, InstF64}, {BInt, InstInt}, {BMisc, InstMisc}, {BLdSt, InstLdSt},
	{BControl, InstControl}, {BConversion, InstConversion}}

// threadsPerCore is eq. 14's empirical constant: five threads per CUDA core leave no
// parallelism bottleneck.
const threadsPerCore = 5

// Analyze is the expert system's first half (eqs. 6-14) for Volta and newer GPUs: the
// bottlenecks the counters of one evaluation show. cores is the CUDA core count of the
// GPU the counters were measured on (eq. 14); 0 leaves the parallelism bottleneck out, as
// does an unknown thread count.
func Analyze(c *Counters, cores int) Bottlenecks {
	var b Bottlenecks
	split := func(read, write, util float64) (float64, float64) {
		if read+write <= 0 {
			return 0, 0
		}
		u := clamp01(util / 100)
		return read / (read + write) * u, write / (read + write) * u
	}
	b[BDRAMRead], b[BDRAMWrite] = split(c[DRAMRead], c[DRAMWrite], c[DRAMUtil])
	b[BL2Read], b[BL2Write] = split(c[L2Read], c[L2Write], c[L2Util])
	b[BSharedRead], b[BSharedWrite] = split(c[SharedLoad], c[SharedStore], c[SharedUtil])
	b[BTex] = clamp01(c[TexUtil] / 100)
	b[BLocal] = clamp01(c.LocalOverhead() / 100 * clamp01(max(c[DRAMUtil], c[L2Util], c[TexUtil])/100))

	// eq. 9: the thread instructions the warp instructions stand for, as the paper
	// corrects them by the two warp efficiencies
	fitted := 32 * c[InstExecuted]
	if c[WarpEfficiency] > 0 && c[WarpNonPredEff] > 0 {
		fitted *= 100 / c[WarpEfficiency] * 100 / c[WarpNonPredEff]
	}
	// Volta and newer issue integer and floating-point instructions separately: one
	// path fully used is full use (min(1, INST_ISSUE_U/50))
	issue := min(1, max(0, c[IssueUtil])/50)
	utilMax := 0.0
	if fitted > 0 {
		for _, k := range instructionKinds {
			share := c[k.c] / fitted
			b[k.b] = clamp01(share * issue)
			utilMax = max(utilMax, share)
		}
	}
	b[BIssue] = clamp01(utilMax * (100 - c[IssueUtil]) / 100)                         // eq. 12
	b[BSM] = clamp01((100 - c[SMEfficiency]) / 100)                                   // eq. 13
	if want := float64(cores * threadsPerCore); want > 0 && !math.IsNaN(c[Threads]) { // eq. 14
		b[BParallelism] = max(0, (want-c[Threads])/want)
	}
	return b
}

func clamp01(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return min(1, max(0, x))
}

// Delta is the vector ΔPC of required changes, per counter, each in [-1, 1]: negative
// where the counter should fall, positive where it should rise, 0 where it does not
// matter.
type Delta [NumCounters]float64

// InstReaction is the paper's default inst_reaction (Section 3.5.2): instruction
// bottlenecks below it are ignored, as instructions rarely bind unless their units are
// close to saturated.
const InstReaction = 0.7

// Required is the expert system's second half (Section 3.5.2): the changes of counters
// that would relieve the bottlenecks b. Memory counters are to fall by their bottleneck;
// instruction counters by how far their bottleneck exceeds reaction, rescaled to [0, 1]
// (eq. 15); SM_E and the thread count are to rise by theirs. The issue bottleneck (eq. 12,
// one kind of instruction dominating while issue slots idle) asks for more issue
// utilisation, by eq. 15's rescaling: the paper says only that it is handled
// "analogously"; raising INST_ISSUE_U is what relieves it.
func Required(b *Bottlenecks, reaction float64) Delta {
	var d Delta
	d[DRAMRead] = -b[BDRAMRead]
	d[DRAMWrite] = -b[BDRAMWrite]
	d[L2Read] = -b[BL2Read]
	d[L2Write] = -b[BL2Write]
	d[SharedLoad] = -b[BSharedRead]
	d[SharedStore] = -b[BSharedWrite]
	d[TexRequests] = -b[BTex]
	d[LocalSectors] = -b[BLocal]
	over := func(x float64) float64 {
		if x <= reaction || reaction >= 1 {
			return 0
		}
		return (x - reaction) / (1 - reaction)
	}
	for _, k := range instructionKinds {
		d[k.c] = -over(b[k.b])
	}
	d[IssueUtil] = over(b[BIssue])
	d[SMEfficiency] = b[BSM]
	d[Threads] = b[BParallelism]
	return d
}

// Reacted lists the counters Required may ask to change: those a model must predict.
var Reacted = []Counter{DRAMRead, DRAMWrite, L2Read, L2Write, TexRequests, LocalSectors, SharedLoad, SharedStore,
	InstF32, InstF64, InstInt, InstMisc, InstLdSt, InstControl, InstConversion, IssueUtil, SMEfficiency, Threads}
