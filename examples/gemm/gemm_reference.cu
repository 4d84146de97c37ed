// Naive reference for gemm.cu (same layout: A(m,k) = A[k*M + m], B(k,n) = B[k*N + n],
// C(m,n) = C[n*M + m]). Grid-stride loops cover the whole matrix with any launch
// geometry, so ktune may launch it with the geometry of the reference configuration.
// Sums in float, in k order.
extern "C" __global__ void gemm_reference(float *C, const float *A, const float *B,
                                          const int M, const int N, const int K)
{
    for (int n = blockIdx.y * blockDim.y + threadIdx.y; n < N; n += gridDim.y * blockDim.y) {
        for (int m = blockIdx.x * blockDim.x + threadIdx.x; m < M; m += gridDim.x * blockDim.x) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++) {
                sum += A[k * M + m] * B[k * N + n];
            }
            C[n * M + m] = sum;
        }
    }
}
