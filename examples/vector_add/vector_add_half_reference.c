// The half-precision vector addition that verifies vector_add_half.cu, as a plain C
// function: ktune runs it once, on the host through the host C backend (GCC 12 or Clang
// for _Float16), on the inputs the CUDA kernel gets. Each sum is computed in float and
// rounded once to the nearest half, as the kernel does.
void vector_add_half_reference(_Float16 *c, const _Float16 *a, const _Float16 *b, const int n) {
    for (int k = 0; k < n; k++) {
        float sum = (float)a[k] + (float)b[k];
        c[k] = (_Float16)sum;
    }
}
