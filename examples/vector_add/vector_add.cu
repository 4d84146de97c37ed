// Vector addition in CUDA with a tunable block size and number of elements per thread
// (the CUDA version of vector_add.cl). block_size_x and tile_size_x arrive as #defines.
extern "C" __global__ void vector_add(float *c, const float *a, const float *b, const int n) {
    int i = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
    #pragma unroll
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
        if (k < n) {
            c[k] = a[k] + b[k];
        }
    }
}
