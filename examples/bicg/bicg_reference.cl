// Naive reference for bicg.cl: work-item i computes q[i] (a row of A times p) and s[i]
// (a column of A times r), each a plain loop, on a launch of its own covering
// max(M, N) work-items.
__kernel void bicg_reference(__global const float *A, __global const float *p, __global const float *r,
                             __global float *q, __global float *s, const int M, const int N) {
    const int i = get_global_id(0);
    if (i < M) {
        float sum = 0.0f;
        for (int j = 0; j < N; j++) {
            sum += A[i * N + j] * p[j];
        }
        q[i] = sum;
    }
    if (i < N) {
        float sum = 0.0f;
        for (int k = 0; k < M; k++) {
            sum += A[k * N + i] * r[k];
        }
        s[i] = sum;
    }
}
