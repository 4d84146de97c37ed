// hotspot.cl's time steps, one at a time over the whole chip, as a plain C function that
// ktune runs once on the host: steps steps from temp_in, the last one's temperatures in
// temp_out. temp_in is left as it is.
#include <stdlib.h>
#include <string.h>

#define CAP 0.5f
#define RX 0.1f
#define RY 0.1f
#define RZ 0.05f
#define AMB 80.0f

void hotspot_reference(const float *power, const float *temp_in, float *temp_out, const int w, const int h,
                       const int steps) {
    float *cur = malloc(sizeof(float) * (size_t)w * h);
    if (cur == NULL) {
        return;
    }
    memcpy(cur, temp_in, sizeof(float) * (size_t)w * h);
    for (int s = 0; s < steps; s++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                const float t = cur[y * w + x];
                const float west = x > 0 ? cur[y * w + x - 1] : t;
                const float east = x < w - 1 ? cur[y * w + x + 1] : t;
                const float north = y > 0 ? cur[(y - 1) * w + x] : t;
                const float south = y < h - 1 ? cur[(y + 1) * w + x] : t;
                temp_out[y * w + x] =
                    t + CAP * (power[y * w + x] + (north + south - 2.0f * t) * RY + (east + west - 2.0f * t) * RX + (AMB - t) * RZ);
            }
        }
        memcpy(cur, temp_out, sizeof(float) * (size_t)w * h);
    }
    free(cur);
}
