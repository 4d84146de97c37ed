// A 2D 5-point Jacobi stencil in OpenCL: out = c0 * in + c1 * (north + south + east + west)
// on an nx x ny grid stored row by row; the edge cells are copied unchanged.
//
// Tunable parameters (defined by ktune with -D):
//   block_size_x, block_size_y  the work-group (the launch's local size)
//   tile_x, tile_y              outputs per work-item in x and y, a work-group apart, so that
//                               neighbouring work-items touch neighbouring cells
//   use_local                   1: the work-group first copies its tile of the input, with
//                               a one-cell border, into local memory (`tile`, sized by the
//                               spec for the configuration) and reads the neighbours there;
//                               0: every read goes to global memory
__kernel void stencil5(__global float *out, __global const float *in, const int nx,
                       const int ny, const float c0, const float c1, __local float *tile) {
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = get_group_id(0) * block_size_x * tile_x; // the tile's first cell
    const int by = get_group_id(1) * block_size_y * tile_y;
#if use_local
    const int tw = block_size_x * tile_x + 2; // the staged tile, border included
    const int th = block_size_y * tile_y + 2;
    for (int j = ly; j < th; j += block_size_y) {
        for (int i = lx; i < tw; i += block_size_x) {
            const int gx = bx + i - 1, gy = by + j - 1;
            tile[j * tw + i] = (gx >= 0 && gx < nx && gy >= 0 && gy < ny) ? in[gy * nx + gx] : 0.0f;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (int ty = 0; ty < tile_y; ty++) {
        for (int tx = 0; tx < tile_x; tx++) {
            const int x = bx + tx * block_size_x + lx;
            const int y = by + ty * block_size_y + ly;
            if (x >= nx || y >= ny) {
                continue; // past the grid: a partial tile
            }
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
                out[y * nx + x] = in[y * nx + x];
                continue;
            }
#if use_local
            const int i = x - bx + 1, j = y - by + 1;
            const float c = tile[j * tw + i];
            const float s = tile[(j - 1) * tw + i] + tile[(j + 1) * tw + i] + tile[j * tw + i - 1] + tile[j * tw + i + 1];
#else
            const float c = in[y * nx + x];
            const float s = in[(y - 1) * nx + x] + in[(y + 1) * nx + x] + in[y * nx + x - 1] + in[y * nx + x + 1];
#endif
            out[y * nx + x] = c0 * c + c1 * s;
        }
    }
}
