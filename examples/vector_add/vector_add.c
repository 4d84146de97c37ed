// Vector addition on the host CPU, c = a + b, for ktune's C backend.
//
// Tuning parameters (#defines injected by ktune):
//   unroll_factor  elements added per iteration of the main loop (the inner loop is
//                  unrolled unroll_factor times; the compiler may vectorise it further)
//   threads        OpenMP threads that share the loop (static schedule)
// (The parameter is not called `unroll`: a macro of that name would also replace the
// keyword in `#pragma GCC unroll`, and GCC would ignore the pragma without a word.)
// The C backend ignores the launch geometry: the kernel is one call of this function.

#define VA_PRAGMA_(x) _Pragma(#x)
#define VA_PRAGMA(x) VA_PRAGMA_(x)

void vector_add(float *c, const float *a, const float *b, int n)
{
    const int main_n = n / unroll_factor * unroll_factor;   // elements covered by whole unrolled steps
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < main_n; i += unroll_factor) {
        VA_PRAGMA(GCC unroll unroll_factor)
        for (int u = 0; u < unroll_factor; u++) {
            c[i + u] = a[i + u] + b[i + u];
        }
    }
    for (int i = main_n; i < n; i++) {   // the remainder
        c[i] = a[i] + b[i];
    }
}
