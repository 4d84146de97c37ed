/* A corpus of faulty kernels in one source: the tunable parameter `fault` selects the
 * fault, so one tuning run meets all of them and must classify each and complete.
 *   0: correct   1: syntax error   2: wrong answer   3: out-of-bounds crash   4: infinite loop */
#include <stddef.h>

void faulty(float *out, const float *src, int n) {
#if fault == 1
    this is not C;
#endif
    for (int i = 0; i < n; i++) {
        float v = 2.0f * src[i];
#if fault == 2
        if (i == n / 2) v += 1.0f;
#endif
        out[i] = v;
    }
#if fault == 3
    /* Far outside any mapping: the process dies with SIGSEGV. */
    ((volatile float *)out)[(size_t)1 << 42] = 1.0f;
#endif
#if fault == 4
    for (volatile unsigned long spin = 0;; spin++) {
    }
#endif
}
