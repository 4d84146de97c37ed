package spec

import (
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// EssentialOps are the operations a kernel's task essentially needs (seed 003, Table 4):
// the bytes it must move between memory and the device and the floating-point operations
// it must compute, however many more a configuration spends on indexing, duplicated work
// or repeated reads. Efficiency against the device's peaks (seed 003, eq. 2) divides them
// by the measured time. They are numbers of the problem, not of a configuration: their
// expressions read the constants only.
type EssentialOps struct {
	// Bytes and Flops are the values of BytesExpr and FlopsExpr at the spec's constants;
	// 0 where the spec declares none (a compute-bound kernel may give flops alone).
	Bytes, Flops         float64
	BytesExpr, FlopsExpr string
	// Precision is the floating-point type the flops are computed in, whose peak they
	// are compared with: float32 (the default), float64 or float16.
	Precision string
	// Excluded says why the kernel has no efficiency against a peak (a latency-bound
	// code, a kernel far from any peak that is judged against a baseline instead, as
	// seed 003 does for 2D convolution, 3D Fourier reconstruction and Hotspot); the
	// other fields are then empty.
	Excluded string
}

// Declared reports whether the spec declares operations to compute an efficiency from.
func (e *EssentialOps) Declared() bool {
	return e != nil && e.Excluded == "" && (e.Bytes > 0 || e.Flops > 0)
}

// Precisions are the precisions essential_ops.precision accepts, the default first.
var Precisions = []string{"float32", "float64", "float16"}

var essentialFields = []string{"bytes", "flops", "precision", "excluded"}

// essentialOps reads essential_ops: {bytes, flops, precision} or {excluded: why}.
func (p *parser) essentialOps(n *yaml.Node) {
	d, s := p.d, p.s
	entries, ok := d.mapping(n, "essential_ops", essentialFields)
	if !ok && entries == nil {
		return
	}
	e := &EssentialOps{Precision: Precisions[0]}
	var excluded, precision *yaml.Node
	ops := map[string]*yaml.Node{}
	for _, en := range entries {
		switch en.key {
		case "excluded":
			excluded = en.value
		case "precision":
			precision = en.value
		default:
			ops[en.key] = en.value
		}
	}
	if excluded != nil {
		why, ok := d.name(excluded, "essential_ops.excluded")
		if !ok {
			return
		}
		if len(ops) > 0 || precision != nil {
			d.errf(n, "essential_ops", "excluded says the kernel has no efficiency against a peak, yet bytes, flops or precision are given: keep either excluded or the operations")
			return
		}
		s.Essential = &EssentialOps{Excluded: strings.TrimSpace(why)}
		return
	}
	if len(ops) == 0 {
		if !ok {
			return // the unknown field is reported
		}
		d.errf(n, "essential_ops", "gives neither bytes nor flops; expected the bytes the task must move and/or the flops it must compute, as expressions over the constants (seed 003's Table 4: BiCG's 4 * M * N bytes), or excluded: WHY")
		return
	}
	if precision != nil {
		if v, ok := d.str(precision, "essential_ops.precision"); ok {
			if !slices.Contains(Precisions, v) {
				d.errf(precision, "essential_ops.precision", "unknown precision %q%s; expected one of %s", v, suggest(v, Precisions), strings.Join(Precisions, ", "))
				return
			}
			e.Precision = v
		}
	}
	for _, key := range []string{"bytes", "flops"} {
		node, given := ops[key]
		if !given {
			continue
		}
		field := "essential_ops." + key
		src, ok := d.exprSource(node, field)
		if !ok {
			return
		}
		num := p.number(node, field, p.c.constScope)
		if num == nil {
			return
		}
		v := num.num.Eval(p.c.constEnv())
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			d.errf(node, field, "%s is %v at the spec's constants; expected a count of at least 0", src, v)
			return
		}
		if key == "bytes" {
			e.Bytes, e.BytesExpr = v, src
		} else {
			e.Flops, e.FlopsExpr = v, src
		}
	}
	if e.Bytes == 0 && e.Flops == 0 {
		d.errf(n, "essential_ops", "bytes and flops are both 0 at the spec's constants: an efficiency needs some operations")
		return
	}
	s.Essential = e
}
