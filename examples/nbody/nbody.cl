// One time step's force accumulation of an N-body simulation in OpenCL: the acceleration
// of every body from the gravity of all the others, softened by eps2 (so that a body's
// pull on itself is zero). A body is four floats, x, y, z and mass; the output holds
// float4s (ax, ay, az, 0).
//
// Tunable parameters (defined by ktune):
//   WORK_GROUP_SIZE_X    work-items per group
//   OUTER_UNROLL_FACTOR  bodies per work-item (a work-group apart), each pulled by every
//                        body read, so that a read serves several bodies
//   INNER_UNROLL_FACTOR  the loop over the pulling bodies unrolled by this factor (0: no
//                        pragma, the compiler's choice)
//   LOCAL_MEM            1: the work-group stages WORK_GROUP_SIZE_X pulling bodies at a
//                        time in local memory; 0: every work-item reads them from global
//                        memory
//   VECTOR_TYPE          pulling bodies per load: 1 (float4), 2 (float8) or 4 (float16);
//                        of the structure of arrays, 1, 2 or 4 floats from each array
//   USE_SOA              1: the bodies are read from four arrays (body_x, body_y, body_z,
//                        body_mass); 0: from bodies, an array of structures (x, y, z,
//                        mass); the spec gives both the same bodies
//
// N must be a multiple of WORK_GROUP_SIZE_X * OUTER_UNROLL_FACTOR (a restriction of the
// spec).
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define PRAGMA(x) _Pragma(#x)
#define UNROLL_BY(n) PRAGMA(unroll n)
#if INNER_UNROLL_FACTOR > 0
#define INNER_UNROLL UNROLL_BY(INNER_UNROLL_FACTOR)
#else
#define INNER_UNROLL
#endif

#if VECTOR_TYPE == 1
#define vec float4
#define VLOAD vload4
#define VSTORE vstore4
#define PULL_ALL(v) PULL(v)
#elif VECTOR_TYPE == 2
#define vec float8
#define VLOAD vload8
#define VSTORE vstore8
#define PULL_ALL(v) PULL((v).lo); PULL((v).hi)
#elif VECTOR_TYPE == 4
#define vec float16
#define VLOAD vload16
#define VSTORE vstore16
#define PULL_ALL(v) PULL((v).lo.lo); PULL((v).lo.hi); PULL((v).hi.lo); PULL((v).hi.hi)
#endif

// LOAD_BODIES(j) is VECTOR_TYPE pulling bodies from body j on, from global memory, as
// float4s (x, y, z, mass) in a vec, whatever the layout
#if USE_SOA
#if VECTOR_TYPE == 1
#define LOAD_BODIES(j) ((float4)(body_x[j], body_y[j], body_z[j], body_mass[j]))
#elif VECTOR_TYPE == 2
#define LOAD_BODIES(j) interleave2(vload2(0, body_x + (j)), vload2(0, body_y + (j)), vload2(0, body_z + (j)), vload2(0, body_mass + (j)))
#elif VECTOR_TYPE == 4
#define LOAD_BODIES(j) interleave4(vload4(0, body_x + (j)), vload4(0, body_y + (j)), vload4(0, body_z + (j)), vload4(0, body_mass + (j)))
#endif
#define POSITION(i) ((float3)(body_x[i], body_y[i], body_z[i]))
#else
#define LOAD_BODIES(j) VLOAD(0, bodies + (j) * 4)
#define POSITION(i) vload4(i, bodies).xyz
#endif

inline float8 interleave2(float2 x, float2 y, float2 z, float2 m) {
    return (float8)(x.s0, y.s0, z.s0, m.s0, x.s1, y.s1, z.s1, m.s1);
}

inline float16 interleave4(float4 x, float4 y, float4 z, float4 m) {
    return (float16)(x.s0, y.s0, z.s0, m.s0, x.s1, y.s1, z.s1, m.s1,
                     x.s2, y.s2, z.s2, m.s2, x.s3, y.s3, z.s3, m.s3);
}

// the pull of body b (x, y, z, mass) on each of the work-item's bodies
#define PULL(b)                                                     \
    do {                                                            \
        const float4 b_ = (b);                                      \
        for (int k = 0; k < OUTER_UNROLL_FACTOR; k++) {             \
            const float3 d = b_.xyz - pos[k];                       \
            const float inv = rsqrt(dot(d, d) + eps2);              \
            acc[k] += d * (b_.w * inv * inv * inv);                 \
        }                                                           \
    } while (0)

__kernel __attribute__((reqd_work_group_size(WORK_GROUP_SIZE_X, 1, 1)))
void nbody(__global const float *bodies, __global const float *body_x, __global const float *body_y,
           __global const float *body_z, __global const float *body_mass, __global float4 *accel,
           const int n, const float eps2) {
    const int lx = get_local_id(0);
    const int first = get_group_id(0) * WORK_GROUP_SIZE_X * OUTER_UNROLL_FACTOR + lx;
    float3 pos[OUTER_UNROLL_FACTOR], acc[OUTER_UNROLL_FACTOR];
    for (int k = 0; k < OUTER_UNROLL_FACTOR; k++) {
        pos[k] = POSITION(first + k * WORK_GROUP_SIZE_X);
        acc[k] = 0.0f;
    }
#if LOCAL_MEM
    __local float tile[WORK_GROUP_SIZE_X * 4];
    for (int t = 0; t < n; t += WORK_GROUP_SIZE_X) {
        for (int b = lx * VECTOR_TYPE; b < WORK_GROUP_SIZE_X; b += WORK_GROUP_SIZE_X * VECTOR_TYPE) {
            VSTORE(LOAD_BODIES(t + b), 0, tile + b * 4);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        INNER_UNROLL
        for (int j = 0; j < WORK_GROUP_SIZE_X; j += VECTOR_TYPE) {
            const vec v = VLOAD(0, tile + j * 4);
            PULL_ALL(v);
        }
        barrier(CLK_LOCAL_MEM_FENCE); // the tile is overwritten next
    }
#else
    // the same tiles, read from global memory: the unrolled loop has a known length
    for (int t = 0; t < n; t += WORK_GROUP_SIZE_X) {
        INNER_UNROLL
        for (int j = 0; j < WORK_GROUP_SIZE_X; j += VECTOR_TYPE) {
            const vec v = LOAD_BODIES(t + j);
            PULL_ALL(v);
        }
    }
#endif
    for (int k = 0; k < OUTER_UNROLL_FACTOR; k++) {
        accel[first + k * WORK_GROUP_SIZE_X] = (float4)(acc[k], 0.0f);
    }
}
