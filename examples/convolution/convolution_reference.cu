// Naive reference for convolution.cu: one output pixel at a time, grid-stride loops so
// that any launch geometry covers the whole image. filter_width and filter_height come
// from the #defines of the reference configuration; the filter is the same __constant__
// array, which ktune fills for the reference too.
__constant__ float filter[filter_height * filter_width];

extern "C" __global__ void convolution_reference(float *output, const float *input, const int W, const int H)
{
    const int IW = W + filter_width - 1;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < H; y += gridDim.y * blockDim.y) {
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < W; x += gridDim.x * blockDim.x) {
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
