package spec

import (
	"github.com/ktune/ktune/expr"
	"github.com/ktune/ktune/space"
)

// cnum is a compiled expression with the field it came from, for messages.
type cnum struct {
	num   *expr.Number
	field string
	line  int
}

// cdef is one definition of a defines mapping: a parameter's value, a fixed text or an
// expression.
type cdef struct {
	name  string
	param int // the parameter whose value it is, or -1
	fixed string
	num   *cnum
}

// carg is what an argument needs per configuration.
type carg struct {
	typ    elemType
	length *cnum // arrays and local
	value  *cnum // scalars
	from   *cfrom
}

// cfrom is a from fill's source, found once every argument is read.
type cfrom struct {
	src   int    // the source argument's index
	field string // the fill's field, arguments[i].fill.from, for messages
	line  int
}

// compiled holds a spec's compiled expressions and the slot layout they read. Slots are,
// in order: the parameters (slot = parameter index), the constants, problem_size_x/y/z,
// grid_size_x/y/z and the block size names that are not parameters, time, and the
// metrics whose names are identifiers.
type compiled struct {
	nslots      int
	kinds       []space.Kind
	params      map[string]int // parameter name -> index
	constants   map[string]int // constant name -> slot
	base        []float64      // constant values by slot
	constScope  expr.MapScope  // constants
	psScope     expr.MapScope  // parameters and constants
	geomScope   expr.MapScope  // parameters, constants, problem_size_*
	argScope    expr.MapScope  // + grid_size_*, block size names
	metricScope expr.MapScope  // + time and earlier metrics

	psSlot, gridSlot, blockSlot [3]int
	gridParam, blockParam       [3]int // parameter index, or -1
	timeSlot                    int
	observedSlot                map[string]int // observables that metrics can read, by name

	problem     [3]*cnum // nil: 1
	gridDiv     [3][]*cnum
	gridDivSet  [3]bool
	grid, block [3]*cnum // explicit; nil entries are 1
	gridSet     bool
	blockSet    bool
	shared      *cnum
	// a reference kernel's own launch (verification.reference.kernel.grid and block)
	refGrid, refBlock       [3]*cnum
	refGridSet, refBlockSet bool
	// defines mappings: the kernel's, and the reference kernel's where it says defines
	// (refDefsSet; refDefs nil unless it gives a mapping)
	defs, refDefs []cdef
	refDefsSet    bool

	launches     []claunch // the launches', in order
	args         []carg
	metrics      []*cnum // nil where the expression did not compile
	metricSlot   []int   // -1 for names that are not identifiers
	restrictions []space.Restriction
	restrictLine []int // the line of each restriction, for messages
}

func newCompiled(params []space.Param) *compiled {
	c := &compiled{params: map[string]int{}, constants: map[string]int{}, constScope: expr.MapScope{}}
	scope, err := expr.ParamScope(params)
	if err != nil {
		scope = expr.MapScope{}
	}
	c.kinds = make([]space.Kind, len(params))
	for i, p := range params {
		c.params[p.Name] = i
		if v, ok := scope[p.Name]; ok {
			c.kinds[i] = v.Kind
		}
	}
	c.geomScope = scope
	c.nslots = len(params)
	return c
}

func (c *compiled) slot() int {
	c.nslots++
	return c.nslots - 1
}

func (c *compiled) addConstant(name string, v float64) {
	s := c.slot()
	c.constants[name] = s
	c.constScope[name] = expr.Var{Slot: s, Kind: space.Float}
	c.geomScope[name] = expr.Var{Slot: s, Kind: space.Float}
	for len(c.base) < c.nslots {
		c.base = append(c.base, 0)
	}
	c.base[s] = v
}

func copyScope(m expr.MapScope) expr.MapScope {
	out := make(expr.MapScope, len(m)+8)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// addGeometryNames gives slots to problem_size_*, grid_size_* and the block size names,
// and builds the scopes that read them.
func (c *compiled) addGeometryNames(blockNames [3]string) {
	c.psScope = copyScope(c.geomScope)
	for i, n := range []string{"problem_size_x", "problem_size_y", "problem_size_z"} {
		c.psSlot[i] = c.slot()
		c.geomScope[n] = expr.Var{Slot: c.psSlot[i], Kind: space.Int}
	}
	c.argScope = copyScope(c.geomScope)
	for i, n := range []string{"grid_size_x", "grid_size_y", "grid_size_z"} {
		c.gridParam[i] = c.paramIndex(n)
		if c.gridParam[i] >= 0 {
			c.gridSlot[i] = c.gridParam[i]
			continue
		}
		c.gridSlot[i] = c.slot()
		c.argScope[n] = expr.Var{Slot: c.gridSlot[i], Kind: space.Int}
	}
	for i, n := range blockNames {
		c.blockParam[i] = c.paramIndex(n)
		if c.blockParam[i] >= 0 {
			c.blockSlot[i] = c.blockParam[i]
			continue
		}
		c.blockSlot[i] = c.slot()
		c.argScope[n] = expr.Var{Slot: c.blockSlot[i], Kind: space.Int}
	}
}

func (c *compiled) paramIndex(name string) int {
	if i, ok := c.params[name]; ok {
		return i
	}
	return -1
}

// finishScopes builds the metrics' scope once the launch names are known.
func (c *compiled) finishScopes(s *Spec) {
	if c.argScope == nil {
		c.addGeometryNames(s.BlockSizeNames)
	}
	c.metricScope = copyScope(c.argScope)
	c.timeSlot = c.slot()
	c.metricScope["time"] = expr.Var{Slot: c.timeSlot, Kind: space.Float}
	// Parameters and constants keep their names; an observable that one shadows cannot be
	// read.
	c.observedSlot = map[string]int{}
	for _, o := range Observables {
		if _, taken := c.metricScope[o.Name]; !taken {
			c.observedSlot[o.Name] = c.slot()
			c.metricScope[o.Name] = expr.Var{Slot: c.observedSlot[o.Name], Kind: space.Float}
		}
	}
}

func (c *compiled) addMetric(name string) {
	if !isIdentifier(name) {
		c.metricSlot = append(c.metricSlot, -1)
		return
	}
	s := c.slot()
	c.metricSlot = append(c.metricSlot, s)
	c.metricScope[name] = expr.Var{Slot: s, Kind: space.Float}
	delete(c.observedSlot, name) // a metric of an observable's name shadows it
}

// newEnv returns an environment with the constants set.
func (c *compiled) newEnv() *expr.Env {
	env := &expr.Env{Num: make([]float64, c.nslots), Str: make([]string, c.nslots)}
	copy(env.Num, c.base)
	return env
}

// constEnv is the environment of expressions that read only constants.
func (c *compiled) constEnv() *expr.Env { return c.newEnv() }

// constOnly reports whether an expression reads nothing but constants.
func (c *compiled) constOnly(n *expr.Number) bool {
	for _, name := range n.Names {
		if _, ok := c.constants[name]; !ok {
			return false
		}
	}
	return true
}
