// Naive reference for convolution.cl: one output pixel at a time, grid-stride loops so
// that any launch geometry covers the whole image. filter_width and filter_height come
// from the #defines of the reference configuration.
__kernel void convolution_reference(__global float *output, const __global float *input,
                                    __constant float *filter, const int W, const int H)
{
    const int IW = W + filter_width - 1;
    for (int y = get_global_id(1); y < H; y += get_global_size(1)) {
        for (int x = get_global_id(0); x < W; x += get_global_size(0)) {
            float sum = 0.0f;
            for (int fy = 0; fy < filter_height; fy++) {
                for (int fx = 0; fx < filter_width; fx++) {
                    sum += input[(y + fy) * IW + x + fx] * filter[fy * filter_width + fx];
                }
            }
            output[y * W + x] = sum;
        }
    }
}
