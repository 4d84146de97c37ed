// fourier_reconstruction.cl's insertion as a plain C function that ktune runs once on the
// host, sample by sample and voxel by voxel, summing in double. It computes its own blob
// weights in double from the Kaiser-Bessel formula (not from the kernel's table), at the
// table's sample points, and each pair's squared distance in float exactly as the kernel
// does (the voxel rotated into the image's frame), compiled with -ffp-contract=off so that
// no multiply-add is fused: both pick the same voxels and the same table entries.
#include <math.h>
#include <stdlib.h>

// I0(x) by its series, to double precision.
static double bessel_i0(double x) {
    const double q = x * x / 4.0;
    double term = 1.0, sum = 1.0;
    for (int k = 1; term > 1e-17 * sum; k++) {
        term *= q / ((double)k * k);
        sum += term;
    }
    return sum;
}

void fourier_reconstruction_reference(const float *images, const float *rotations, float *G, float *W, const int n,
                                      const int s, const int p, const int table_size, const float radius,
                                      const float radius2, const float inv_step, const float alpha) {
    const size_t voxels = (size_t)n * n * n;
    double *table = malloc(sizeof(double) * table_size);
    double *sum = calloc(3 * voxels, sizeof(double)); // G's real, imaginary parts, W
    if (table == NULL || sum == NULL) {
        free(table);
        free(sum);
        return;
    }
    for (int k = 0; k < table_size; k++) {
        table[k] = bessel_i0(alpha * sqrt(1.0 - (double)k / (table_size - 1))) / bessel_i0(alpha);
    }
    const int hn = n / 2, hs = s / 2;
    for (int q = 0; q < p; q++) {
        const float *r = rotations + 9 * q;
        for (int j = 0; j < s; j++) {
            for (int i = 0; i < s; i++) {
                const float u = (float)(i - hs), v = (float)(j - hs);
                const double re = images[2 * (((size_t)q * s + j) * s + i)];
                const double im = images[2 * (((size_t)q * s + j) * s + i) + 1];
                // R^T (u, v, 0), in double: only the box around it, a voxel wider than
                // needed each way, depends on it
                const double c[3] = {(double)r[0] * u + (double)r[3] * v, (double)r[1] * u + (double)r[4] * v,
                                     (double)r[2] * u + (double)r[5] * v};
                int lo[3], hi[3];
                for (int a = 0; a < 3; a++) {
                    lo[a] = (int)floor(c[a] - radius) - 1 + hn;
                    hi[a] = (int)ceil(c[a] + radius) + 1 + hn;
                    lo[a] = lo[a] < 0 ? 0 : lo[a];
                    hi[a] = hi[a] > n - 1 ? n - 1 : hi[a];
                }
                for (int z = lo[2]; z <= hi[2]; z++) {
                    for (int y = lo[1]; y <= hi[1]; y++) {
                        for (int x = lo[0]; x <= hi[0]; x++) {
                            const float fx = (float)(x - hn), fy = (float)(y - hn), fz = (float)(z - hn);
                            const float xp = r[0] * fx + r[1] * fy + r[2] * fz;
                            const float yp = r[3] * fx + r[4] * fy + r[5] * fz;
                            const float zp = r[6] * fx + r[7] * fy + r[8] * fz;
                            const float du = xp - u, dv = yp - v;
                            const float d2 = du * du + dv * dv + zp * zp;
                            if (d2 > radius2) {
                                continue;
                            }
                            int k = (int)(d2 * inv_step);
                            k = k < table_size - 1 ? k : table_size - 1;
                            const size_t vox = ((size_t)z * n + y) * n + x;
                            sum[3 * vox] += table[k] * re;
                            sum[3 * vox + 1] += table[k] * im;
                            sum[3 * vox + 2] += table[k];
                        }
                    }
                }
            }
        }
    }
    for (size_t vox = 0; vox < voxels; vox++) {
        G[2 * vox] = (float)(G[2 * vox] + sum[3 * vox]);
        G[2 * vox + 1] = (float)(G[2 * vox + 1] + sum[3 * vox + 1]);
        W[vox] = (float)(W[vox] + sum[3 * vox + 2]);
    }
    free(table);
    free(sum);
}
