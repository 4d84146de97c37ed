// Batched GEMM of small matrices in OpenCL: C[b] = A[b] * B[b] for every b of a batch,
// A[b] SIZE_M x SIZE_K, B[b] SIZE_K x SIZE_N and C[b] SIZE_M x SIZE_N, each row by row,
// the matrices of a batch one after the other. The sizes are single-valued parameters, so
// that the kernel sees them as constants.
//
// A work-group is SIZE_N x GROUP_SIZE_Y x GROUP_SIZE_Z work-items: x is a column of C,
// GROUP_SIZE_Y work-items share a matrix's rows (SIZE_M / GROUP_SIZE_Y rows each, a
// GROUP_SIZE_Y apart), and the group multiplies GROUP_SIZE_Z matrices at once.
//
// Tunable parameters (defined by ktune):
//   GROUP_SIZE_Y   work-items per column of a matrix (work-item coarsening)
//   GROUP_SIZE_Z   matrices per work-group
//   CACHE_A        1: the group's A matrices are first copied into local memory
//   PAD_A          1: the local rows of A are one float longer (with CACHE_A only)
//   CACHE_B        1: the group's B matrices are first copied into local memory
//   CACHE_C        1: the results are gathered in local memory and written out by the whole
//                  group as one contiguous block; 0: each work-item writes its own
//   UNROLL_K       1: the loop over k is unrolled fully
#define PRAGMA(x) _Pragma(#x)
#if UNROLL_K
#define K_LOOP PRAGMA(unroll)
#else
#define K_LOOP PRAGMA(nounroll)
#endif
#define A_STRIDE (SIZE_K + PAD_A)
#define GROUP_ITEMS (SIZE_N * GROUP_SIZE_Y * GROUP_SIZE_Z)

__kernel __attribute__((reqd_work_group_size(SIZE_N, GROUP_SIZE_Y, GROUP_SIZE_Z)))
void gemm_batched(__global const float *A, __global const float *B, __global float *C) {
    const int x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);
    const int first = get_group_id(2) * GROUP_SIZE_Z; // the group's first matrix
    const int lid = (z * GROUP_SIZE_Y + y) * SIZE_N + x;
    const int b = first + z;
#if CACHE_A
    __local float la[GROUP_SIZE_Z * SIZE_M * A_STRIDE];
    for (int i = lid; i < GROUP_SIZE_Z * SIZE_M * SIZE_K; i += GROUP_ITEMS) {
        const int row = i / SIZE_K; // of all the group's A rows
        la[row * A_STRIDE + i % SIZE_K] = A[first * SIZE_M * SIZE_K + i];
    }
#define A_AT(r, k) la[(z * SIZE_M + (r)) * A_STRIDE + (k)]
#else
#define A_AT(r, k) A[(b * SIZE_M + (r)) * SIZE_K + (k)]
#endif
#if CACHE_B
    __local float lb[GROUP_SIZE_Z * SIZE_K * SIZE_N];
    for (int i = lid; i < GROUP_SIZE_Z * SIZE_K * SIZE_N; i += GROUP_ITEMS) {
        lb[i] = B[first * SIZE_K * SIZE_N + i];
    }
#define B_AT(k, c) lb[(z * SIZE_K + (k)) * SIZE_N + (c)]
#else
#define B_AT(k, c) B[(b * SIZE_K + (k)) * SIZE_N + (c)]
#endif
#if CACHE_A || CACHE_B
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#if CACHE_C
    __local float lc[GROUP_SIZE_Z * SIZE_M * SIZE_N];
#endif
    for (int r = y; r < SIZE_M; r += GROUP_SIZE_Y) {
        float sum = 0.0f;
        K_LOOP
        for (int k = 0; k < SIZE_K; k++) {
            sum += A_AT(r, k) * B_AT(k, x);
        }
#if CACHE_C
        lc[(z * SIZE_M + r) * SIZE_N + x] = sum;
#else
        C[(b * SIZE_M + r) * SIZE_N + x] = sum;
#endif
    }
#if CACHE_C
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < GROUP_SIZE_Z * SIZE_M * SIZE_N; i += GROUP_ITEMS) {
        C[first * SIZE_M * SIZE_N + i] = lc[i];
    }
#endif
}
