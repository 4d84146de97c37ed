// Naive reference for nbody.cl: one body per work-item, every pull in turn, 1 / sqrt,
// at a launch of its own.
__kernel void nbody_reference(__global const float *bodies, __global float4 *accel, const int n, const float eps2) {
    const int i = get_global_id(0);
    if (i >= n) {
        return;
    }
    const float3 p = vload4(i, bodies).xyz;
    float3 a = 0.0f;
    for (int j = 0; j < n; j++) {
        const float4 b = vload4(j, bodies);
        const float3 d = b.xyz - p;
        const float r = sqrt(dot(d, d) + eps2);
        a += d * (b.w / (r * r * r));
    }
    accel[i] = (float4)(a, 0.0f);
}
