// Package spec reads kernel specs: YAML (or JSON) files that describe a kernel, its
// tunable parameters and restrictions, its launch geometry and arguments, how to verify
// its output and what to optimise, with the names a Kernel Tuner user knows
// (problem_size, grid_div_x, block_size_names, restrictions, metrics...).
//
// Every expression in a spec is parsed once and compiled with package expr; nothing is
// evaluated with a general-purpose interpreter. Errors name the file, the line, the field
// path (arguments[2].length) and what was expected. Doc is the user's reference.
package spec

// Doc describes the spec format; `ktune help spec` prints it.
const Doc = `A kernel spec is a YAML file (JSON is accepted too) that tells ktune what to tune.
Names follow Kernel Tuner's where it has one. Relative paths are relative to the spec.
Every field, with its default, in an example (everything after # is explanation):

---
kernel:                        # required
  name: matmul                 # required (but with launches, below): the kernel
                               # function; a CUDA or C++ template with its arguments:
                               # "matmul<float, 4>"
  language: cuda               # opencl | cuda | c | c++ (or cpp, cxx); implied by a source
                               # ending in .cl, .cu, .c, or .cpp, .cc, .cxx, .C
  source: matmul.cu            # a file, or a list of files concatenated in order;
                               # or code: "..." with the source inline, best as a block
                               # (code: |, the code on the lines below it): compilers'
                               # messages then name the spec's lines (in a quoted or
                               # folded string, only the first line's is the spec's)
  compiler_options: [--use_fast_math]   # passed to the compiler as written (CUDA:
                               # NVRTC's options, which have no -O3; -arch=sm_XY of the
                               # device is added unless one is given), but for relative
                               # paths after -I, -L, -isystem, -include (and the like),
                               # which are made relative to the spec's folder; warnings
                               # they turn on (-Wall) are shown in 'ktune tune's summary,
                               # each distinct one once, as are the compiler's own
  defines: true                # inject parameters and derived sizes as #defines (default true);
                               # or a mapping, Kernel Tuner's defines dict: exactly these
                               # definitions, in order, and nothing else (no parameters,
                               # no kernel_tuner), each a number, true/false (1/0), a
                               # parameter's name or an expression (the names of an
                               # argument's length), per configuration:
                               #   defines: {NCOEF: 8, TILE: tile_size_x, WPT: "block_size_x * tile_size_x"}
                               # (text such as a type name goes in compiler_options: -DT=float)
  openmp: false                # host C and C++ only: compile with OpenMP (adds
                               # -fopenmp); not turned on by #pragma omp in the code, as
                               # Kernel Tuner does: without it the compiler ignores
                               # #pragma omp, and ktune warns of one
# Host C (language: c): the kernel is a C function, built with cc -O3 -march=native
# -fPIC -shared (compiler_options come after and may override them; -lNAME links a
# library; -fsanitize=undefined works, but address, thread and memory, whose runtimes must
# start with the program, are refused) and called once per run from one host thread,
# timed around the call (with openmp, it runs its own parallel regions). Its parameters
# are the arguments in order: an array is a pointer to its element type (float *, const
# double *) or to one that differs in sign only (int8: char *), a scalar its C type by
# value (int32: int), or one that holds all its values or differs in sign only (int32:
# long, double, unsigned). A pointer of another type, a scalar C would change (float64
# to float, float32 to int, int64 to int), a scalar declared a pointer or an array an
# integer, or another number of parameters is a compile error of ktune's call wrapper,
# whose notes name the argument. Launch geometry means nothing on the host, but
# problem_size is still required (as in Kernel Tuner) and gives grid_size_x/y/z.
# Host C++ (language: c++) is built the same way with $CXX (else c++, g++ or clang++)
# and may use the standard library (<vector>, <cmath>); name is the function as C++
# code would call it: extern "C" or not, qualified (ns::scale), a template's instance
# ("matmul<float, TILE>", a parameter's #define giving a template argument) or a
# template whose arguments the call deduces. C++ refuses an array whose elements differ
# in sign (int8 needs int8_t * or signed char *), as it does a pointer for an integer.
# compiler_options are the same for every configuration; with GCC a string parameter can
# choose optimisations per configuration in the source: __attribute__((optimize(OPT)))
# on the kernel, values ['"O2"', '"O3"', '"O3,unroll-loops"'].

constants:                     # named numbers the expressions may read, in order; a value
  N: 4096                      # may be an expression over earlier constants
  FLOPS: "2 * N**3"

parameters:                    # required and ORDERED: the order is the order of the space
  - name: block_size_x
    values: [16, 32, 64]       # numbers, true/false or strings (one kind per parameter)
  - name: block_size_y
    values: [1, 2, 4, 8]
  - name: tile_size_x
    values: "[2**i for i in range(0, 4)]"   # or a Python list expression, which may read
                               # the constants: "[N // 1024, N // 512]". In a plain list an
                               # unquoted name is a string, so [N] is refused: write "[N]"
# Device settings are tuned only when a spec asks for them, with parameters of these
# names (NVIDIA GPUs through NVML; setting them needs root, and ktune resets them when
# the run ends): nvml_gr_clock (locked graphics clock, MHz), nvml_mem_clock (locked
# memory clock, MHz), nvml_pwr_limit (power limit, W).
# Kernel Tuner's tune_params form is accepted too, kept in the file's order:
#   parameters: {block_size_x: [16, 32, 64], tile_size_x: "[1, 2, 4, 8]"}

restrictions:                  # Python expressions over the parameters; a configuration is
  - "block_size_x * block_size_y <= 256"    # valid when all hold (ktune help expressions)
                               # The parameters a restriction ties are enumerated together:
                               # ktune help expressions says what that costs for large spaces

problem_size: [N, N]           # 1 to 3 sizes: numbers or expressions over parameters and
                               # constants, truncated as Python's int() does (required
                               # unless grid is given, or every launch of launches gives a
                               # grid or a problem_size); one that is 0 makes a grid of no
                               # blocks, that configuration's runtime_error (not in C)

# Launch geometry, in CUDA terms: grid blocks of block threads (OpenCL's global size is
# grid * block). The block size per dimension is the parameter named in block_size_names,
# or 1 when there is no such parameter (Kernel Tuner uses 256 for a missing x; write
# block: [256] for that; an OpenCL or CUDA spec with neither is warned of).
block_size_names: [block_size_x, block_size_y, block_size_z]   # the default; 1 to 3 names
# grid = ceil(problem_size / product of grid_div), each divisor truncated with int() as
# Kernel Tuner does; a dimension without grid_div divides by its block size.
grid_div_x: [block_size_x, tile_size_x]
grid_div_y: [block_size_y]
grid_div_z: []                 # an empty list divides by 1
# Or explicit launch expressions (1 to 3 whole numbers, the rest 1) that may also read
# problem_size_x/y/z; grid excludes grid_div_*:
#   grid: ["(N + block_size_x*tile_size_x - 1) // (block_size_x*tile_size_x)", "N // 8"]
#   block: [block_size_x, 8]
shared_memory_bytes: "block_size_x * block_size_y * 4"   # CUDA only: dynamic shared memory
                               # per block, in BYTES, for the kernel's extern __shared__
                               # array (default none); OpenCL kernels get local memory
                               # from arguments of kind: local instead
# With kernel.defines each configuration is compiled with, in this order: grid_size_x/y/z,
# the block size names, every parameter, then kernel_tuner=1, as Kernel Tuner does; a
# parameter named like a derived size keeps its own value. Booleans are written 1 and 0,
# strings as they are (an empty string defines the name as nothing: -DNAME=). OpenCL
# kernels get them as #define lines ahead of their code, after the runtime's own headers;
# CUDA and host C kernels as -D options.

arguments:                     # in the kernel's parameter order. Before tuning, OpenCL
                               # kernels' (and reference kernels') declared parameters
                               # are compared with them: number, array/local/value and
                               # type (an integer may differ in sign only); a mismatch is
                               # an error at the argument's line. Host-C arrays lie
                               # between guard pages, with canaries in the slack before
                               # them: a write just past either end of an array (into the
                               # slack or the next page) fails that configuration, naming
                               # the argument (runtime_error); a write farther off may land
                               # in other memory unnoticed, as in any C program. OpenCL
                               # and CUDA arrays lie between 64 KiB of canary on either
                               # side on the device, checked after each configuration's
                               # first (verified) run and again after its timed runs: a
                               # write into one fails the configuration the same way (on
                               # a GPU such a write seldom faults); one farther off is
                               # not seen, nor one before the start where the OpenCL
                               # runtime lacks sub-buffers (OpenCL 1.0). Each array's
                               # canary is its own signalling NaN, so a kernel without
                               # its bounds check, computing y[i] = a[i] + b[i] or
                               # copying y[i] = a[i] past every array's end, fails too
  - name: C                    # required
    kind: array                # array (default) | scalar (default when value is given) |
                               # local (OpenCL only: __local memory of length elements, at
                               # least 1, per work-group, bytes = length * the type's size;
                               # CUDA kernels take shared_memory_bytes instead) | constant
                               # (CUDA only)
    type: float32              # float16 float32 float64 int8 int16 int32 int64 uint8 uint16
                               # uint32 uint64; C names (float, double, int, uint...) are
                               # accepted; a vector pointer (float4 *) takes its component
                               # type. float16 (half, __half, _Float16) is IEEE half
                               # precision, NumPy's float16: values to 65504 (a fill or
                               # value beyond is refused; integers are exact to 2048), and
                               # about 3 decimal digits (fills round to nearest even; .npy
                               # files in <f2). OpenCL kernels take a __global half *
                               # (read with vload_half, written with vstore_half: no
                               # cl_khr_fp16 needed), CUDA ones __half * (cuda_fp16.h,
                               # from the toolkit's include folder ktune gives NVRTC),
                               # host C and C++ ones _Float16 * (GCC 12 or Clang on
                               # x86-64 or AArch64). A float16 scalar needs a half
                               # parameter, which OpenCL allows only with cl_khr_fp16
    length: N * N              # arrays and local: the number of ELEMENTS, an expression over
                               # parameters, constants, problem_size_x/y/z, grid_size_x/y/z
                               # and the block size names; of a vector pointer, components:
                               # 4 * block_size_x for a __local float4 * of block_size_x
    fill: zeros                # arrays: zeros (default) | random | {random: {...}} |
                               # {constant: 1.5} | {range: {start: 0, step: 1}} | {npy: a.npy}
                               # | {from: A, start: 0, stride: 1} (another's data: below)
    output: true               # the kernel writes it; verification compares it
    # Every other array the kernel takes is an input: with verification, its contents
    # after the verified run are compared byte for byte with those it was given, and a
    # kernel that changed one fails as wrong_answer (naming the array, the first element
    # changed, its old and new values), as it would clobber its caller's data in an
    # application. The two arrays of a launch's swap are exempt (ping-pong buffers).
    # scratch: true marks an array the kernel may write, neither compared nor checked
    # (intermediate results, a counter of atomics); not with output: true
  - name: A
    type: float32
    length: N * N
    fill: {random: {distribution: uniform, low: -1, high: 1}}
    # random: uniform (default; low 0, high 1; integers: each of low..high equally likely)
    # or normal (mean 0, stddev 1 by default; clamped to low/high when given, and always
    # to the type's range: a float16 draw beyond 65504 becomes 65504); seed: a seed of its
    # own. Data depend only on the seed and the argument's name. Every array,
    # input or output, holds its data again when a configuration's first run starts (the
    # run that is verified), whatever earlier configurations did to it; the timed runs
    # after it see what the runs before them left (a scratch array the kernel changes in
    # place changes from run to run).
  - name: B
    type: float32
    length: N * N
    fill: {random: {distribution: normal, mean: 0, stddev: 1}}
    # fill: {from: A, start: 1, stride: 4} takes another array argument's data: element i
    # is A's element start + i*stride (start 0 and stride 1 by default: a copy), of the
    # data A itself gets (its fill and seed). One field of an array of structures: atoms
    # as x, y, z, charge, four floats each, give x with start 0 and charge with start 3,
    # stride 4, so that a kernel tuned over the layout (KTT's USE_SOA) reads the same
    # atoms in both. A has a fill of its own (a from fill's argument is no source: chains
    # and cycles are refused) and this argument's type, or a narrower one whose every
    # value converts exactly: float16 to float32 to float64, integers to wider ones
    # (unsigned to signed only wider), int8 and uint8 to float16, 16-bit integers to
    # float32, 32-bit ones to float64. A must hold start + (length-1)*stride + 1
    # elements: checked when the spec is read where both lengths are numbers, else at
    # each configuration, which fails (runtime_error) where A is too short.
  - name: n
    type: int32
    value: N                   # scalars: a number or an expression (the names of length)
  - name: filter
    kind: constant             # CUDA only: copied into the __constant__ array of this name
    type: float32              # before each launch (Kernel Tuner's cmem_args), not passed
    length: 17 * 17            # as an argument; length and fill as for arrays
    fill: random

# Optional: a sequence of launches in place of the kernel's one launch (KTT's kernel
# composition in its simplest form: a reduction's second pass, two kernels of BiCG,
# time steps with ping-pong buffers). kernel.name may then be left out (results name
# the first function launched). Each launch:
#   launches:
#     - kernel: step             # required: the function to launch, in kernel's source, or
#       source: step.cl          #   in a source of its own (or code:), in its language;
#                                #   every function is compiled with the configuration's
#                                #   definitions: its parameters, and grid_size_x/y/z and
#                                #   the block size names (block_size_x...) of the spec's
#                                #   launch, not of its own (the functions of one source
#                                #   are built together, once per configuration, into one
#                                #   program, module or object, which sees one value of
#                                #   each name); a function that needs its own launch's
#                                #   sizes reads them at run time (get_num_groups,
#                                #   gridDim, get_local_size, blockDim) or takes them as
#                                #   a scalar argument
#       grid: ["(N + BS - 1) // BS"]   # its own grid and block, as a reference kernel's
#       block: [BS]              #   (a block alone divides problem_size; neither: the
#                                #   spec's launch); problem_size may be left out when every
#                                #   launch gives a grid or a problem_size
#       problem_size: [H]        # or, in place of a grid, its own problem size (default:
#       grid_div_x: [BS, TILE]   #   the spec's) and grid divisors (default: its block), as
#                                #   the spec's are: grid = ceil(problem size / divisors)
#       shared_memory_bytes: BS * 4  # CUDA: its own dynamic shared memory per block
#                                #   (default: the spec's shared_memory_bytes)
#       arguments: [a, b, n]     # the spec's arguments it takes, in its parameter order
#                                #   (default: all of them), checked against its declared
#                                #   parameters as the kernel's are
#       repeat: STEPS // SPL     # launches of it, an expression over the parameters and
#                                #   constants (default 1); not a whole number of at least
#                                #   1 at a configuration fails that one (runtime_error,
#                                #   naming launches[0].repeat): restrict such values out
#       swap: [a, b]             # two arrays of one type and length exchanged between
#                                #   repetitions (ping-pong). The names follow the data:
#                                #   after the launch, and for the launches after it and
#                                #   verification, b names the buffer the last repetition
#                                #   wrote, whether the swaps were odd or even in number
#     - {kernel: total, grid: [1], block: [64], arguments: [b, sum, n]}
# One run, warm-up, verified and timed, is the whole sequence: iterations, statistic,
# timeout and min_time count sequences. OpenCL and CUDA time it by the device's events
# from the first launch's start to the last one's end (launches enqueued back to back,
# the gaps between them included); host C adds up the calls' own times. Arrays hold their data again when a
# configuration's first (verified) sequence starts, as for one kernel. Device limits
# (block size, local memory of the arguments it takes) are checked per launch: a launch
# over one makes the configuration a device_limit naming it. A reference config runs the
# sequence; a reference kernel runs once, as ever.

verification:                  # optional: check every configuration's outputs
  reference:                   # one of kernel, config or npy:
    kernel: {name: matmul_naive, source: naive.cu}
    # a reference kernel (code, compiler_options and defines as in kernel; defines: false
    # for one that defines the names itself, else it gets the kernel's setting), in the
    # kernel's language (or C for C++ on the host, and the reverse, each compiled as
    # its own): it runs on the kernel's device and takes the spec's arguments, as the
    # kernel, or those that its arguments: [C, A, B] name, in its parameter order (the
    # compared outputs among them). It runs with the launch and defines of config
    # below, else default_config, else the space's first configuration. A naive reference
    # (a thread per element) wants a launch of its own, which the tuned kernel's grid_div
    # (tiles, work per thread) would make too small:
    #   kernel: {name: matmul_naive, source: naive.cu, block: [16, 16]}
    # with block alone, grid = ceil(problem_size / block) per dimension, whatever
    # grid_div says; grid: [...] sets the grid too. Expressions as the spec's grid and
    # block, at that configuration; grid_size_x/y/z are defined from this launch.
    # Or, for an OpenCL or CUDA kernel, a plain C or C++ function (language: c or c++,
    # or implied by .c, .cpp...; openmp: true as in kernel), as KTT's reference
    # computation or a Kernel Tuner reference in Python would be: it runs once, on the
    # host through the host C backend (built with $CC, $CXX for C++), on the inputs the
    # kernel gets, with the definitions of that configuration:
    #   kernel: {name: matmul_ref, source: reference.c, arguments: [C, A, B, n]}
    # It gets arrays as pointers (constant-memory ones too) and scalars as values;
    # local memory has no meaning on the host, so a spec with kind: local arguments
    # lists the reference's arguments, leaving those out; grid and block are refused.
    # A reference that does not compile or crashes stops the run before it measures.
    # Or config alone: the tuned kernel at that configuration:
    #   config: {block_size_x: 16, block_size_y: 1, tile_size_x: 1}
    # Or expected outputs from .npy files: npy: {C: expected_C.npy}
  outputs: [C]                 # compared arguments (default: every output: true argument);
                               # an entry may be a mapping with settings of its own, which
                               # override the ones below for that output:
                               #   outputs: [C, {name: D, method: relative_norm, tolerance: 1e-5, range: N}]
  method: allclose             # how outputs are compared (got: the output, want: the
                               # reference, over the compared elements):
                               #   allclose (default): every element |got - want| <= atol
                               #     + rtol * |want|, as numpy.allclose; integers exactly
                               #   absolute_sum: sum of |got - want| <= tolerance (KTT's
                               #     AbsoluteDifference)
                               #   relative_norm: ||got - want|| / ||want|| <= tolerance,
                               #     Euclidean norms (the normwise relative error of BLAS
                               #     testers; a reference of zeros passes zeros only)
                               #   function: your own C or C++ function (function below)
                               # absolute_sum and relative_norm read integers as numbers.
                               # A NaN in the output or the reference fails under every
                               # method, even against a NaN (unless allclose's equal_nan);
                               # an infinity passes against the same infinity only (and
                               # counts in no norm)
  atol: 1.0e-6                 # allclose's tolerances (defaults 1e-6 and 1e-5); of an
  rtol: 1.0e-5                 # integer output, refused in its entry (exact comparison).
                               # float16 outputs are compared as float64, by default with
                               # atol 1e-5 and rtol 1e-3 (PyTorch's for half: its last bit
                               # is a relative 1e-3), each unless the spec gives its own
  # equal_nan: true            # allclose's: a NaN passes where the reference has a NaN
                               # at the same element (numpy.allclose's equal_nan; default
                               # false); refused with another method or for an integer
                               # output
  # tolerance: 1.0e-4          # absolute_sum's and relative_norm's, required with them
                               # (refused with allclose); a function's, by default the
                               # output type's default atol
  # function: {name: check, source: check.c}
                               # a verification function (method function, implied), Kernel
                               # Tuner's verify: in C or C++ (language, or .c, .cpp...;
                               # compiler_options and openmp as in kernel; code: inline),
                               # for every output, or in an output's entry for that one:
                               #   outputs: [{name: C, function: {name: check, source: check.c}}]
                               # It is compiled once per run on the host (the host C backend,
                               # with $CC, $CXX for C++), and called once per output and
                               # configuration after the kernel's first run, as
                               #   int check(const float *want, const float *got, long n,
                               #             double tolerance, char *message, long message_size)
                               # the pointers of the output's element type (double, _Float16,
                               # int32_t...; C++ may name a template's instance, check<float>):
                               # want the reference's elements, got the kernel's (the range's,
                               # with one), n their count. It returns 0 when the output passes;
                               # otherwise the output fails verification, with the message it
                               # wrote (NUL-terminated, at most message_size bytes) if any. A
                               # declaration the call does not fit (another element type, int
                               # n, a float result) is a compile error naming the function and
                               # this signature; a function that does not compile stops the
                               # run before it measures. One that crashes or hangs costs the
                               # configuration (runtime_error or timeout, naming the function)
                               # as a kernel that does, and a fresh worker goes on
# An entry of outputs may also give a range: the elements compared, a length (range: N,
# the first N: KTT's SetValidationRange) or [start, end) (range: [N // 2, N]), whole
# numbers or expressions over the constants, within the output's length; the rest of the
# output is not compared, and may differ in length between configurations. A failure
# names the output (C[0:1000] with a range), the method and its tolerance, and the worst
# element (index, got, want): a wrong kernel differs by far more than the tolerance.

metrics:                       # derived results, in order; a metric named like an identifier
  - name: GFLOP/s              # may be read by later ones. They read parameters, constants,
    expr: "FLOPS / (time / 1e3) / 1e9"   # problem, grid and block sizes and time (ms)
    maximize: true             # higher is better; false: lower is better. Not written, the
                               # name decides, as for imported files' objectives: a rate (a
                               # name with FLOPS, throughput or bandwidth, or ending in /s,
                               # /sec, /second, per_s, per_sec, per_second, bps or /W, case
                               # aside: GB/s, GFLOP/s, GFLOPS/W, gbps) is maximised, anything
                               # else (score, ns/step) minimised
  - name: GFLOPS/W             # metrics may read what the device observes beside time:
    expr: "FLOPS / (time / 1e3) / 1e9 / power"   # energy (J per run), power (W),
    maximize: true             # core_clock and memory_clock (MHz): NVIDIA GPUs through
                               # NVML; registers (per thread) and shared_memory (bytes per
                               # block): CUDA. Reading energy or power
                               # runs each configuration back to back for at least 0.2 s;
                               # reading any of them on another backend is refused.
# Kernel Tuner's form is accepted too, a mapping from names to expressions or to {expr,
# maximize}, kept in the file's order:
#   metrics: {GFLOP/s: "FLOPS / (time / 1e3) / 1e9", score: {expr: "...", maximize: true}}
# A metric that cannot be computed for a configuration (division by zero) is left out of
# its results, which say so ("metrics left out: ..."); when the objective needs it, the
# configuration fails (runtime_error).
essential_ops:                 # optional: what the task essentially needs (seed 003, Table 4),
  bytes: 3 * 4 * N * N         # the bytes it must move and/or the flops it must compute,
  flops: FLOPS                 # expressions over the constants, however many more a
  precision: float32           # configuration spends; precision (float32, the default,
                               # float64 or float16) picks the device's ALU peak. With the
                               # device's peaks (derived, or --peak-gflops / --peak-gbs) tune
                               # and report give the efficiency of seed 003's eq. 2:
                               # 100 * max(bytes/time / GB/s peak, flops/time / GFLOP/s peak);
                               # tune --stop-within-peak 0.75 stops once a configuration
                               # reaches 75% of the peak (seed 003's well-performing one).
                               # A kernel no peak suits says why instead:
                               #   essential_ops: {excluded: "memory latency-bound"}
objective: GFLOP/s             # time (default; lower is better), a metric in its direction
                               # ('ktune tune' says which: higher or lower is better),
                               # or an observable (energy, power: lower is better)

iterations: 32                 # timed runs per configuration (default 32, at least 1)
statistic: mean                # mean (default) | median | min of the runs: on a busy
                               # machine the minimum moves least from run to run; the
                               # median ignores outliers, which the mean (Kernel Tuner's
                               # time) takes in
min_time: 10ms                 # optional (default 0, off): runs whose iterations are over
                               # sooner go on, iterations runs at a time, until the timed
                               # runs have lasted this long by the clock (launches included),
                               # at most 10000 runs and never past the timeout; the runs are
                               # then cut in iterations batches of consecutive runs, each
                               # sample its batch's statistic (the samples' mean or min is
                               # every run's; exports' times, Kernel Tuner's "times" and
                               # T4's runtimes, are these samples), and the result says
                               # "timed over 3200 runs for min_time 10ms: each of its 32
                               # samples is the mean of 100 consecutive runs"; the store
                               # keeps that 100 with the evaluation (its runs per sample,
                               # 1 without min_time). For kernels of microseconds, whose
                               # launches jitter (with statistic: min, 50ms steadied the
                               # ranking of a 0.3 µs PoCL kernel); a configuration whose
                               # iterations last min_time is unchanged.
                               # Off by default: on PoCL such a kernel takes 3 µs, not 0.3,
                               # after a few hundred runs back to back, which a mean then
                               # measures
timeout: 10s                   # per configuration, a Go duration (default 10s): from the
                               # kernel's first launch to its last timed run, verification
                               # included; a kernel still running is killed (status timeout).
                               # A kernel too slow for all its iterations in it is timed
                               # over those that fit (at least one), and its result says
                               # "timed over 5 of the spec's 32 iterations"
compile_timeout: 5m            # per configuration (default 5m): building the kernel; a
                               # compiler still at work is killed (status timeout)
                               # Neither limit counts time ktune was stopped (SIGSTOP and
                               # SIGCONT, a batch scheduler's suspend, Ctrl-Z) for over a
                               # second; a configuration measured across such a stop is
                               # measured again, once
default_config:                # optional baseline for speedups: every parameter, with one
  block_size_x: 32             # of its values, satisfying the restrictions
  block_size_y: 2
  tile_size_x: 1
seed: 0                        # seed of generated input data (default 0)
...

Errors name the file, line and field (spec.yaml:42: arguments[2].length) and say what is
expected; unknown names suggest the closest known one.
`
