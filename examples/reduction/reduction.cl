// The sum of n floats in one launch, in the spirit of KTT's reduction benchmark.
//
// Every work-item first sums a share of the input in registers, in vectors of VECTOR_SIZE
// floats; the work-group then halves its WORK_GROUP_SIZE_X partial sums in local memory
// until one is left, and that one is added to sum[0] atomically. OpenCL 1.2 has atomic
// adds for integers only, so the float add is a compare-and-swap loop on the float's bits
// (atomic_cmpxchg); reduction_two_pass.cl finishes the sum from per-group partials in a
// second launch instead.
//
// Tunable parameters (defined by ktune):
//   WORK_GROUP_SIZE_X  work-items per group, a power of two (the local tree halves it)
//   UNBOUNDED_WG       1: one vector per work-item, as many groups as that takes;
//                      0: a fixed number of groups, WG_NUM, each work-item striding over
//                      the input a whole launch apart
//   WG_NUM             the number of groups when UNBOUNDED_WG is 0 (0 otherwise)
//   VECTOR_SIZE        floats per load: 1 (float) or 2, 4, 8, 16 (vloadN)
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if VECTOR_SIZE == 1
#define vec float
#define LOAD(i, p) ((p)[i])
#else
#define vec XCAT(float, VECTOR_SIZE)
#define LOAD(i, p) XCAT(vload, VECTOR_SIZE)(i, p)
#endif

// The sum of a vector's components, halving it.
inline float horizontal_sum(vec v) {
#if VECTOR_SIZE == 16
    float8 v8 = v.lo + v.hi;
#elif VECTOR_SIZE == 8
    float8 v8 = v;
#endif
#if VECTOR_SIZE >= 8
    float4 v4 = v8.lo + v8.hi;
#elif VECTOR_SIZE == 4
    float4 v4 = v;
#endif
#if VECTOR_SIZE >= 4
    float2 v2 = v4.lo + v4.hi;
#elif VECTOR_SIZE == 2
    float2 v2 = v;
#endif
#if VECTOR_SIZE >= 2
    return v2.x + v2.y;
#else
    return v;
#endif
}

// *p += v, atomically, by retrying until no other work-item changed *p in between.
inline void atomic_add_float(volatile __global float *p, float v) {
    union { unsigned int u; float f; } old, sum;
    do {
        old.f = *p;
        sum.f = old.f + v;
    } while (atomic_cmpxchg((volatile __global unsigned int *)p, old.u, sum.u) != old.u);
}

__kernel __attribute__((reqd_work_group_size(WORK_GROUP_SIZE_X, 1, 1)))
void reduce(__global const float *in, __global float *sum, const int n) {
    __local float part[WORK_GROUP_SIZE_X];
    const int lid = get_local_id(0);
    const int vectors = n / VECTOR_SIZE;
    vec acc = 0.0f;
#if UNBOUNDED_WG
    const int i = get_global_id(0);
    if (i < vectors) {
        acc = LOAD(i, in);
    }
#else
    for (int i = get_global_id(0); i < vectors; i += get_global_size(0)) {
        acc += LOAD(i, in);
    }
#endif
    float mine = horizontal_sum(acc);
    if (get_global_id(0) == 0) { // the floats past the last whole vector
        for (int i = vectors * VECTOR_SIZE; i < n; i++) {
            mine += in[i];
        }
    }
    part[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = WORK_GROUP_SIZE_X / 2; step > 0; step /= 2) {
        if (lid < step) {
            part[lid] += part[lid + step];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        atomic_add_float(sum, part[0]);
    }
}
