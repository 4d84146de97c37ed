// Vector addition in CUDA over half-precision arrays, c = a + b over n halves (the CUDA
// version of vector_add_half.cl): each element is widened to float, added in float and
// rounded to the nearest half. block_size_x and tile_size_x arrive as #defines;
// cuda_fp16.h comes from the CUDA toolkit's include folder, which ktune gives NVRTC.
#include <cuda_fp16.h>

extern "C" __global__ void vector_add_half(__half *c, const __half *a, const __half *b, const int n) {
    int i = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
    #pragma unroll
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
        if (k < n) {
            c[k] = __float2half_rn(__half2float(a[k]) + __half2float(b[k]));
        }
    }
}
