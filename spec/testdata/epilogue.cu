__device__ float epilogue(float v, double alpha) { return (float)(v * alpha); }
