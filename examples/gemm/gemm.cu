// Tunable single-precision GEMM in CUDA, C = A * B: the CUDA version of gemm.cl, with the
// same layout, parameters and restrictions (see gemm.cl for what each parameter does).
//
// Layout: A(m,k) = A[k*M + m], B(k,n) = B[k*N + n], C(m,n) = C[n*M + m]. M must be a
// multiple of MWG, N of NWG and K of KWG; for any other size the kernel writes nothing.
//
// OpenCL's floatN vectors become fvec<W>, W floats aligned to 4*W bytes, so that loads of
// A, B and C compile to vector loads (CUDA's widest is 16 bytes: width 8 is two of them).

template <int W>
struct alignas(4 * W) fvec {
    float s[W];
};

typedef fvec<VWM> floatM;
typedef fvec<VWN> floatN;

#define MWI (MWG / MDIMC)                 // C values per thread in m
#define NWI (NWG / NDIMC)                 // C values per thread in n
#define MVI (MWI / VWM)                   // floatM vectors per thread in m
#define NVI (NWI / VWN)                   // floatN vectors per thread in n
#define MVG (MWG / VWM)                   // floatM vectors in a tile row of A / C
#define NVG (NWG / VWN)                   // floatN vectors in a tile row of B
#define KDIMA ((MDIMC * NDIMC) / MDIMA)   // loaders of A in k
#define KDIMB ((MDIMC * NDIMC) / NDIMB)   // loaders of B in k
#define MVA (MVG / MDIMA)                 // A vectors per loader in m
#define NVB (NVG / NDIMB)                 // B vectors per loader in n
#define KWA (KWG / KDIMA)                 // A rows per loader
#define KWB (KWG / KDIMB)                 // B rows per loader

// The index (in vectors, within the tile) of the i-th of the `per` vectors owned by
// thread t of `dim` along m (MIDX) or n (NIDX).
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

extern "C" __global__ void __launch_bounds__(MDIMC * NDIMC)
gemm(floatM *C, const floatM *__restrict__ A, const floatN *__restrict__ B,
     const int M, const int N, const int K)
{
#if SA
    __shared__ floatM alm[KWG * MVG];   // A tile: KWG rows of MVG vectors
#endif
#if SB
    __shared__ floatN blm[KWG * NVG];   // B tile: KWG rows of NVG vectors
#endif
    if (M % MWG != 0 || N % NWG != 0 || K % KWG != 0) {
        return; // unsupported problem size (uniform over the whole launch)
    }
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * MDIMC + tx;
    const int Mv = M / VWM;            // row length of A and C in floatM vectors
    const int Nv = N / VWN;            // row length of B in floatN vectors
    const int mv0 = blockIdx.x * MVG;  // this tile's first vector in m
    const int nv0 = blockIdx.y * NVG;  // ... in n

    floatM acc[NWI][MVI];
    #pragma unroll
    for (int n = 0; n < NWI; n++) {
        #pragma unroll
        for (int i = 0; i < MVI; i++) {
            #pragma unroll
            for (int w = 0; w < VWM; w++) {
                acc[n][i].s[w] = 0.0f;
            }
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
        __syncthreads();
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
                float b[NWI];   // this thread's B values at k, unpacked from vectors
                #pragma unroll
                for (int j = 0; j < NVI; j++) {
                    const int nv = NIDX(ty, j, NVI, NDIMC);
#if SB
                    const floatN bv = blm[k * NVG + nv];
#else
                    const floatN bv = B[(k0 + k) * Nv + nv0 + nv];
#endif
                    #pragma unroll
                    for (int w = 0; w < VWN; w++) {
                        b[j * VWN + w] = bv.s[w];
                    }
                }
                #pragma unroll
                for (int n = 0; n < NWI; n++) {
                    #pragma unroll
                    for (int i = 0; i < MVI; i++) {
                        #pragma unroll
                        for (int w = 0; w < VWM; w++) {
                            acc[n][i].s[w] += a[i].s[w] * b[n];
                        }
                    }
                }
            }
        }
#if SA || SB
        __syncthreads();
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
