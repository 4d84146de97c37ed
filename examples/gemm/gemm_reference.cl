// Naive reference for gemm.cl (same layout: A(m,k) = A[k*M + m], B(k,n) = B[k*N + n],
// C(m,n) = C[n*M + m]). It works with any launch geometry: each work-item computes the
// elements of C at its global id strided by the global size, so ktune may launch it with
// the geometry of the reference configuration. Sums in float, in k order.
__kernel void gemm_reference(__global float *C, const __global float *A, const __global float *B,
                             const int M, const int N, const int K)
{
    for (int n = get_global_id(1); n < N; n += get_global_size(1)) {
        for (int m = get_global_id(0); m < M; m += get_global_size(0)) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++) {
                sum += A[k * M + m] * B[k * N + n];
            }
            C[n * M + m] = sum;
        }
    }
}
