// Matrix transpose in OpenCL: out (W x H) = in^T, where in is H rows of W floats, row by
// row, and out W rows of H. A work-group transposes a TILE_SIZE_Y x TILE_SIZE_X tile of
// the input (rows x columns) into the TILE_SIZE_X x TILE_SIZE_Y tile of the output; W
// must be a multiple of TILE_SIZE_X and H of TILE_SIZE_Y (the spec's sizes are multiples
// of the largest tile).
//
// Tunable parameters (defined by ktune):
//   WORK_GROUP_SIZE_X/Y  the work-group; x runs along rows (the contiguous direction)
//   TILE_SIZE_X/Y        the tile, a multiple of the work-group: each work-item moves
//                        several vectors, a work-group apart
//   VECTOR_TYPE          floats per load or store along a row: 1 (float), 2, 4, 8
//                        (vloadN/vstoreN)
//   LOCAL_MEM            1: the tile is read row by row into local memory and written out
//                        row by row from its columns, so that reads and writes are both
//                        contiguous; 0: straight from global to global memory
//   PADD_LOCAL           1: each local row is one float longer, so that the work-items
//                        reading a column of the tile hit different banks
//   CR                   without local memory, which side is contiguous: 0: work-items
//                        read along input rows (and write down output columns); 1: they
//                        write along output rows (and read down input columns)
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if VECTOR_TYPE == 1
#define vec float
#define VLOAD(i, p) ((p)[i])
#define VSTORE(v, i, p) ((p)[i] = (v))
#else
#define vec XCAT(float, VECTOR_TYPE)
#define VLOAD(i, p) XCAT(vload, VECTOR_TYPE)(i, p)
#define VSTORE(v, i, p) XCAT(vstore, VECTOR_TYPE)(v, i, p)
#endif

#define STRIDE (TILE_SIZE_X + PADD_LOCAL) // a local row's length

__kernel __attribute__((reqd_work_group_size(WORK_GROUP_SIZE_X, WORK_GROUP_SIZE_Y, 1)))
void transpose(__global float *out, __global const float *in, const int W, const int H) {
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * TILE_SIZE_X; // the tile's first input column
    const int y0 = get_group_id(1) * TILE_SIZE_Y; // and row
#if LOCAL_MEM
    __local float tile[TILE_SIZE_Y * STRIDE];
    for (int r = ly; r < TILE_SIZE_Y; r += WORK_GROUP_SIZE_Y) {
        for (int c = lx * VECTOR_TYPE; c < TILE_SIZE_X; c += WORK_GROUP_SIZE_X * VECTOR_TYPE) {
            const vec v = VLOAD(0, in + (y0 + r) * W + x0 + c);
            VSTORE(v, 0, tile + r * STRIDE + c);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // output row x0 + c holds input column c of the tile
    for (int c = ly; c < TILE_SIZE_X; c += WORK_GROUP_SIZE_Y) {
        for (int r = lx * VECTOR_TYPE; r < TILE_SIZE_Y; r += WORK_GROUP_SIZE_X * VECTOR_TYPE) {
            float column[VECTOR_TYPE];
            for (int k = 0; k < VECTOR_TYPE; k++) {
                column[k] = tile[(r + k) * STRIDE + c];
            }
            VSTORE(VLOAD(0, column), 0, out + (x0 + c) * H + y0 + r);
        }
    }
#elif CR == 0
    for (int r = ly; r < TILE_SIZE_Y; r += WORK_GROUP_SIZE_Y) {
        for (int c = lx * VECTOR_TYPE; c < TILE_SIZE_X; c += WORK_GROUP_SIZE_X * VECTOR_TYPE) {
            float row[VECTOR_TYPE];
            VSTORE(VLOAD(0, in + (y0 + r) * W + x0 + c), 0, row);
            for (int k = 0; k < VECTOR_TYPE; k++) {
                out[(x0 + c + k) * H + y0 + r] = row[k];
            }
        }
    }
#else
    for (int c = ly; c < TILE_SIZE_X; c += WORK_GROUP_SIZE_Y) {
        for (int r = lx * VECTOR_TYPE; r < TILE_SIZE_Y; r += WORK_GROUP_SIZE_X * VECTOR_TYPE) {
            float column[VECTOR_TYPE];
            for (int k = 0; k < VECTOR_TYPE; k++) {
                column[k] = in[(y0 + r + k) * W + x0 + c];
            }
            VSTORE(VLOAD(0, column), 0, out + (x0 + c) * H + y0 + r);
        }
    }
#endif
}
