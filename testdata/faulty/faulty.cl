// Faulty OpenCL kernels: `fault` selects the fault; block_size_x may exceed the device's
// maximum work-group size.
//   0: correct   1: syntax error   2: wrong answer   3: infinite loop
__kernel void faulty(__global float *out, __global const float *src, const int n) {
    int i = get_global_id(0);
#if fault == 1
    this is not OpenCL;
#endif
    if (i < n) {
        float v = 2.0f * src[i];
#if fault == 2
        if (i == n / 2) v += 1.0f;
#endif
        out[i] = v;
    }
#if fault == 3
    // Waits for out[0] to turn negative, which it never does (src is in [0, 1)). The loop
    // reads global memory every time round, so no compiler may drop it; NVIDIA's drop a
    // spin on a volatile local variable.
    volatile __global float *flag = out;
    while (flag[0] >= 0.0f) {
    }
#endif
}
