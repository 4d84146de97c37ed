// Vector addition on the host CPU, c = a + b, in C++ as Kernel Tuner's C backend takes it
// (it compiles with g++): a template over the element type and the unroll factor, which
// the spec's kernel.name instantiates, vector_add<float, unroll_factor>, with the tuning
// parameter's #define as its argument.
//
// Tuning parameters (#defines injected by ktune):
//   unroll_factor  the template's Unroll: elements added per iteration of the main loop
//                  (a constant of the template, so the compiler unrolls the inner loop)
//   threads        OpenMP threads that share the loop (static schedule)
// The C backend ignores the launch geometry: the kernel is one call of this function.

template <typename T, int Unroll>
void vector_add(T *c, const T *a, const T *b, int n)
{
    const int main_n = n / Unroll * Unroll;   // elements covered by whole unrolled steps
    #pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < main_n; i += Unroll) {
        #pragma GCC unroll 16
        for (int u = 0; u < Unroll; u++) {
            c[i + u] = a[i + u] + b[i + u];
        }
    }
    for (int i = main_n; i < n; i++) {   // the remainder
        c[i] = a[i] + b[i];
    }
}
