// The sum of n floats in two launches: reduce_partial leaves one partial sum per
// work-group, reduce_final adds the partial sums in one work-group. Unlike reduction.cl's
// single launch, no atomics: the second launch reads what the first wrote, which the
// launches of a spec run one after the other.
//
// Tunable parameters (defined by ktune for both kernels):
//   WORK_GROUP_SIZE_X  work-items per group of the first launch, a power of two
//   WG_NUM             groups of the first launch, and so partial sums; each work-item
//                      strides over the input a whole launch apart
//   VECTOR_SIZE        floats per load in the first launch: 1 (float) or 2, 4, 8 (vloadN)
//   FINAL_WG_SIZE      work-items of the second launch's one group, a power of two
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if VECTOR_SIZE == 1
#define vec float
#define LOAD(i, p) ((p)[i])
#else
#define vec XCAT(float, VECTOR_SIZE)
#define LOAD(i, p) XCAT(vload, VECTOR_SIZE)(i, p)
#endif

// The sum of a vector's components.
inline float components(vec v) {
#if VECTOR_SIZE == 8
    float4 v4 = v.lo + v.hi;
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

// Halves the group's size values in part until part[0] holds their sum.
inline float tree(__local float *part, const int size) {
    const int lid = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = size / 2; step > 0; step /= 2) {
        if (lid < step) {
            part[lid] += part[lid + step];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return part[0];
}

__kernel __attribute__((reqd_work_group_size(WORK_GROUP_SIZE_X, 1, 1)))
void reduce_partial(__global const float *in, __global float *partial, const int n) {
    __local float part[WORK_GROUP_SIZE_X];
    const int vectors = n / VECTOR_SIZE;
    vec acc = 0.0f;
    for (int i = get_global_id(0); i < vectors; i += get_global_size(0)) {
        acc += LOAD(i, in);
    }
    float mine = components(acc);
    if (get_global_id(0) == 0) { // the floats past the last whole vector
        for (int i = vectors * VECTOR_SIZE; i < n; i++) {
            mine += in[i];
        }
    }
    part[get_local_id(0)] = mine;
    const float sum = tree(part, WORK_GROUP_SIZE_X);
    if (get_local_id(0) == 0) {
        partial[get_group_id(0)] = sum;
    }
}

__kernel __attribute__((reqd_work_group_size(FINAL_WG_SIZE, 1, 1)))
void reduce_final(__global const float *partial, __global float *sum, const int groups) {
    __local float part[FINAL_WG_SIZE];
    float mine = 0.0f;
    for (int i = get_local_id(0); i < groups; i += FINAL_WG_SIZE) {
        mine += partial[i];
    }
    part[get_local_id(0)] = mine;
    const float total = tree(part, FINAL_WG_SIZE);
    if (get_local_id(0) == 0) {
        sum[0] = total;
    }
}
