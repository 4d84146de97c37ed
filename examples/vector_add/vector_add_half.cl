// Vector addition in half precision, c = a + b over n halves, with a tunable work-group
// size and number of elements per work-item. The arrays are IEEE half precision
// (float16); each element is loaded as a float with vload_half, added in float and
// stored rounded to the nearest half with vstore_half. These need no cl_khr_fp16: OpenCL
// C 1.2 allows half pointers for them on every device (half arithmetic and half4 do not).
__kernel void vector_add_half(__global half *c, __global const half *a, __global const half *b, const int n) {
    int i = (get_group_id(0) * block_size_x * tile_size_x) + get_local_id(0);
    #pragma unroll
    for (int t = 0; t < tile_size_x; t++) {
        int k = i + t * block_size_x;
        if (k < n) {
            vstore_half(vload_half(k, a) + vload_half(k, b), k, c);
        }
    }
}
