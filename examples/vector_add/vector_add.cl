// Vector addition with a tunable work-group size and number of elements per work-item.
__kernel void vector_add(__global float *c, __global const float *a, __global const float *b, const int n) {
    int i = (get_group_id(0) * block_size_x * tile_size_x) + get_local_id(0);
    #pragma unroll
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
        if (k < n) {
            c[k] = a[k] + b[k];
        }
    }
}
