// 3D Fourier reconstruction (the insertion step of cryo-EM direct Fourier reconstruction,
// seed 003's tenth benchmark, after Xmipp's): p projection images, each s x s complex
// samples of a central slice of the volume's Fourier transform with its orientation (a
// 3x3 rotation, row-major), are inserted into an n^3 complex volume G and its weights W.
// Sample (i, j) of image q sits at u = i - s/2, v = j - s/2 in its image plane, at
// R^T (u, v, 0) in the volume; it adds blob(d) * sample to G and blob(d) to W of every
// voxel (x, y, z), centred as (x - n/2, y - n/2, z - n/2), at a distance d <= radius,
// blob being a Kaiser-Bessel window. Images are row j, column i: images[(q*s + j)*s + i];
// volumes are z, y, x: G[(z*n + y)*n + x]. G and W are added to (+=), as each buffer of
// images is inserted into the same volumes.
//
// The squared distance of voxel and sample is computed one way in every configuration: the
// voxel's position in the image's frame, (xp, yp, zp) = R (x, y, z) (in_frame), then
// d^2 = (xp - u)^2 + (yp - v)^2 + zp^2, as rotations keep distances; with multiply-adds
// not contracted (FP_CONTRACT OFF), every configuration and the C reference (compiled with
// -ffp-contract=off) pick the same voxels and the same table entries, and differ only in
// the order (and the reference in the precision) of their sums.
//
// The blob is sampled by squared distance: entry k of a table of table_size entries is the
// blob at d^2 = k * radius^2 / (table_size - 1); a pair at d^2 takes entry
// (int)(d^2 * inv_step), inv_step = (table_size - 1) / radius^2.
//
// Parameters:
//   BLOCK_DIM_X, BLOCK_DIM_Y  the work-group (its z size is 1)
//   USE_ATOMICS         1: scatter: a work-item per image sample (all images at once, the
//                       grid's z a projection) adds it to the voxels around it with atomic
//                       adds (a compare-and-swap loop: OpenCL 1.2 has no float atomics);
//                       0: gather: a work-item owns voxels and, image by image, sums the
//                       samples around them in registers, then adds the sums to G and W
//   TILE                samples per work-item (scatter: TILE rows BLOCK_DIM_Y apart) or
//                       voxels per work-item (gather: TILE consecutive z)
//   PRECOMPUTE_BLOB_VAL 1: weights read from the precomputed table; 0: computed on the
//                       fly (a polynomial approximation of I0) at the table's sample point
//   SHARED_BLOB_TABLE   the table copied into local memory first (with PRECOMPUTE_BLOB_VAL)
//   SHARED_IMG          gather only: for each image, the rectangle of samples that the
//                       work-group's voxels can reach is staged in local memory
#pragma OPENCL FP_CONTRACT OFF

// The slack of the bounding boxes, in voxels or samples, beyond the radius: rounding of
// the positions must not leave out a pair whose d^2 <= radius^2.
#define MARGIN 0.01f
// The side of the local image tile: the work-group's voxels span at most BLOCK_DIM_X +
// BLOCK_DIM_Y + TILE - 3 voxels in any direction (the sum of the box's sides bounds its
// diagonal), plus 2 radii (under 2 each), the margin and rounding.
#define IMG_TILE_DIM (BLOCK_DIM_X + BLOCK_DIM_Y + TILE + 6)

// *p += v, atomically, by retrying until no other work-item changed *p in between.
inline void atomic_add_float(volatile __global float *p, float v) {
    union { unsigned int u; float f; } old, sum;
    do {
        old.f = *p;
        sum.f = old.f + v;
    } while (atomic_cmpxchg((volatile __global unsigned int *)p, old.u, sum.u) != old.u);
}

// The position of the centred voxel (fx, fy, fz) in the frame of rotation r: R (fx, fy, fz).
inline void in_frame(const float *r, float fx, float fy, float fz, float *xp, float *yp, float *zp) {
    *xp = r[0] * fx + r[1] * fy + r[2] * fz;
    *yp = r[3] * fx + r[4] * fy + r[5] * fz;
    *zp = r[6] * fx + r[7] * fy + r[8] * fz;
}

// The table entry of a pair at squared distance d2 (<= radius^2).
inline int blob_index(float d2, float inv_step, int table_size) {
    return min((int)(d2 * inv_step), table_size - 1);
}

// I0(x), the modified Bessel function of the first kind of order 0, for x >= 0, by the
// polynomial approximations of Abramowitz and Stegun 9.8.1 and 9.8.2 (relative error
// under 2e-7).
inline float bessel_i0(float x) {
    if (x < 3.75f) {
        const float t = (x / 3.75f) * (x / 3.75f);
        return 1.0f + t * (3.5156229f + t * (3.0899424f + t * (1.2067492f + t * (0.2659732f + t * (0.0360768f + t * 0.0045813f)))));
    }
    const float t = 3.75f / x;
    return exp(x) / sqrt(x) *
           (0.39894228f + t * (0.01328592f + t * (0.00225319f + t * (-0.00157565f + t * (0.00916281f + t * (-0.02057706f + t * (0.02635537f + t * (-0.01647633f + t * 0.00392377f))))))));
}

#if PRECOMPUTE_BLOB_VAL
#if SHARED_BLOB_TABLE
#define BLOB(k) lblob[k]
#else
#define BLOB(k) blob_table[k]
#endif
#else
// entry k's blob: I0(alpha sqrt(1 - k / (table_size - 1))) / I0(alpha)
#define BLOB(k) (bessel_i0(alpha * sqrt(1.0f - (float)(k) * inv_last)) * inv_i0_alpha)
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK_DIM_X, BLOCK_DIM_Y, 1)))
void fourier_reconstruction(__global const float2 *images, __global const float *rotations,
                            __global const float *blob_table, __global float2 *G, __global float *W,
                            __local float *lblob, __local float2 *ltile, const int n, const int s,
                            const int p, const int table_size, const float radius, const float radius2,
                            const float inv_step, const float alpha) {
    const int lid = get_local_id(1) * BLOCK_DIM_X + get_local_id(0);
#if PRECOMPUTE_BLOB_VAL && SHARED_BLOB_TABLE
    for (int k = lid; k < table_size; k += BLOCK_DIM_X * BLOCK_DIM_Y) {
        lblob[k] = blob_table[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#if !PRECOMPUTE_BLOB_VAL
    const float inv_last = 1.0f / (float)(table_size - 1);
    const float inv_i0_alpha = 1.0f / bessel_i0(alpha);
#endif
    const int hn = n / 2, hs = s / 2;
    const float reach = radius + MARGIN;

#if USE_ATOMICS
    // Scatter: sample (i, j) of image q, and TILE - 1 more rows below it.
    const int q = get_group_id(2);
    float r[9];
    for (int k = 0; k < 9; k++) {
        r[k] = rotations[9 * q + k];
    }
    const int i = get_global_id(0);
    const int j0 = get_group_id(1) * BLOCK_DIM_Y * TILE + get_local_id(1);
    for (int t = 0; t < TILE; t++) {
        const int j = j0 + t * BLOCK_DIM_Y;
        if (i >= s || j >= s) {
            continue;
        }
        const float2 val = images[(q * s + j) * s + i];
        const float u = (float)(i - hs), v = (float)(j - hs);
        // the sample's position in the volume: R^T (u, v, 0)
        const float px = r[0] * u + r[3] * v, py = r[1] * u + r[4] * v, pz = r[2] * u + r[5] * v;
        const int x0 = max((int)ceil(px - reach) + hn, 0), x1 = min((int)floor(px + reach) + hn, n - 1);
        const int y0 = max((int)ceil(py - reach) + hn, 0), y1 = min((int)floor(py + reach) + hn, n - 1);
        const int z0 = max((int)ceil(pz - reach) + hn, 0), z1 = min((int)floor(pz + reach) + hn, n - 1);
        for (int z = z0; z <= z1; z++) {
            for (int y = y0; y <= y1; y++) {
                for (int x = x0; x <= x1; x++) {
                    float xp, yp, zp;
                    in_frame(r, (float)(x - hn), (float)(y - hn), (float)(z - hn), &xp, &yp, &zp);
                    const float du = xp - u, dv = yp - v;
                    const float d2 = du * du + dv * dv + zp * zp;
                    if (d2 <= radius2) {
                        const float w = BLOB(blob_index(d2, inv_step, table_size));
                        const int vox = (z * n + y) * n + x;
                        atomic_add_float((volatile __global float *)&G[vox], w * val.x);
                        atomic_add_float((volatile __global float *)&G[vox] + 1, w * val.y);
                        atomic_add_float(&W[vox], w);
                    }
                }
            }
        }
    }
#else
    // Gather: voxels (x, y, z0 .. z0 + TILE - 1), the work-group's a box of BLOCK_DIM_X x
    // BLOCK_DIM_Y x TILE voxels from (bx, by, bz).
    const int x = get_global_id(0), y = get_global_id(1);
    const int bx = get_group_id(0) * BLOCK_DIM_X, by = get_group_id(1) * BLOCK_DIM_Y;
    const int bz = get_group_id(2) * TILE;
    float2 g[TILE];
    float wsum[TILE];
    for (int k = 0; k < TILE; k++) {
        g[k] = (float2)(0.0f, 0.0f);
        wsum[k] = 0.0f;
    }
    for (int q = 0; q < p; q++) {
        float r[9];
        for (int k = 0; k < 9; k++) {
            r[k] = rotations[9 * q + k];
        }
        // The range of the box's zp (its corners'): the image's plane misses every voxel of
        // the box when it lies beyond the radius (the same for the whole work-group).
        const float lo[3] = {(float)(bx - hn), (float)(by - hn), (float)(bz - hn)};
        const float hi[3] = {lo[0] + (BLOCK_DIM_X - 1), lo[1] + (BLOCK_DIM_Y - 1), lo[2] + (TILE - 1)};
        float zmin = 0.0f, zmax = 0.0f;
        for (int a = 0; a < 3; a++) {
            zmin += fmin(r[6 + a] * lo[a], r[6 + a] * hi[a]);
            zmax += fmax(r[6 + a] * lo[a], r[6 + a] * hi[a]);
        }
        // (no continue in this loop: with barriers in it, PoCL wants every work-item to
        // take the same path through each iteration)
        const bool near = zmin <= reach && zmax >= -reach;
#if SHARED_IMG
        // The samples the box can reach: the box's range of xp and yp, and the radius.
        float xmin = 0.0f, xmax = 0.0f, ymin = 0.0f, ymax = 0.0f;
        for (int a = 0; a < 3; a++) {
            xmin += fmin(r[a] * lo[a], r[a] * hi[a]);
            xmax += fmax(r[a] * lo[a], r[a] * hi[a]);
            ymin += fmin(r[3 + a] * lo[a], r[3 + a] * hi[a]);
            ymax += fmax(r[3 + a] * lo[a], r[3 + a] * hi[a]);
        }
        const int ti0 = max((int)floor(xmin - reach) + hs, 0), ti1 = min((int)ceil(xmax + reach) + hs, s - 1);
        const int tj0 = max((int)floor(ymin - reach) + hs, 0), tj1 = min((int)ceil(ymax + reach) + hs, s - 1);
        const bool staged = near && ti1 - ti0 < IMG_TILE_DIM && tj1 - tj0 < IMG_TILE_DIM;
        barrier(CLK_LOCAL_MEM_FENCE); // the previous image's tile is read
        if (staged) {
            const int tw = ti1 - ti0 + 1, th = tj1 - tj0 + 1;
            for (int k = lid; k < tw * th; k += BLOCK_DIM_X * BLOCK_DIM_Y) {
                ltile[(k / tw) * IMG_TILE_DIM + k % tw] = images[(q * s + tj0 + k / tw) * s + ti0 + k % tw];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        for (int k = 0; k < TILE && near && x < n && y < n && bz + k < n; k++) {
            const int z = bz + k;
            float xp, yp, zp;
            in_frame(r, (float)(x - hn), (float)(y - hn), (float)(z - hn), &xp, &yp, &zp);
            if (zp * zp > radius2) {
                continue;
            }
            const int i0 = max((int)ceil(xp - reach) + hs, 0), i1 = min((int)floor(xp + reach) + hs, s - 1);
            const int j0 = max((int)ceil(yp - reach) + hs, 0), j1 = min((int)floor(yp + reach) + hs, s - 1);
            for (int j = j0; j <= j1; j++) {
                const float dv = yp - (float)(j - hs);
                for (int i = i0; i <= i1; i++) {
                    const float du = xp - (float)(i - hs);
                    const float d2 = du * du + dv * dv + zp * zp;
                    if (d2 <= radius2) {
                        const float w = BLOB(blob_index(d2, inv_step, table_size));
#if SHARED_IMG
                        const float2 val = staged && i >= ti0 && i <= ti1 && j >= tj0 && j <= tj1
                                               ? ltile[(j - tj0) * IMG_TILE_DIM + i - ti0]
                                               : images[(q * s + j) * s + i];
#else
                        const float2 val = images[(q * s + j) * s + i];
#endif
                        g[k] += w * val;
                        wsum[k] += w;
                    }
                }
            }
        }
    }
    if (x < n && y < n) {
        for (int k = 0; k < TILE && bz + k < n; k++) {
            const int vox = ((bz + k) * n + y) * n + x;
            G[vox] += g[k];
            W[vox] += wsum[k];
        }
    }
#endif
}
