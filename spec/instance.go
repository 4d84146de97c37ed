package spec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// Instance is everything about the kernel that depends on one configuration.
type Instance struct {
	Defines     []device.Define // preprocessor definitions, in Kernel Tuner's order, or a defines mapping's; nil when kernel.defines is false
	Launch      device.Launch
	ProblemSize device.Dim3
	Args        []ArgInstance // one per argument, in call order
	// Launches are the spec's launches (Spec.Launches), nil without them: then the kernel
	// runs once, with Launch and every argument.
	Launches []LaunchInstance
}

// ArgInstance is one argument for one configuration.
type ArgInstance struct {
	Name   string
	Kind   ArgKind
	Type   string
	Length int    // elements (arrays, local); 1 for scalars
	Bytes  int    // buffer size (arrays), local memory per block (local), value size (scalars)
	Scalar []byte // the scalar's value, little endian; nil for arrays and local memory
	Output bool
}

// localLength is what a local argument's length must be: OpenCL passes no __local memory
// of 0 bytes (clSetKernelArg refuses it).
const localLength = "a whole number of elements of at least 1 (OpenCL has no __local memory of 0 bytes)"

// maxDim bounds a launch dimension; devices allow far less, so this only keeps the
// arithmetic exact.
const maxDim = 1 << 40

// wholeNumber evaluates n and checks that it is a whole number in [lo, hi].
func (s *Spec) wholeNumber(n *cnum, env *expr.Env, want string, lo, hi float64) (int, error) {
	v := n.num.Eval(env)
	switch {
	case math.IsNaN(v):
		return 0, s.evalErr(n, "%s fails for this configuration (division by zero or invalid operation); expected %s", n.num.Source, want)
	case v != math.Trunc(v):
		return 0, s.evalErr(n, "%s evaluates to %v; expected %s (use // or (a + b - 1) // b for whole numbers)", n.num.Source, v, want)
	case v < lo || v > hi:
		return 0, s.evalErr(n, "%s evaluates to %v; expected %s", n.num.Source, v, want)
	}
	return int(v), nil
}

// truncated evaluates n with Python's int(): Kernel Tuner's rule for problem sizes and grid
// divisors.
func (s *Spec) truncated(n *cnum, env *expr.Env, want string, lo float64) (int, error) {
	v := n.num.Eval(env)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, s.evalErr(n, "%s fails for this configuration (division by zero or invalid operation); expected %s", n.num.Source, want)
	}
	v = math.Trunc(v)
	if v < lo || v > maxDim {
		return 0, s.evalErr(n, "%s evaluates to %v; expected %s", n.num.Source, v, want)
	}
	return int(v), nil
}

func (s *Spec) evalErr(n *cnum, format string, args ...any) error {
	return &Error{File: s.File, Line: n.line, Field: n.field, Msg: fmt.Sprintf(format, args...)}
}

// bind returns the environment of a configuration with parameters and constants set.
func (s *Spec) bind(values []space.Value) (*expr.Env, error) {
	if len(values) != len(s.Parameters) {
		return nil, fmt.Errorf("%s: configuration has %d values, the spec has %d parameters", s.name(), len(values), len(s.Parameters))
	}
	env := s.c.newEnv()
	for i, v := range values {
		if (v.Kind() == space.String) != (s.c.kinds[i] == space.String) {
			return nil, fmt.Errorf("%s: parameter %s: value %v has the wrong kind (%s)", s.name(), s.Parameters[i].Name, v, v.Kind())
		}
		env.Num[i] = v.Float()
		if v.Kind() == space.String {
			env.Str[i] = v.Str()
		}
	}
	return env, nil
}

// launch computes the problem size, grid and block of a bound configuration, stores them
// in env's slots, and returns them.
func (s *Spec) launch(env *expr.Env, values []space.Value) (ps, grid, block device.Dim3, err error) {
	c := s.c
	for i := range 3 {
		ps[i] = 1
		if c.problem[i] != nil {
			if ps[i], err = s.truncated(c.problem[i], env, "a non-negative problem size", 0); err != nil {
				return
			}
		}
		env.Num[c.psSlot[i]] = float64(ps[i])
	}
	for i := range 3 {
		block[i] = 1
		switch {
		case c.blockSet:
			if c.block[i] != nil {
				if block[i], err = s.wholeNumber(c.block[i], env, "a block size of at least 1", 1, maxDim); err != nil {
					return
				}
			}
		case c.blockParam[i] >= 0:
			v := values[c.blockParam[i]]
			f := v.Float()
			if v.Kind() == space.String || f != math.Trunc(f) || f < 1 || f > maxDim {
				err = &Error{File: s.File, Field: "parameters." + s.BlockSizeNames[i], Msg: fmt.Sprintf("value %v is used as the block size; expected a whole number of at least 1", v)}
				return
			}
			block[i] = int(f)
		}
	}
	for i := range 3 {
		switch {
		case c.gridSet:
			grid[i] = 1
			if c.grid[i] != nil {
				if grid[i], err = s.wholeNumber(c.grid[i], env, "a grid size of at least 1", 1, maxDim); err != nil {
					return
				}
			}
		default:
			div := 1
			switch {
			case c.gridDivSet[i]:
				for _, n := range c.gridDiv[i] {
					var d int
					if d, err = s.truncated(n, env, "a positive grid divisor", 1); err != nil {
						return
					}
					if div > maxDim/d {
						err = s.evalErr(n, "the grid divisors' product exceeds %d", maxDim)
						return
					}
					div *= d
				}
			default:
				// Kernel Tuner divides by the block size parameter (1 without one);
				// an explicit block takes its place.
				div = block[i]
			}
			grid[i] = (ps[i] + div - 1) / div
			if grid[i] == 0 && s.Kernel.Language != "c" {
				// A grid of no blocks launches nothing: CUDA refuses it, and OpenCL
				// would run one work-group in its place.
				err = s.evalErr(c.problem[i], "%s evaluates to 0 for this configuration, a grid of no blocks, which a kernel cannot be launched with; expected a problem size of at least 1 (a restriction can leave out the configurations that give 0)", c.problem[i].num.Source)
				return
			}
		}
	}
	for i := range 3 {
		if c.gridParam[i] < 0 {
			env.Num[c.gridSlot[i]] = float64(grid[i])
		}
		if c.blockParam[i] < 0 {
			env.Num[c.blockSlot[i]] = float64(block[i])
		}
	}
	return
}

// ReferenceInstance is the Instance of the verification's reference kernel at the
// configuration values: the tuned kernel's, but for the reference's own grid and block
// where it gives them (a block alone divides the problem size, as Kernel Tuner does; a
// grid alone keeps the configuration's block), with grid_size_x/y/z defined from it, and
// the definitions its own defines setting asks for where it has one.
func (s *Spec) ReferenceInstance(values []space.Value) (*Instance, error) {
	in, err := s.Instance(values)
	if err != nil {
		return nil, err
	}
	defines, defs := s.Kernel.Defines, s.c.defs
	if v := s.Verification; v != nil && v.Kernel != nil && s.c.refDefsSet {
		defines, defs = v.Kernel.Defines, s.c.refDefs
	}
	env, err := s.bind(values)
	if err != nil {
		return nil, err
	}
	if _, _, _, err := s.launch(env, values); err != nil { // problem_size_x/y/z in env
		return nil, err
	}
	grid, block := in.Launch.Grid, in.Launch.Block
	for i := range 3 {
		if !s.c.refGridSet && !s.c.refBlockSet {
			break
		}
		if s.c.refBlockSet {
			block[i] = 1
			if n := s.c.refBlock[i]; n != nil {
				if block[i], err = s.wholeNumber(n, env, "a block size of at least 1", 1, maxDim); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case s.c.refGridSet:
			grid[i] = 1
			if n := s.c.refGrid[i]; n != nil {
				if grid[i], err = s.wholeNumber(n, env, "a grid size of at least 1", 1, maxDim); err != nil {
					return nil, err
				}
			}
		default:
			grid[i] = (in.ProblemSize[i] + block[i] - 1) / block[i]
		}
	}
	in.Launch.Grid, in.Launch.Block = grid, block
	in.Defines = nil
	switch {
	case defines:
		in.Defines = s.defines(values, grid, block)
	case defs != nil:
		if in.Defines, err = s.listDefines(defs, env, values, grid, block); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Instance computes everything that depends on one configuration (values in the order of
// Parameters): preprocessor definitions, launch geometry and arguments.
func (s *Spec) Instance(values []space.Value) (*Instance, error) {
	if err := s.parsed(); err != nil {
		return nil, err
	}
	env, err := s.bind(values)
	if err != nil {
		return nil, err
	}
	ps, grid, block, err := s.launch(env, values)
	if err != nil {
		return nil, err
	}
	in := &Instance{ProblemSize: ps, Launch: device.Launch{Grid: grid, Block: block}}
	if s.c.shared != nil {
		if in.Launch.SharedBytes, err = s.wholeNumber(s.c.shared, env, "a non-negative whole number of bytes", 0, math.MaxInt32); err != nil {
			return nil, err
		}
	}
	switch {
	case s.Kernel.Defines:
		in.Defines = s.defines(values, grid, block)
	case s.c.defs != nil:
		if in.Defines, err = s.listDefines(s.c.defs, env, values, grid, block); err != nil {
			return nil, err
		}
	}
	in.Args = make([]ArgInstance, len(s.Arguments))
	for i, a := range s.Arguments {
		ca := s.c.args[i]
		ai := ArgInstance{Name: a.Name, Kind: a.Kind, Type: a.Type, Output: a.Output}
		switch a.Kind {
		case ArgArray, ArgLocal, ArgConstant:
			want, least := "a non-negative whole number of elements", 0.0
			if a.Kind == ArgLocal {
				want, least = localLength, 1
			}
			if ai.Length, err = s.wholeNumber(ca.length, env, want, least, float64(math.MaxInt64/16)/float64(ca.typ.size)); err != nil {
				return nil, err
			}
			ai.Bytes = ai.Length * ca.typ.size
		case ArgScalar:
			v := ca.value.num.Eval(env)
			if err := ca.typ.check(v); err != nil {
				return nil, s.evalErr(ca.value, "%s: %v", ca.value.num.Source, err)
			}
			ai.Length, ai.Bytes = 1, ca.typ.size
			ai.Scalar = make([]byte, ca.typ.size)
			ca.typ.put(ai.Scalar, v)
		}
		in.Args[i] = ai
	}
	for i, ca := range s.c.args {
		if cf := ca.from; cf != nil && cf.src >= 0 {
			a, src := s.Arguments[i], s.Arguments[cf.src]
			n, m := in.Args[i].Length, in.Args[cf.src].Length
			if need, ok := fromNeed(n, a.Fill.FromStart, a.Fill.FromStride); !ok || need > m {
				return nil, &Error{File: s.File, Line: cf.line, Field: cf.field, Msg: fmt.Sprintf(
					"in this configuration %s; make %q's length hold start + (length-1)*stride + 1 elements at every configuration, or leave out those where it does not with a restriction",
					fromShort(a, src, n, m), src.Name)}
			}
		}
	}
	if len(s.Launches) > 0 {
		if err := s.launchInstances(in, env); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// defines lists the definitions as Kernel Tuner writes them: grid_size_x/y/z, the block
// size names, the parameters, then kernel_tuner=1. A parameter that has one of the derived
// names takes that place with its own value.
func (s *Spec) defines(values []space.Value, grid, block device.Dim3) []device.Define {
	out := make([]device.Define, 0, len(values)+7)
	placed := make([]bool, len(values))
	add := func(name string, param int, derived int) {
		if param >= 0 {
			out = append(out, device.Define{Name: name, Value: defineValue(values[param])})
			placed[param] = true
			return
		}
		out = append(out, device.Define{Name: name, Value: strconv.Itoa(derived)})
	}
	for i, n := range []string{"grid_size_x", "grid_size_y", "grid_size_z"} {
		add(n, s.c.gridParam[i], grid[i])
	}
	for i, n := range s.BlockSizeNames {
		add(n, s.c.blockParam[i], block[i])
	}
	for i, p := range s.Parameters {
		if !placed[i] {
			out = append(out, device.Define{Name: p.Name, Value: defineValue(values[i])})
		}
	}
	if _, isParam := s.c.params["kernel_tuner"]; !isParam {
		out = append(out, device.Define{Name: "kernel_tuner", Value: "1"})
	}
	return out
}

// listDefines evaluates a defines mapping for a configuration bound in env, launched
// with grid and block: whole numbers are written as integers, other numbers as Go's
// shortest exact form (1e-07, 0.1).
func (s *Spec) listDefines(defs []cdef, env *expr.Env, values []space.Value, grid, block device.Dim3) ([]device.Define, error) {
	c := s.c
	for i := range 3 {
		if c.gridParam[i] < 0 {
			env.Num[c.gridSlot[i]] = float64(grid[i])
		}
		if c.blockParam[i] < 0 {
			env.Num[c.blockSlot[i]] = float64(block[i])
		}
	}
	out := make([]device.Define, 0, len(defs))
	for _, d := range defs {
		v := d.fixed
		switch {
		case d.param >= 0:
			v = defineValue(values[d.param])
		case d.num != nil:
			x := d.num.num.Eval(env)
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				return nil, s.evalErr(d.num, "%s fails for this configuration (division by zero or invalid operation); expected a number", d.num.num.Source)
			case x == math.Trunc(x) && math.Abs(x) < 1<<53:
				v = strconv.FormatInt(int64(x), 10)
			default:
				v = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}
		out = append(out, device.Define{Name: d.name, Value: v})
	}
	return out, nil
}

// defineValue writes a parameter value for the preprocessor: booleans as 1 and 0 (Kernel
// Tuner writes True and False, which C does not know), floats as Python prints them,
// strings as they are (a type name, say).
func defineValue(v space.Value) string {
	if v.Kind() == space.Bool {
		if v.Bool() {
			return "1"
		}
		return "0"
	}
	return v.String()
}

// Observable is a quantity a device may measure beside time. Metrics read observables by
// name, and one may be the objective (lower is better). Backend is the only backend whose
// devices measure it.
type Observable struct {
	Name, Unit, Doc string
	Backend         string
}

// Observables are what ktune's devices measure beside time. A device that does not
// measure one leaves it unset, and a metric that reads it then fails with a message that
// says so; a spec that reads one on another backend is refused before tuning (Unmeasured).
var Observables = []Observable{
	{"energy", "J", "energy of one kernel run, from the board's energy counter over at least 0.2 s of back-to-back runs (NVIDIA GPUs, NVML)", "cuda"},
	{"power", "W", "mean board power over those runs (NVIDIA GPUs, NVML)", "cuda"},
	{"core_clock", "MHz", "SM clock after the timed runs (NVIDIA GPUs, NVML)", "cuda"},
	{"memory_clock", "MHz", "memory clock after the timed runs (NVIDIA GPUs, NVML)", "cuda"},
	{"registers", "", "registers per thread the compiler gave the kernel (CUDA)", "cuda"},
	{"shared_memory", "bytes", "shared memory per block, static and dynamic (CUDA)", "cuda"},
}

// Unmeasured returns an error naming the observables the objective or the metrics read
// that no device of backend measures, or nil: every configuration would fail on them.
func (s *Spec) Unmeasured(backend string) error {
	if err := s.parsed(); err != nil {
		return err
	}
	var missing []string
	field, line := "metrics", 0
	for _, name := range s.Observes() {
		for _, o := range Observables {
			if o.Name == name && o.Backend != backend {
				var who []string
				if name == s.objective {
					who, field = append(who, "the objective"), "objective"
				}
				for i, n := range s.c.metrics {
					if n != nil && slices.Contains(n.num.Names, name) {
						who = append(who, fmt.Sprintf("metric %q", s.Metrics[i].Name))
						if line == 0 && field == "metrics" {
							field, line = fmt.Sprintf("metrics[%d]", i), n.line
						}
					}
				}
				verb := "reads"
				if len(who) > 1 {
					verb = "read"
				}
				missing = append(missing, fmt.Sprintf("%s %s %q, which only %s devices measure (%s)", strings.Join(who, " and "), verb, name, o.Backend, o.Doc))
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if field == "objective" {
		line = 0 // the objective's own line is not kept
	}
	return &Error{File: s.File, Line: line, Field: field, Msg: fmt.Sprintf("%s; the %s backend measures none of these: tune on a device that does (--device), or leave them out of the metrics and the objective",
		strings.Join(missing, "; "), backend)}
}

// Observes returns the observables that the metrics or the objective read, in the order
// of Observables.
func (s *Spec) Observes() []string {
	if s.parsed() != nil {
		return nil
	}
	read := map[string]bool{s.objective: true}
	for _, n := range s.c.metrics {
		if n != nil {
			for _, name := range n.num.Names {
				read[name] = true
			}
		}
	}
	var out []string
	for _, o := range Observables {
		if _, readable := s.c.observedSlot[o.Name]; read[o.Name] && (readable || o.Name == s.objective) {
			out = append(out, o.Name)
		}
	}
	return out
}

// MetricsError is MetricValues' error for metrics that could not be computed (a division
// by zero, an observable the device does not measure): the others were.
type MetricsError struct {
	Failed map[string]error // by metric name
	errs   []error          // in the spec's order
}

// Error lists the metrics that could not be computed, in the spec's order.
func (e *MetricsError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap gives the failures, in the spec's order.
func (e *MetricsError) Unwrap() []error { return e.errs }

// MetricValues evaluates the metrics of a configuration measured at timeMS milliseconds, in
// order, with what the device observed beside time (nil: nothing); a metric may read the
// earlier ones by name. A metric that cannot be computed is left out of the values, which
// hold the others, and named in a *MetricsError; a metric that reads it fails too.
func (s *Spec) MetricValues(values []space.Value, timeMS float64, observed map[string]float64) (map[string]float64, error) {
	if err := s.parsed(); err != nil {
		return nil, err
	}
	if len(s.Metrics) == 0 {
		return map[string]float64{}, nil
	}
	env, err := s.bind(values)
	if err != nil {
		return nil, err
	}
	if _, _, _, err := s.launch(env, values); err != nil {
		return nil, err
	}
	env.Num[s.c.timeSlot] = timeMS
	for name, slot := range s.c.observedSlot {
		v, ok := observed[name]
		if !ok {
			v = math.NaN()
		}
		env.Num[slot] = v
	}
	out := make(map[string]float64, len(s.Metrics))
	var failed *MetricsError
	fail := func(name string, err error) {
		if failed == nil {
			failed = &MetricsError{Failed: map[string]error{}}
		}
		failed.Failed[name] = err
		failed.errs = append(failed.errs, err)
	}
	for i, m := range s.Metrics {
		n := s.c.metrics[i]
		if n == nil {
			return nil, fmt.Errorf("%s: metrics[%d] (%s) did not compile", s.name(), i, m.Name)
		}
		v := n.num.Eval(env)
		if slot := s.c.metricSlot[i]; slot >= 0 {
			env.Num[slot] = v // NaN or infinite where it fails
			if math.IsInf(v, 0) {
				env.Num[slot] = math.NaN() // so that what reads it fails too
			}
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[m.Name] = v
			continue
		}
		if math.IsInf(v, 0) {
			fail(m.Name, s.evalErr(n, "metric %q: %s is infinite (an overflow, or a division by zero)", m.Name, m.Expr))
			continue
		}
		var err error
		for _, name := range n.num.Names {
			if _, isObs := s.c.observedSlot[name]; isObs && err == nil {
				if _, ok := observed[name]; !ok {
					err = s.evalErr(n, "metric %q reads %s, which this device does not measure (%s)", m.Name, name, observableDoc(name))
				}
			}
			if earlier, ok := failed.failed(name); ok && err == nil {
				err = s.evalErr(n, "metric %q reads metric %q, which could not be computed", m.Name, earlier)
			}
		}
		if err == nil {
			err = s.evalErr(n, "metric %q: %s fails (division by zero or invalid operation)", m.Name, m.Expr)
		}
		fail(m.Name, err)
	}
	if failed != nil {
		return out, failed
	}
	return out, nil
}

// failed reports whether metric name failed (e may be nil: none did).
func (e *MetricsError) failed(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	_, ok := e.Failed[name]
	return name, ok
}

func observableDoc(name string) string {
	for _, o := range Observables {
		if o.Name == name {
			return o.Doc
		}
	}
	return ""
}
