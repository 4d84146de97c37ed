// Naive reference for transpose.cl: one work-item per element, launched at its own
// geometry (one work-item per input element).
__kernel void transpose_reference(__global float *out, __global const float *in, const int W, const int H) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < W && y < H) {
        out[x * H + y] = in[y * W + x];
    }
}
