// Hotspot-style heat diffusion on a w x h chip: each time step moves every cell's
// temperature towards its four neighbours' and the ambient temperature and adds the power
// dissipated in it. Cells at the chip's edge take themselves as the missing neighbours.
//
// One launch runs STEPS_PER_LAUNCH time steps (the temporal blocking of Rodinia's
// Hotspot): a work-group loads a BLOCK_X x BLOCK_Y tile that overlaps its neighbours' by
// STEPS_PER_LAUNCH cells on each side, steps it in local memory, where the cells it can
// still compute shrink by one on each side per step, and writes the inner
// (BLOCK_X - 2 STEPS_PER_LAUNCH) x (BLOCK_Y - 2 STEPS_PER_LAUNCH) cells. The spec
// launches it STEPS / STEPS_PER_LAUNCH times, swapping temp_in and temp_out in between.
//
// Tunable parameters (defined by ktune):
//   BLOCK_X, BLOCK_Y   the work-group, one work-item per cell of the tile
//   STEPS_PER_LAUNCH   time steps per launch: more recompute the overlap more often but
//                      launch fewer times
#define CAP 0.5f   // time step over the cells' heat capacity
#define RX 0.1f    // conductances to the neighbours in x and y, and to the ambient air
#define RY 0.1f
#define RZ 0.05f
#define AMB 80.0f  // ambient temperature

__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1)))
void hotspot_steps(__global const float *power, __global const float *temp_in, __global float *temp_out,
                   const int w, const int h) {
    __local float tile[2][BLOCK_Y][BLOCK_X];
    const int S = STEPS_PER_LAUNCH;
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int gx = (int)get_group_id(0) * (BLOCK_X - 2 * S) + lx - S;
    const int gy = (int)get_group_id(1) * (BLOCK_Y - 2 * S) + ly - S;
    const bool inside = gx >= 0 && gx < w && gy >= 0 && gy < h;
    const int at = clamp(gy, 0, h - 1) * w + clamp(gx, 0, w - 1);
    const float p = power[at];
    tile[0][ly][lx] = temp_in[at];
    barrier(CLK_LOCAL_MEM_FENCE);
    int cur = 0;
    for (int s = 0; s < S; s++) {
        const float t = tile[cur][ly][lx];
        float next = t;
        // the cells whose neighbours hold step s
        if (inside && lx > s && lx < BLOCK_X - 1 - s && ly > s && ly < BLOCK_Y - 1 - s) {
            const float west = gx > 0 ? tile[cur][ly][lx - 1] : t;
            const float east = gx < w - 1 ? tile[cur][ly][lx + 1] : t;
            const float north = gy > 0 ? tile[cur][ly - 1][lx] : t;
            const float south = gy < h - 1 ? tile[cur][ly + 1][lx] : t;
            next = t + CAP * (p + (north + south - 2.0f * t) * RY + (east + west - 2.0f * t) * RX + (AMB - t) * RZ);
        }
        tile[1 - cur][ly][lx] = next;
        barrier(CLK_LOCAL_MEM_FENCE);
        cur = 1 - cur;
    }
    if (inside && lx >= S && lx < BLOCK_X - S && ly >= S && ly < BLOCK_Y - S) {
        temp_out[gy * w + gx] = tile[cur][ly][lx];
    }
}
