// The naive 5-point stencil that verifies stencil5: one work-item per cell, launched at
// its own geometry (the spec's verification.reference.kernel.block), not the tuned
// kernel's, whose grid shrinks by the tile sizes. It takes the tuned kernel's arguments,
// the local tile included, which it leaves unused.
__kernel void stencil5_reference(__global float *out, __global const float *in, const int nx,
                                 const int ny, const float c0, const float c1,
                                 __local float *unused) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny) {
        return;
    }
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[y * nx + x] = in[y * nx + x];
        return;
    }
    out[y * nx + x] = c0 * in[y * nx + x] +
                      c1 * (in[(y - 1) * nx + x] + in[(y + 1) * nx + x] + in[y * nx + x - 1] + in[y * nx + x + 1]);
}
