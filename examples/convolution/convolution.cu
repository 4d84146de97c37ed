// Tunable 2D convolution in CUDA: the CUDA version of convolution.cl, with the same
// parameters and restrictions (see convolution.cl for what each one does).
//
//   output[y][x] = sum over fy < filter_height, fx < filter_width of
//                  input[y + fy][x + fx] * filter[fy][fx]
//
// output is W x H, input is (W + filter_width - 1) x (H + filter_height - 1), all
// row-major. The filter is a __constant__ array that ktune fills before each launch (the
// spec's argument of kind constant, Kernel Tuner's cmem_args), as in Kernel Tuner's
// convolution benchmark.

__constant__ float filter[filter_height * filter_width];

#if read_only_input
#define INPUT_PTR const float *__restrict__   // loads may go through the read-only cache
#else
#define INPUT_PTR float *
#endif

#define TILE_W (block_size_x * tile_size_x)              // output pixels per block in x
#define TILE_H (block_size_y * tile_size_y)
#define SH_W (TILE_W + filter_width - 1)                 // input tile staged in shared memory
#define SH_H (TILE_H + filter_height - 1)
#if use_padding
#define SH_STRIDE (SH_W + ((16 - SH_W % 32) + 32) % 32)  // row stride = 16 (mod 32)
#else
#define SH_STRIDE SH_W
#endif

extern "C" __global__ void __launch_bounds__(block_size_x * block_size_y)
convolution(float *output, INPUT_PTR input, const int W, const int H)
{
#if use_shmem
    __shared__ float sh[SH_H * SH_STRIDE];
#endif
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int x0 = blockIdx.x * TILE_W;   // this block's first output pixel
    const int y0 = blockIdx.y * TILE_H;
    const int IW = W + filter_width - 1;  // input row length
    const int IH = H + filter_height - 1;

    float sum[tile_size_y][tile_size_x];
    #pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
        #pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++) {
            sum[yi][xi] = 0.0f;
        }
    }

#if use_shmem
    // Stage the input tile (zeros past the input's edge, which only pixels outside the
    // output read).
    for (int i = ty; i < SH_H; i += block_size_y) {
        for (int j = tx; j < SH_W; j += block_size_x) {
            const int y = y0 + i, x = x0 + j;
            sh[i * SH_STRIDE + j] = (y < IH && x < IW) ? input[y * IW + x] : 0.0f;
        }
    }
    __syncthreads();
    for (int fy = 0; fy < filter_height; fy++) {
        for (int fx = 0; fx < filter_width; fx++) {
            const float f = filter[fy * filter_width + fx];
            #pragma unroll
            for (int yi = 0; yi < tile_size_y; yi++) {
                #pragma unroll
                for (int xi = 0; xi < tile_size_x; xi++) {
                    sum[yi][xi] += sh[(ty + yi * block_size_y + fy) * SH_STRIDE + tx + xi * block_size_x + fx] * f;
                }
            }
        }
    }
#else
    // Pixels outside the output compute on a clamped position (and are not stored), so
    // that the inner loop needs no bounds checks.
    int row[tile_size_y], col[tile_size_x];
    #pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
        row[yi] = min(y0 + ty + yi * block_size_y, H - 1) * IW;
    }
    #pragma unroll
    for (int xi = 0; xi < tile_size_x; xi++) {
        col[xi] = min(x0 + tx + xi * block_size_x, W - 1);
    }
    for (int fy = 0; fy < filter_height; fy++) {
        for (int fx = 0; fx < filter_width; fx++) {
            const float f = filter[fy * filter_width + fx];
            #pragma unroll
            for (int yi = 0; yi < tile_size_y; yi++) {
                #pragma unroll
                for (int xi = 0; xi < tile_size_x; xi++) {
                    sum[yi][xi] += input[row[yi] + fy * IW + col[xi] + fx] * f;
                }
            }
        }
    }
#endif

    #pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
        const int y = y0 + ty + yi * block_size_y;
        #pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++) {
            const int x = x0 + tx + xi * block_size_x;
            if (x < W && y < H) {
                output[y * W + x] = sum[yi][xi];
            }
        }
    }
}
