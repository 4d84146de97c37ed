// BiCG's two matrix-vector products in OpenCL: q = A p and s = A^T r, for A of M rows of
// N floats, row by row (p has N elements, r and q M, s N).
//
// A work-group owns a tile of TM = WORK_GROUP_SIZE_Y * ROWS_PER_ITEM rows by
// TN = WORK_GROUP_SIZE_X * COLS_PER_ITEM columns, and walks ROW_TILES such tiles down the
// matrix. Each work-item takes ROWS_PER_ITEM rows and COLS_PER_ITEM columns of a tile, a
// work-group apart (neighbouring work-items read neighbouring columns), and keeps in
// registers its share of q's rows (for one tile) and of s's columns (for all its tiles).
// The shares of the work-groups that meet in an element of q or s are added to it
// atomically, so q and s must start at zero. OpenCL 1.2 has atomic adds for integers
// only: the float add is a compare-and-swap loop on the float's bits.
//
// Tunable parameters (defined by ktune):
//   WORK_GROUP_SIZE_X/Y     the work-group (x along a row)
//   ROWS_PER_ITEM, COLS_PER_ITEM   the work-item's rows and columns in a tile
//   ROW_TILES               tiles per work-group, stacked down the matrix: fewer atomic
//                           adds into s, less parallelism
//   FUSED                   1: one pass over the tile computes both products (A is read
//                           once); 0: one pass for q, then one for s, as two separate
//                           kernels would (A is read twice)
//   REDUCE_LOCAL            1: the work-group adds its work-items' shares in local memory
//                           first, one atomic add per element of q and s; 0: every
//                           work-item adds its own shares atomically
//   UNROLL                  1: the loops over a work-item's rows and columns are unrolled
//
// M must be a multiple of the largest TM * ROW_TILES and N of the largest TN (the spec
// says by how much).
#define TM (WORK_GROUP_SIZE_Y * ROWS_PER_ITEM)
#define TN (WORK_GROUP_SIZE_X * COLS_PER_ITEM)
#if UNROLL
#define UNROLLED _Pragma("unroll")
#else
#define UNROLLED _Pragma("nounroll")
#endif

// *p += v, atomically, by retrying until no other work-item changed *p in between.
inline void atomic_add_float(volatile __global float *p, float v) {
    union { unsigned int u; float f; } old, sum;
    do {
        old.f = *p;
        sum.f = old.f + v;
    } while (atomic_cmpxchg((volatile __global unsigned int *)p, old.u, sum.u) != old.u);
}

__kernel __attribute__((reqd_work_group_size(WORK_GROUP_SIZE_X, WORK_GROUP_SIZE_Y, 1)))
void bicg(__global const float *A, __global const float *p, __global const float *r,
          __global float *q, __global float *s, const int M, const int N) {
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int col0 = get_group_id(0) * TN;
    const int row0 = get_group_id(1) * TM * ROW_TILES;
#if REDUCE_LOCAL
    __local float qpart[TM * WORK_GROUP_SIZE_X]; // [row of the tile][lx]
    __local float spart[TN * WORK_GROUP_SIZE_Y]; // [column of the tile][ly]
    const int lid = ly * WORK_GROUP_SIZE_X + lx;
#endif
    float pcol[COLS_PER_ITEM], sacc[COLS_PER_ITEM];
    UNROLLED
    for (int j = 0; j < COLS_PER_ITEM; j++) {
        pcol[j] = p[col0 + lx + j * WORK_GROUP_SIZE_X];
        sacc[j] = 0.0f;
    }
    for (int t = 0; t < ROW_TILES; t++) {
        const int rowt = row0 + t * TM;
        float qacc[ROWS_PER_ITEM];
#if FUSED
        UNROLLED
        for (int i = 0; i < ROWS_PER_ITEM; i++) {
            const int row = rowt + ly + i * WORK_GROUP_SIZE_Y;
            const float rrow = r[row];
            float sum = 0.0f;
            UNROLLED
            for (int j = 0; j < COLS_PER_ITEM; j++) {
                const float a = A[row * N + col0 + lx + j * WORK_GROUP_SIZE_X];
                sum += a * pcol[j];
                sacc[j] += a * rrow;
            }
            qacc[i] = sum;
        }
#else
        UNROLLED
        for (int i = 0; i < ROWS_PER_ITEM; i++) {
            const int row = rowt + ly + i * WORK_GROUP_SIZE_Y;
            float sum = 0.0f;
            UNROLLED
            for (int j = 0; j < COLS_PER_ITEM; j++) {
                sum += A[row * N + col0 + lx + j * WORK_GROUP_SIZE_X] * pcol[j];
            }
            qacc[i] = sum;
        }
        UNROLLED
        for (int j = 0; j < COLS_PER_ITEM; j++) {
            const int col = col0 + lx + j * WORK_GROUP_SIZE_X;
            UNROLLED
            for (int i = 0; i < ROWS_PER_ITEM; i++) {
                const int row = rowt + ly + i * WORK_GROUP_SIZE_Y;
                sacc[j] += A[row * N + col] * r[row];
            }
        }
#endif
#if REDUCE_LOCAL
        UNROLLED
        for (int i = 0; i < ROWS_PER_ITEM; i++) {
            qpart[(ly + i * WORK_GROUP_SIZE_Y) * WORK_GROUP_SIZE_X + lx] = qacc[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int row = lid; row < TM; row += WORK_GROUP_SIZE_X * WORK_GROUP_SIZE_Y) {
            float sum = 0.0f;
            for (int x = 0; x < WORK_GROUP_SIZE_X; x++) {
                sum += qpart[row * WORK_GROUP_SIZE_X + x];
            }
            atomic_add_float(q + rowt + row, sum);
        }
        barrier(CLK_LOCAL_MEM_FENCE); // qpart is written again by the next tile
#else
        UNROLLED
        for (int i = 0; i < ROWS_PER_ITEM; i++) {
            atomic_add_float(q + rowt + ly + i * WORK_GROUP_SIZE_Y, qacc[i]);
        }
#endif
    }
#if REDUCE_LOCAL
    UNROLLED
    for (int j = 0; j < COLS_PER_ITEM; j++) {
        spart[(lx + j * WORK_GROUP_SIZE_X) * WORK_GROUP_SIZE_Y + ly] = sacc[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int col = lid; col < TN; col += WORK_GROUP_SIZE_X * WORK_GROUP_SIZE_Y) {
        float sum = 0.0f;
        for (int y = 0; y < WORK_GROUP_SIZE_Y; y++) {
            sum += spart[col * WORK_GROUP_SIZE_Y + y];
        }
        atomic_add_float(s + col0 + col, sum);
    }
#else
    UNROLLED
    for (int j = 0; j < COLS_PER_ITEM; j++) {
        atomic_add_float(s + col0 + lx + j * WORK_GROUP_SIZE_X, sacc[j]);
    }
#endif
}
