// Direct Coulomb summation on a 3D grid in OpenCL: the potential at every point of a
// G x G x G grid (spacing apart, stored x fastest) is the sum over the atoms of
// charge / distance. Each work-item computes VECTOR_SIZE neighbouring points along x
// (a floatN) and Z_ITERATIONS points along z, so that the part of the distance that
// depends on x and y is computed once for all its z points.
//
// Tunable parameters (defined by ktune), named and valued as in KTT's Coulomb sum 3D:
//   WORK_GROUP_SIZE_X/Y/Z   the work-group (Z is 1: z is covered by Z_ITERATIONS)
//   Z_ITERATIONS            grid points along z per work-item
//   INNER_UNROLL_FACTOR     the loop over those z points unrolled by this factor (0:
//                           no pragma, the compiler's choice)
//   USE_CONSTANT_MEMORY     1: the atoms are read through __constant pointers; 0: __global
//   USE_SOA                 1: the atoms are read from four arrays (x, y, z, charge);
//                           0: from one array of float4 (x, y, z, charge)
//   VECTOR_SIZE             grid points along x per work-item, as one float, float2 or float4
//
// G must be a multiple of WORK_GROUP_SIZE_X * VECTOR_SIZE, WORK_GROUP_SIZE_Y and
// Z_ITERATIONS.
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define PRAGMA(x) _Pragma(#x)
#define UNROLL_BY(n) PRAGMA(unroll n)

#if VECTOR_SIZE == 1
#define vec float
#define OFFSETS 0.0f
#define VSTORE(v, i, p) ((p)[i] = (v))
#elif VECTOR_SIZE == 2
#define vec float2
#define OFFSETS (float2)(0.0f, 1.0f)
#define VSTORE(v, i, p) vstore2(v, i, p)
#elif VECTOR_SIZE == 4
#define vec float4
#define OFFSETS (float4)(0.0f, 1.0f, 2.0f, 3.0f)
#define VSTORE(v, i, p) vstore4(v, i, p)
#endif

#if USE_CONSTANT_MEMORY
#define ATOMS __constant
#else
#define ATOMS __global const
#endif

__kernel __attribute__((reqd_work_group_size(WORK_GROUP_SIZE_X, WORK_GROUP_SIZE_Y, WORK_GROUP_SIZE_Z)))
void coulomb_sum_3d(ATOMS float4 *atom_info, ATOMS float *atom_x, ATOMS float *atom_y,
                    ATOMS float *atom_z, ATOMS float *atom_charge, const int atoms,
                    const float spacing, const int G, __global float *energy) {
    const int xi = get_global_id(0) * VECTOR_SIZE;
    const int yi = get_global_id(1);
    const int zi = get_group_id(2) * Z_ITERATIONS;
    const vec x = ((float)xi + OFFSETS) * spacing;
    const float y = yi * spacing;
    vec sum[Z_ITERATIONS];
    for (int k = 0; k < Z_ITERATIONS; k++) {
        sum[k] = 0.0f;
    }
    for (int a = 0; a < atoms; a++) {
#if USE_SOA
        const float ax = atom_x[a], ay = atom_y[a], az = atom_z[a], q = atom_charge[a];
#else
        const float4 atom = atom_info[a];
        const float ax = atom.x, ay = atom.y, az = atom.z, q = atom.w;
#endif
        const vec dx = x - ax;
        const float dy = y - ay;
        const vec dxy2 = dx * dx + dy * dy;
#if INNER_UNROLL_FACTOR > 0
        UNROLL_BY(INNER_UNROLL_FACTOR)
#endif
        for (int k = 0; k < Z_ITERATIONS; k++) {
            const float dz = (zi + k) * spacing - az;
            sum[k] += q * rsqrt(dxy2 + dz * dz);
        }
    }
    for (int k = 0; k < Z_ITERATIONS; k++) {
        VSTORE(sum[k], 0, energy + ((zi + k) * G + yi) * G + xi);
    }
}
