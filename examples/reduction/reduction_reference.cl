// Reference for reduction.cl: one work-item adds the input in order, in double precision
// where the device has it (cl_khr_fp64), so that the tuned kernels' float sums are
// compared with a sum whose own rounding error is negligible.
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif

__kernel void reduce_reference(__global const float *in, __global float *sum, const int n) {
    if (get_global_id(0) != 0) {
        return;
    }
    acc_t s = 0;
    for (int i = 0; i < n; i++) {
        s += in[i];
    }
    sum[0] = (float)s;
}
