// Tiled single-precision matrix multiply on the host CPU, C = A * B, for ktune's C
// backend. A, B and C are n x n, row-major.
//
// Tuning parameters (#defines injected by ktune):
//   tile_i, tile_j, tile_k  the loops over rows of C (i), columns of C (j) and the sum
//                           (k) are blocked into tiles of these sizes, so that a tile_k x
//                           tile_j block of B and a tile_i x tile_j block of C stay in
//                           cache while they are reused
//   unroll_factor           steps of k taken in one pass over a row of the C tile
//                           (unroll-and-jam: each c[j] is loaded and stored once per
//                           unroll_factor products instead of once per product); the j
//                           loop is left to the compiler's vectoriser. (A `#pragma GCC
//                           unroll` on the k loop itself would do nothing: GCC unrolls
//                           only innermost loops, and j is the innermost.)
//   threads                 OpenMP threads; each owns whole (i, j) tiles of C, so no two
//                           threads write the same element
// Every configuration adds the products of each element of C in the same order (k = 0,
// 1, ...), so results agree with the reference configuration to the last bit up to
// contracted multiply-adds. Any n works; tiles are cut at the edges.

#define MM_PRAGMA_(x) _Pragma(#x)
#define MM_PRAGMA(x) MM_PRAGMA_(x)
#define MM_MIN(a, b) ((a) < (b) ? (a) : (b))

void matmul(float *restrict C, const float *restrict A, const float *restrict B, int n)
{
    const int ti = (n + tile_i - 1) / tile_i;   // tiles of C in i and j
    const int tj = (n + tile_j - 1) / tile_j;
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < ti * tj; t++) {
        const int i0 = t / tj * tile_i, i1 = MM_MIN(i0 + tile_i, n);
        const int j0 = t % tj * tile_j, j1 = MM_MIN(j0 + tile_j, n);
        for (int i = i0; i < i1; i++) {
            for (int j = j0; j < j1; j++) {
                C[i * n + j] = 0.0f;
            }
        }
        for (int k0 = 0; k0 < n; k0 += tile_k) {
            const int k1 = MM_MIN(k0 + tile_k, n);
            for (int i = i0; i < i1; i++) {
                float *restrict c = C + i * n;
                const float *restrict a = A + i * n;
                int k = k0;
                // unroll_factor steps of k per pass over j: c[j] is loaded and stored once
                // per pass and the products are added to it in k order.
                for (; k + unroll_factor <= k1; k += unroll_factor) {
                    for (int j = j0; j < j1; j++) {
                        float s = c[j];
                        MM_PRAGMA(GCC unroll unroll_factor)
                        for (int u = 0; u < unroll_factor; u++) {
                            s += a[k + u] * B[(k + u) * n + j];
                        }
                        c[j] = s;
                    }
                }
                for (; k < k1; k++) {   // the rest of a tile cut at the edge
                    for (int j = j0; j < j1; j++) {
                        c[j] += a[k] * B[k * n + j];
                    }
                }
            }
        }
    }
}
