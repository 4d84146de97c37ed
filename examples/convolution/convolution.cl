// Tunable 2D convolution (correlation, as in image filtering) for the ktune examples:
//
//   output[y][x] = sum over fy < filter_height, fx < filter_width of
//                  input[y + fy][x + fx] * filter[fy][fx]
//
// output is W x H, input is (W + filter_width - 1) x (H + filter_height - 1) (the border
// is part of the input), filter is filter_width x filter_height; all row-major, x fastest.
//
// Tuning parameters (#defines injected by ktune):
//   block_size_x, block_size_y  work-group size
//   tile_size_x, tile_size_y    output pixels per work-item in x and y; a work-item's pixels
//                               are block_size_x (block_size_y) apart, so that neighbouring
//                               work-items always touch neighbouring pixels
//   use_shmem    1: the work-group first stages its input tile, (block_size_x*tile_size_x +
//                filter_width - 1) x (block_size_y*tile_size_y + filter_height - 1) floats,
//                in __local memory and computes from there; 0: every work-item reads its
//                inputs from global memory (relying on caches)
//   use_padding  1: pad every __local row so that its length is 16 modulo 32 floats. When
//                the block is an odd multiple of 16 wide, a 32-wide warp or wavefront spans
//                two rows of the block; the padding puts the two half-rows in different
//                banks (32 banks of 4 bytes). Only meaningful with use_shmem.
//   read_only_input
//                1: the input pointer is `const __global float *restrict`: the compiler may
//                assume it is never written and never aliased, so GPU compilers may route
//                its loads through the read-only/texture cache (what __ldg does in CUDA);
//                0: a plain `__global float *`. (Kernel Tuner's CUDA benchmark calls it
//                read_only; in OpenCL read_only is an image access qualifier that the
//                runtime's own headers use, so a `-Dread_only=...` breaks every kernel.)
//   filter_width, filter_height  the filter size (single-valued parameters, so that loops
//                and the local tile have compile-time bounds)
// The filter is always in __constant memory (Kernel Tuner's use_cmem=1).
// W and H need not be multiples of the tile: partial tiles are handled.

#if read_only_input
#define INPUT_PTR const __global float *restrict
#else
#define INPUT_PTR __global float *
#endif

#define TILE_W (block_size_x * tile_size_x)              // output pixels per work-group in x
#define TILE_H (block_size_y * tile_size_y)
#define SH_W (TILE_W + filter_width - 1)                 // input tile staged in local memory
#define SH_H (TILE_H + filter_height - 1)
#if use_padding
#define SH_STRIDE (SH_W + ((16 - SH_W % 32) + 32) % 32)  // row stride = 16 (mod 32)
#else
#define SH_STRIDE SH_W
#endif

__kernel __attribute__((reqd_work_group_size(block_size_x, block_size_y, 1)))
void convolution(__global float *output, INPUT_PTR input, __constant float *filter,
                 const int W, const int H)
{
#if use_shmem
    __local float sh[SH_H * SH_STRIDE];
#endif
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int x0 = get_group_id(0) * TILE_W;   // this work-group's first output pixel
    const int y0 = get_group_id(1) * TILE_H;
    const int IW = W + filter_width - 1;       // input row length
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
    barrier(CLK_LOCAL_MEM_FENCE);
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
