// The reference of vector_add_half.cl: one work-item per element, the sum computed and
// rounded as the tuned kernel must (in float, then to the nearest half).
__kernel void vector_add_half_reference(__global half *c, __global const half *a, __global const half *b, const int n) {
    int k = get_global_id(0);
    if (k < n) {
        float sum = vload_half(k, a) + vload_half(k, b);
        vstore_half_rte(sum, k, c);
    }
}
