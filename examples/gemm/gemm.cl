// Tunable single-precision GEMM, C = A * B, for the ktune examples.
//
// Layout (all three matrices are stored so that vector loads run along m or n):
//   A is M x K with m contiguous:  A(m,k) = A[k*M + m]   (column-major A, lda = M)
//   B is K x N with n contiguous:  B(k,n) = B[k*N + n]   (row-major B,    ldb = N)
//   C is M x N with m contiguous:  C(m,n) = C[n*M + m]   (column-major C, ldc = M)
// M must be a multiple of MWG, N of NWG and K of KWG; for any other size the kernel
// writes nothing (and verification reports the wrong answer).
//
// Tuning parameters (injected by ktune as #defines):
//   MWG, NWG, KWG  tile of C computed by one work-group (MWG x NWG), and the depth of the
//                  k-slice of A and B it reads per step (KWG)
//   MDIMC, NDIMC   work-group size: MDIMC x NDIMC work-items; each computes
//                  MWI = MWG/MDIMC by NWI = NWG/NDIMC values of C
//   MDIMA, NDIMB   the same work-items re-shaped to load the tiles into local memory:
//                  MDIMA x (MDIMC*NDIMC/MDIMA) for A, NDIMB x (MDIMC*NDIMC/NDIMB) for B
//   KWI            unroll factor of the inner loop over k (KWG/KWI iterations of KWI)
//   VWM, VWN       vector widths: A and C are read/written as floatVWM along m,
//                  B as floatVWN along n (1 = scalar float)
//   STRM, STRN     which m (n) vectors a work-item owns: 0 = a contiguous chunk,
//                  1 = strided by the work-group size (neighbouring work-items touch
//                  neighbouring vectors); applies to computing C and to loading A (B)
//   SA, SB         1 = stage the A (B) tile in __local memory, shared by the work-group;
//                  0 = every work-item reads A (B) straight from global memory

#define GEMM_CAT_(a, b) a##b
#define GEMM_CAT(a, b) GEMM_CAT_(a, b)

#if VWM == 1
typedef float floatM;
#else
typedef GEMM_CAT(float, VWM) floatM;
#endif
#if VWN == 1
typedef float floatN;
#define STORE_N(v, j, p) ((p)[(j)] = (v))
#else
typedef GEMM_CAT(float, VWN) floatN;
#define STORE_N(v, j, p) GEMM_CAT(vstore, VWN)((v), (j), (p))
#endif

#define MWI (MWG / MDIMC)                 // C values per work-item in m
#define NWI (NWG / NDIMC)                 // C values per work-item in n
#define MVI (MWI / VWM)                   // floatM vectors per work-item in m
#define NVI (NWI / VWN)                   // floatN vectors per work-item in n
#define MVG (MWG / VWM)                   // floatM vectors in a tile row of A / C
#define NVG (NWG / VWN)                   // floatN vectors in a tile row of B
#define KDIMA ((MDIMC * NDIMC) / MDIMA)   // loaders of A in k
#define KDIMB ((MDIMC * NDIMC) / NDIMB)   // loaders of B in k
#define MVA (MVG / MDIMA)                 // A vectors per loader in m
#define NVB (NVG / NDIMB)                 // B vectors per loader in n
#define KWA (KWG / KDIMA)                 // A rows per loader
#define KWB (KWG / KDIMB)                 // B rows per loader

// The index (in vectors, within the tile) of the i-th of the `per` vectors owned by
// work-item t of `dim` along m (MIDX) or n (NIDX).
#if STRM == 0
#define MIDX(t, i, per, dim) ((t) * (per) + (i))
#else
#define MIDX(t, i, per, dim) ((i) * (dim) + (t))
#endif
#if STRN == 0
#define NIDX(t, i, per, dim) ((t) * (per) + (i))
#else
#define NIDX(t, i, per, dim) ((i) * (dim) + (t))
#endif

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void gemm(__global floatM *C, const __global floatM *restrict A, const __global floatN *restrict B,
          const int M, const int N, const int K)
{
#if SA
    __local floatM alm[KWG * MVG];   // A tile: KWG rows of MVG vectors
#endif
#if SB
    __local floatN blm[KWG * NVG];   // B tile: KWG rows of NVG vectors
#endif
    if (M % MWG != 0 || N % NWG != 0 || K % KWG != 0) {
        return; // unsupported problem size (uniform over the whole launch)
    }
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * MDIMC + tx;
    const int Mv = M / VWM;                  // row length of A and C in floatM vectors
    const int Nv = N / VWN;                  // row length of B in floatN vectors
    const int mv0 = get_group_id(0) * MVG;   // this tile's first vector in m
    const int nv0 = get_group_id(1) * NVG;   // ... in n

    floatM acc[NWI][MVI];
    #pragma unroll
    for (int n = 0; n < NWI; n++) {
        #pragma unroll
        for (int i = 0; i < MVI; i++) {
            acc[n][i] = (floatM)(0.0f);
        }
    }

    for (int k0 = 0; k0 < K; k0 += KWG) {
#if SA
        {   // MDIMA x KDIMA loaders; loader (la, ka) takes rows ka, ka+KDIMA, ...
            const int la = tid % MDIMA;
            const int ka = tid / MDIMA;
            #pragma unroll
            for (int j = 0; j < KWA; j++) {
                const int k = j * KDIMA + ka;
                #pragma unroll
                for (int i = 0; i < MVA; i++) {
                    const int mv = MIDX(la, i, MVA, MDIMA);
                    alm[k * MVG + mv] = A[(k0 + k) * Mv + mv0 + mv];
                }
            }
        }
#endif
#if SB
        {
            const int lb = tid % NDIMB;
            const int kb = tid / NDIMB;
            #pragma unroll
            for (int j = 0; j < KWB; j++) {
                const int k = j * KDIMB + kb;
                #pragma unroll
                for (int i = 0; i < NVB; i++) {
                    const int nv = NIDX(lb, i, NVB, NDIMB);
                    blm[k * NVG + nv] = B[(k0 + k) * Nv + nv0 + nv];
                }
            }
        }
#endif
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        for (int kw = 0; kw < KWG; kw += KWI) {
            #pragma unroll
            for (int ki = 0; ki < KWI; ki++) {
                const int k = kw + ki;
                floatM a[MVI];
                #pragma unroll
                for (int i = 0; i < MVI; i++) {
                    const int mv = MIDX(tx, i, MVI, MDIMC);
#if SA
                    a[i] = alm[k * MVG + mv];
#else
                    a[i] = A[(k0 + k) * Mv + mv0 + mv];
#endif
                }
                float b[NWI];   // this work-item's B values at k, unpacked from vectors
                #pragma unroll
                for (int j = 0; j < NVI; j++) {
                    const int nv = NIDX(ty, j, NVI, NDIMC);
#if SB
                    const floatN bv = blm[k * NVG + nv];
#else
                    const floatN bv = B[(k0 + k) * Nv + nv0 + nv];
#endif
                    STORE_N(bv, j, b);
                }
                #pragma unroll
                for (int n = 0; n < NWI; n++) {
                    #pragma unroll
                    for (int i = 0; i < MVI; i++) {
                        acc[n][i] += a[i] * b[n];
                    }
                }
            }
        }
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }

    // acc[n][i] holds C at n-vector n / VWN (component n % VWN), m-vector i.
    #pragma unroll
    for (int n = 0; n < NWI; n++) {
        const int col = (nv0 + NIDX(ty, n / VWN, NVI, NDIMC)) * VWN + n % VWN;
        #pragma unroll
        for (int i = 0; i < MVI; i++) {
            C[col * Mv + mv0 + MIDX(tx, i, MVI, MDIMC)] = acc[n][i];
        }
    }
}
