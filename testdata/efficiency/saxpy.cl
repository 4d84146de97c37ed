// y = a * x + y over n floats, TILE elements per work-item.
__kernel void saxpy(__global float *y, __global const float *x, const float a, const int n) {
    int i = get_global_id(0) * TILE;
    for (int t = 0; t < TILE; t++) {
        if (i + t < n) {
            y[i + t] = a * x[i + t] + y[i + t];
        }
    }
}
