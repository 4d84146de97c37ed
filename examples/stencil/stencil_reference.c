// The 5-point stencil that verifies stencil5 as a plain C function
// (stencil_host_reference.yaml): ktune runs it once, on the host through the host C
// backend, on the inputs the OpenCL kernel gets. Its parameters are the arguments that
// the spec's verification.reference.kernel.arguments names, in that order; the local tile
// has no meaning on the host and is left out.
void stencil5_reference(float *out, const float *in, const int nx, const int ny, const float c0,
                        const float c1) {
    for (int y = 0; y < ny; y++) {
        for (int x = 0; x < nx; x++) {
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
                out[y * nx + x] = in[y * nx + x];
                continue;
            }
            out[y * nx + x] = c0 * in[y * nx + x] +
                              c1 * (in[(y - 1) * nx + x] + in[(y + 1) * nx + x] + in[y * nx + x - 1] + in[y * nx + x + 1]);
        }
    }
}
