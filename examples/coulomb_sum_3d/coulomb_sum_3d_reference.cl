// Naive reference for coulomb_sum_3d.cl: one work-item per grid point, the atoms read
// from the float4 array, at a launch of its own.
__kernel void coulomb_sum_3d_reference(__global const float4 *atom_info, __global const float *atom_x,
                                       __global const float *atom_y, __global const float *atom_z,
                                       __global const float *atom_charge, const int atoms,
                                       const float spacing, const int G, __global float *energy) {
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= G || y >= G || z >= G) {
        return;
    }
    float sum = 0.0f;
    for (int a = 0; a < atoms; a++) {
        const float dx = x * spacing - atom_info[a].x;
        const float dy = y * spacing - atom_info[a].y;
        const float dz = z * spacing - atom_info[a].z;
        sum += atom_info[a].w / sqrt(dx * dx + dy * dy + dz * dz);
    }
    energy[(z * G + y) * G + x] = sum;
}
