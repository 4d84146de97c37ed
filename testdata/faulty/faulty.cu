// Faulty CUDA kernels: `fault` selects the fault; block_size_x may exceed the device's
// maximum block size.
//   0: correct   1: syntax error   2: wrong answer   3: infinite loop
//   4: out-of-bounds write (an illegal address, which loses the CUDA context)
//   5: more static shared memory than any GPU has   6: correct, written differently
extern "C" __global__ void faulty(float *out, const float *src, const int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
#if fault == 1
    this is not CUDA;
#endif
#if fault == 5
    __shared__ float huge[70000];
    huge[threadIdx.x] = src[i];
    __syncthreads();
    if (i < n) out[i] = 2.0f * huge[threadIdx.x];
    return;
#endif
    if (i < n) {
        float v = 2.0f * src[i];
#if fault == 6
        v = src[i] + src[i];
#endif
#if fault == 2
        if (i == n / 2) v += 1.0f;
#endif
#if fault == 4
        out[i + ((size_t)1 << 40)] = v;
#else
        out[i] = v;
#endif
    }
#if fault == 3
    // Waits for out[0] to turn negative, which it never does (src is in [0, 1)). The loop
    // reads global memory every time round, so no compiler may drop it; NVIDIA's drop a
    // spin on a volatile local variable.
    volatile float *flag = out;
    while (flag[0] >= 0.0f) {
    }
#endif
}
