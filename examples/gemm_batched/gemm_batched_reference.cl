// Naive reference for gemm_batched.cl: one element of C per work-item, at a launch of its
// own (SIZE_N x SIZE_M work-items per matrix, a work-group per matrix).
__kernel void gemm_batched_reference(__global const float *A, __global const float *B, __global float *C) {
    const int c = get_local_id(0), r = get_local_id(1), b = get_group_id(2);
    float sum = 0.0f;
    for (int k = 0; k < SIZE_K; k++) {
        sum += A[(b * SIZE_M + r) * SIZE_K + k] * B[(b * SIZE_K + k) * SIZE_N + c];
    }
    C[(b * SIZE_M + r) * SIZE_N + c] = sum;
}
