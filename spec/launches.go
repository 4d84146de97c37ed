package spec

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/ktune/ktune/device"
	"github.com/ktune/ktune/expr"
)

// Launch is one launch of a spec's sequence of launches (the launches field): a kernel
// function, its own geometry and arguments, run Repeat times. A configuration runs the
// launches in order, and one timed run is the whole sequence.
type Launch struct {
	// Kernel is the function launched and its source: the spec's kernel with Name set to
	// the function, or a source of the launch's own (OwnSource) in the kernel's language.
	// Either is compiled with the configuration's definitions.
	Kernel    *Kernel
	OwnSource bool
	// Grid and Block are the launch's own geometry (expressions, 3 each), or nil for the
	// spec's; a block alone divides the problem size, as a reference kernel's does.
	Grid, Block []string
	// ProblemSize and GridDiv are the launch's own problem size and grid divisors
	// (expressions), in place of a grid: its grid is its problem size (the spec's where it
	// gives none) divided by its divisors (its block where it gives none); nil for none.
	ProblemSize []string
	GridDiv     [3][]string
	// SharedMemoryBytes is the launch's own dynamic shared memory per block (CUDA), an
	// expression; "" for the spec's.
	SharedMemoryBytes string
	// Args are the arguments the function takes, in its parameter order (indices into
	// Arguments); all passed arguments, in the spec's order, where the launch names none.
	Args []int
	// Repeat is how many times the function is launched, an expression; "" for once.
	Repeat string
	// Swap names two array arguments (indices into Arguments) whose buffers are exchanged
	// between repetitions; nil for none. The names follow the data: after the launch, the
	// second names the buffer the last repetition wrote to, whatever the number of swaps.
	Swap []int

	line, argsLine int
}

// claunch is what a launch needs per configuration.
type claunch struct {
	grid, block       [3]*cnum
	gridSet, blockSet bool
	problem           [3]*cnum
	problemSet        bool
	gridDiv           [3][]*cnum
	gridDivSet        [3]bool
	shared            *cnum
	repeat            *cnum
	swapField         string
	swapLine          int
}

// LaunchInstance is one launch of a sequence for one configuration.
type LaunchInstance struct {
	Launch device.Launch
	Args   []int  // indices into Instance.Args, in the function's parameter order
	Repeat int    // at least 1
	Swap   []int  // two indices into Instance.Args, or nil
	Kernel string // the function, for messages
}

// LaunchName names launch i in messages: "launches[1] (reduce_final)".
func (s *Spec) LaunchName(i int) string {
	if i < 0 || i >= len(s.Launches) {
		return index("launches", i)
	}
	return fmt.Sprintf("%s (%s)", index("launches", i), s.Launches[i].Kernel.Name)
}

// LaunchSource returns what a device compiles for launch i, without the configuration's
// Defines: its function, from its own source or the kernel's, with the parameters of the
// arguments it takes.
func (s *Spec) LaunchSource(i int) device.Source {
	l := s.Launches[i]
	src := s.kernelSource(l.Kernel)
	all := s.KernelParams()
	src.Params = make([]device.Param, len(l.Args))
	for j, k := range l.Args {
		src.Params[j] = all[k]
	}
	return src
}

// LaunchArgs picks, from args of every argument in the spec's order, those launch i
// passes, in its function's order, then the constant-memory arguments, which are copied
// to their symbols rather than passed. binding[k] is the argument whose buffer argument
// k names now (swaps exchange them); nil names every argument's own.
func (s *Spec) LaunchArgs(i int, args []device.Arg, binding []int) []device.Arg {
	l := s.Launches[i]
	out := make([]device.Arg, 0, len(l.Args))
	for _, k := range l.Args {
		if binding != nil {
			k = binding[k]
		}
		out = append(out, args[k])
	}
	for k, a := range s.Arguments {
		if a.Kind == ArgConstant {
			out = append(out, args[k])
		}
	}
	return out
}

// LaunchArgumentError is ArgumentError for launch i, whose arguments are its own.
func (s *Spec) LaunchArgumentError(i int, err error) error {
	var ae *device.ArgError
	if !errors.As(err, &ae) || i < 0 || i >= len(s.Launches) {
		return err
	}
	l := s.Launches[i]
	if ae.Index < 0 || ae.Index >= len(l.Args) {
		return err
	}
	a := s.Arguments[l.Args[ae.Index]]
	return &Error{File: s.File, Line: l.argsLine, Field: index(index("launches", i)+".arguments", ae.Index),
		Msg: fmt.Sprintf("%s (%s) is refused by %s: %v; check its type against the function's parameter list", a.Name, describeArg(a), s.LaunchName(i), ae.Err)}
}

// CheckLaunchDeclared is CheckDeclared for launch i: the arguments it takes against the
// parameters its compiled function declares.
func (s *Spec) CheckLaunchDeclared(i int, params []device.Declared, detailed bool) error {
	l := s.Launches[i]
	field := index("launches", i) + ".arguments"
	return s.checkDeclared(s.LaunchName(i), l.Args, params, detailed, func(msg string) (string, int) {
		return msg + "; they are passed in the order of the function's parameter list", l.argsLine
	}, field, func(j, _ int) (string, int, string) {
		return index(field, j), l.argsLine, fmt.Sprintf(" (or list in %s the argument it takes as parameter %d)", field, j+1)
	})
}

var launchFields = []string{"kernel", "source", "code", "grid", "block", "problem_size", "grid_div_x", "grid_div_y", "grid_div_z",
	"shared_memory_bytes", "arguments", "repeat", "swap"}

// launches reads the launches field: a list of launches, each a function of the kernel's
// source (or of its own), with its own geometry, arguments, repeat count and swap.
func (p *parser) launches(n *yaml.Node) {
	d, s := p.d, p.s
	items, ok := d.list(n, "launches", false)
	if !ok {
		return
	}
	if len(items) == 0 {
		d.errf(n, "launches", "empty list; expected at least one launch (kernel: NAME), or no launches field for the kernel launched once")
		return
	}
	var passed []string
	for _, a := range s.Arguments {
		if a.Kind != ArgConstant {
			passed = append(passed, a.Name)
		}
	}
	argIndex := func(name string) int {
		return slices.IndexFunc(s.Arguments, func(a Argument) bool { return a.Name == name })
	}
	for i, it := range items {
		f := index("launches", i)
		entries, ok := d.mapping(it, f, launchFields)
		if !ok && entries == nil {
			continue
		}
		k := &Kernel{Language: s.Kernel.Language, CompilerOptions: s.Kernel.CompilerOptions, Defines: s.Kernel.Defines,
			DefineList: s.Kernel.DefineList, OpenMP: s.Kernel.OpenMP, Files: s.Kernel.Files, Code: s.Kernel.Code, CodeLine: s.Kernel.CodeLine}
		l := Launch{Kernel: k, line: it.Line, argsLine: it.Line}
		var cl claunch
		var swapNode, repeatNode *yaml.Node
		for _, e := range entries {
			sub := join(f, e.key)
			switch e.key {
			case "kernel":
				if v, ok := d.name(e.value, sub); ok {
					if !isCIdentifier(v) && k.Language != "cuda" && k.Language != "c++" {
						d.errf(e.value, sub, "%q is not a function's name", v)
					}
					k.Name = v
				}
			case "source":
				fs, ok := d.list(e.value, sub, true)
				if !ok || len(fs) == 0 {
					d.errf(e.value, sub, "expected a file name or a list of files")
					continue
				}
				l.OwnSource, k.Files, k.Code, k.CodeLine = true, nil, "", 0
				single := d.resolve(e.value).Kind == yaml.ScalarNode
				for j, fn := range fs {
					fj := index(sub, j)
					if single {
						fj = sub
					}
					if v, ok := d.name(fn, fj); ok {
						if lang := languageOfFile(v); lang != "" && k.Language != "" && lang != k.Language && !(hostLanguage(lang) && hostLanguage(k.Language)) {
							d.errf(fn, fj, "%s is %s source, but the kernel is %s: every launch runs on the kernel's device, in its language", v, lang, k.Language)
						}
						k.Files = append(k.Files, p.resolvePath(v))
						if s.files == nil {
							s.files = map[string][]string{}
						}
						s.files[f] = append(s.files[f], fj)
						s.fileAt(fj, fn.Line)
					}
				}
			case "code":
				if v, ok := d.name(e.value, sub); ok {
					l.OwnSource, k.Files, k.Code, k.CodeLine = true, nil, v, codeLine(e.value)
				}
			case "grid", "block":
				srcs, nums, ok := p.exprList(e.value, sub, p.c.geomScope, 1, 3)
				for len(srcs) < 3 && ok {
					srcs = append(srcs, "1")
				}
				if !ok || !p.paramsOK {
					continue
				}
				p.checkConst(nums, true, "a positive whole number", func(v float64) bool { return v >= 1 })
				if e.key == "grid" {
					l.Grid, cl.gridSet = srcs, true
					copy(cl.grid[:], nums)
				} else {
					l.Block, cl.blockSet = srcs, true
					copy(cl.block[:], nums)
				}
			case "problem_size":
				srcs, nums, ok := p.exprList(e.value, sub, p.c.psScope, 1, 3)
				if !ok || !p.paramsOK {
					continue
				}
				p.checkConst(nums, false, "a non-negative problem size", func(v float64) bool { return v >= 0 })
				l.ProblemSize, cl.problemSet = srcs, true
				copy(cl.problem[:], nums)
			case "grid_div_x", "grid_div_y", "grid_div_z":
				dim := int(e.key[len(e.key)-1] - 'x')
				srcs, nums, ok := p.exprList(e.value, sub, p.c.geomScope, 0, 64)
				if !ok || !p.paramsOK {
					continue
				}
				l.GridDiv[dim], cl.gridDiv[dim], cl.gridDivSet[dim] = srcs, nums, true
			case "shared_memory_bytes":
				src, ok := d.exprSource(e.value, sub)
				if instead := sharedInstead[k.Language]; instead != "" {
					d.errf(e.value, sub, "dynamic shared memory is CUDA's, not %s: %s; remove shared_memory_bytes", k.Language, instead)
					ok = false
				}
				if ok {
					l.SharedMemoryBytes = src
					if num := p.number(e.value, sub, p.c.argScope); num != nil {
						cl.shared = num
						p.checkConst([]*cnum{num}, true, "a non-negative whole number of bytes", func(v float64) bool { return v >= 0 })
					}
				}
			case "arguments":
				l.argsLine = e.value.Line
				names, ok := d.list(e.value, sub, false)
				if !ok {
					continue
				}
				l.Args = []int{}
				for j, nn := range names {
					fj := index(sub, j)
					name, ok := d.name(nn, fj)
					if !ok {
						continue
					}
					a := argIndex(name)
					switch {
					case a < 0:
						d.errf(nn, fj, "no argument %q%s; expected names of the spec's arguments", name, suggest(name, passed))
					case s.Arguments[a].Kind == ArgConstant:
						d.errf(nn, fj, "%q is constant memory, which is copied to its symbol before every launch, not passed; leave it out", name)
					case slices.Contains(l.Args, a):
						d.errf(nn, fj, "%q is given twice", name)
					default:
						l.Args = append(l.Args, a)
					}
				}
			case "repeat":
				repeatNode = e.value
				if src, ok := d.exprSource(e.value, sub); ok {
					l.Repeat = src
					if num := p.number(e.value, sub, p.c.geomScope); num != nil {
						cl.repeat = num
						p.checkConst([]*cnum{num}, true, "a whole number of launches, at least 1", func(v float64) bool { return v >= 1 })
					}
				}
			case "swap":
				swapNode = e.value
			}
		}
		if hasKey(entries, "grid") {
			for _, key := range []string{"problem_size", "grid_div_x", "grid_div_y", "grid_div_z"} {
				if hasKey(entries, key) {
					d.errAt(it.Line, join(f, key), "cannot be combined with the launch's grid, which it would compute; give one of them")
				}
			}
		}
		if k.Name == "" && !hasKey(entries, "kernel") {
			d.errAt(it.Line, f+".kernel", "missing; expected the name of the function to launch")
		}
		if l.Args == nil && !hasKey(entries, "arguments") {
			for a, arg := range s.Arguments {
				if arg.Kind != ArgConstant {
					l.Args = append(l.Args, a)
				}
			}
		}
		if swapNode != nil {
			sub := f + ".swap"
			cl.swapField, cl.swapLine = sub, swapNode.Line
			names, ok := d.list(swapNode, sub, false)
			switch {
			case !ok:
			case len(names) != 2:
				d.errf(swapNode, sub, "%d names; expected two arrays, [in, out], whose buffers are exchanged between repetitions", len(names))
			case repeatNode == nil:
				d.errf(swapNode, sub, "exchanges two arrays between repetitions, but the launch has no repeat; give repeat: (an expression over the parameters), or leave swap out")
			default:
				var pair []int
				for j, nn := range names {
					fj := index(sub, j)
					name, ok := d.name(nn, fj)
					if !ok {
						continue
					}
					a := argIndex(name)
					switch {
					case a < 0 || !slices.Contains(l.Args, a):
						d.errf(nn, fj, "%q is not an argument of this launch%s; expected two of its arrays", name, suggest(name, intsToNames(s, l.Args)))
					case s.Arguments[a].Kind != ArgArray:
						d.errf(nn, fj, "%q is %s, not an array; only arrays' buffers can be exchanged", name, describeArg(s.Arguments[a]))
					case slices.Contains(pair, a):
						d.errf(nn, fj, "%q is given twice; expected two different arrays", name)
					default:
						pair = append(pair, a)
					}
				}
				if len(pair) == 2 {
					x, y := s.Arguments[pair[0]], s.Arguments[pair[1]]
					if x.Type != y.Type {
						d.errf(swapNode, sub, "%s is an array of %s but %s of %s; exchanged arrays must have one type and length", x.Name, x.Type, y.Name, y.Type)
						break
					}
					lx, ly := p.c.args[pair[0]].length, p.c.args[pair[1]].length
					if lx != nil && ly != nil && p.c.constOnly(lx.num) && p.c.constOnly(ly.num) {
						env := p.c.constEnv()
						if vx, vy := lx.num.Eval(env), ly.num.Eval(env); vx != vy {
							d.errf(swapNode, sub, "%s has %v elements but %s %v; exchanged arrays must have one type and length", x.Name, vx, y.Name, vy)
							break
						}
					}
					l.Swap = pair
				}
			}
		}
		s.Launches = append(s.Launches, l)
		p.c.launches = append(p.c.launches, cl)
	}
	if p.problemMissing && !hostLanguage(s.Kernel.Language) { // host C has no geometry
		for i, l := range s.Launches {
			if l.Grid == nil && l.ProblemSize == nil {
				d.errAt(l.line, index("launches", i)+".grid", "missing, and the spec has no problem_size or grid for it to take; give the launch a grid or a problem_size, or give the spec a problem_size")
			}
		}
	}
}

// launchInstances computes the launches of a configuration bound in env, whose launch
// (the spec's, of in) is computed.
func (s *Spec) launchInstances(in *Instance, env *expr.Env) error {
	in.Launches = make([]LaunchInstance, len(s.Launches))
	for i, l := range s.Launches {
		cl := s.c.launches[i]
		grid, block, err := s.ownLaunch(in, env, cl.grid, cl.block, cl.gridSet, cl.blockSet)
		if err != nil {
			return err
		}
		if cl.problemSet || cl.gridDivSet != [3]bool{} {
			if grid, err = s.launchGrid(in, env, cl, block); err != nil {
				return err
			}
		}
		shared := in.Launch.SharedBytes
		if cl.shared != nil {
			if shared, err = s.wholeNumber(cl.shared, env, "a non-negative whole number of bytes", 0, math.MaxInt32); err != nil {
				return err
			}
		}
		li := LaunchInstance{Launch: device.Launch{Grid: grid, Block: block, SharedBytes: shared}, Args: l.Args, Repeat: 1, Kernel: l.Kernel.Name}
		if cl.repeat != nil {
			if li.Repeat, err = s.wholeNumber(cl.repeat, env, "a whole number of launches, at least 1 (a restriction can leave out the configurations that give less)", 1, 1<<24); err != nil {
				return err
			}
		}
		if l.Swap != nil {
			x, y := in.Args[l.Swap[0]], in.Args[l.Swap[1]]
			if x.Length != y.Length {
				return &Error{File: s.File, Line: cl.swapLine, Field: cl.swapField, Msg: fmt.Sprintf(
					"%s has %d elements but %s %d for this configuration; exchanged arrays must have one length", x.Name, x.Length, y.Name, y.Length)}
			}
			li.Swap = l.Swap
		}
		in.Launches[i] = li
	}
	return nil
}

// launchGrid is the grid of a launch with a problem size or grid divisors of its own:
// its problem size (the configuration's where it gives none) divided, in each dimension,
// by the product of its divisors there, or by its block where it gives none, rounded up.
func (s *Spec) launchGrid(in *Instance, env *expr.Env, cl claunch, block device.Dim3) (grid device.Dim3, err error) {
	for i := range 3 {
		ps := in.ProblemSize[i]
		if cl.problemSet {
			ps = 1
			if n := cl.problem[i]; n != nil {
				if ps, err = s.truncated(n, env, "a non-negative problem size", 0); err != nil {
					return
				}
			}
		}
		div := block[i]
		if cl.gridDivSet[i] {
			div = 1
			for _, n := range cl.gridDiv[i] {
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
		}
		grid[i] = (ps + div - 1) / div
		if grid[i] == 0 && !hostLanguage(s.Kernel.Language) {
			n := cl.problem[i]
			if n == nil {
				return grid, fmt.Errorf("the problem size in %c is 0 for this configuration, a grid of no blocks, which a kernel cannot be launched with", "xyz"[i])
			}
			return grid, s.evalErr(n, "%s evaluates to 0 for this configuration, a grid of no blocks, which a kernel cannot be launched with; expected a problem size of at least 1 (a restriction can leave out the configurations that give 0)", n.num.Source)
		}
	}
	return
}

// ownLaunch is the grid and block of a kernel launched with geometry of its own (a launch's,
// a reference kernel's) where it gives one: a block alone divides the problem size, as
// Kernel Tuner does; a grid alone keeps the configuration's block. env holds the
// configuration's problem size.
func (s *Spec) ownLaunch(in *Instance, env *expr.Env, g, b [3]*cnum, gridSet, blockSet bool) (grid, block device.Dim3, err error) {
	grid, block = in.Launch.Grid, in.Launch.Block
	if !gridSet && !blockSet {
		return
	}
	for i := range 3 {
		if blockSet {
			block[i] = 1
			if n := b[i]; n != nil {
				if block[i], err = s.wholeNumber(n, env, "a block size of at least 1", 1, maxDim); err != nil {
					return
				}
			}
		}
		switch {
		case gridSet:
			grid[i] = 1
			if n := g[i]; n != nil {
				if grid[i], err = s.wholeNumber(n, env, "a grid size of at least 1", 1, maxDim); err != nil {
					return
				}
			}
		default:
			grid[i] = (in.ProblemSize[i] + block[i] - 1) / block[i]
		}
	}
	return
}

// checkLaunchFunctions checks, once the sources are read, that each launch's function is
// defined in its source: a misspelt name would otherwise fail every configuration's
// compilation.
func (s *Spec) checkLaunchFunctions(d *decoder) {
	for i, l := range s.Launches {
		k := l.Kernel
		if k.Name == "" || k.Code == "" {
			continue
		}
		name := functionName(k.Name)
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\(`).MatchString(k.Code) {
			continue
		}
		where := "the kernel's source"
		if l.OwnSource {
			where = "the launch's source"
		}
		var known []string
		for _, m := range functionDecl.FindAllStringSubmatch(k.Code, -1) {
			known = append(known, m[1])
		}
		d.errAt(l.line, index("launches", i)+".kernel", "no function %q in %s%s; expected the name of a kernel function defined there", k.Name, where, suggest(name, known))
	}
}

// functionDecl finds the names of functions defined in kernel code, for suggestions.
var functionDecl = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;{)]*\)\s*\{`)
