/* A correct kernel that takes a noticeable time, so a test can kill a tuning run midway. */
void slow(float *out, const float *src, int n) {
    for (int r = 0; r < repeat * 40; r++) {
        for (int i = 0; i < n; i++) {
            out[i] = 2.0f * src[i] + (float)(r - r);
        }
    }
}
