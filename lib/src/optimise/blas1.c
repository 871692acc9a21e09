// blas1.c: the level-1 BLAS routines IPOPT calls on its vectors (ddot, dnrm2, dasum, daxpy,
// dscal, dcopy, idamax), in plain C with a fixed order of operations (issue 22).
//
// IPOPT's vector arithmetic goes through these BLAS entry points. OpenBLAS picks its kernels by
// processor, and the kernels sum in different orders and fuse multiply-adds or not, so the same
// problem took other iteration paths on other machines (the leap: 203 iterations under the
// Haswell kernels, 249 under the generic ones). Defined here, in the program, they take the
// place of the BLAS library's for IPOPT (the dynamic linker binds a shared library's
// references to the executable's definitions first), and every machine and build rounds
// alike. The file is compiled without contraction into fused multiply-adds. Sums run in four
// interleaved partial sums, combined in a fixed order: still one rounding order everywhere.
// salto_blas1_linked() is referenced by the solver so that a static link keeps this file.
#include <math.h>

int salto_blas1_linked(void);
int salto_blas1_linked(void) { return 1; }

// the first element of a strided vector (BLAS: a negative increment walks it backwards)
static inline long first(int n, int inc) { return inc >= 0 ? 0 : (long)(1 - n) * inc; }

double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy) {
    const int N = *n, ix = *incx, iy = *incy;
    if (N <= 0) return 0.0;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    if (ix == 1 && iy == 1) {
        int i = 0;
        for (; i + 4 <= N; i += 4) {
            s0 += x[i] * y[i], s1 += x[i + 1] * y[i + 1];
            s2 += x[i + 2] * y[i + 2], s3 += x[i + 3] * y[i + 3];
        }
        for (; i < N; i++) s0 += x[i] * y[i];
        return (s0 + s1) + (s2 + s3);
    }
    long kx = first(N, ix), ky = first(N, iy);
    for (int i = 0; i < N; i++, kx += ix, ky += iy) s0 += x[kx] * y[ky];
    return s0;
}

double dasum_(const int* n, const double* x, const int* incx);
double dasum_(const int* n, const double* x, const int* incx) {
    const int N = *n, ix = *incx;
    if (N <= 0 || ix <= 0) return 0.0;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    if (ix == 1) {
        int i = 0;
        for (; i + 4 <= N; i += 4) {
            s0 += fabs(x[i]), s1 += fabs(x[i + 1]), s2 += fabs(x[i + 2]), s3 += fabs(x[i + 3]);
        }
        for (; i < N; i++) s0 += fabs(x[i]);
        return (s0 + s1) + (s2 + s3);
    }
    for (long i = 0, k = 0; i < N; i++, k += ix) s0 += fabs(x[k]);
    return s0;
}

// the Euclidean norm: the plain sum of squares, or (when it over- or underflows) the scaled
// one of the reference BLAS
double dnrm2_(const int* n, const double* x, const int* incx);
double dnrm2_(const int* n, const double* x, const int* incx) {
    const int N = *n, ix = *incx;
    if (N <= 0 || ix <= 0) return 0.0;
    const double ss = ddot_(n, x, incx, x, incx); // the same summation as the dot product
    if (ss > 1e-280 && ss < 1e280) return sqrt(ss);
    double scale = 0.0, ssq = 1.0;
    for (long i = 0, k = 0; i < N; i++, k += ix) {
        if (x[k] != 0.0) {
            const double a = fabs(x[k]);
            if (scale < a) {
                ssq = 1.0 + ssq * (scale / a) * (scale / a);
                scale = a;
            } else {
                ssq += (a / scale) * (a / scale);
            }
        }
    }
    return scale * sqrt(ssq);
}

void daxpy_(const int* n, const double* a, const double* x, const int* incx, double* y, const int* incy);
void daxpy_(const int* n, const double* a, const double* x, const int* incx, double* y, const int* incy) {
    const int N = *n, ix = *incx, iy = *incy;
    const double al = *a;
    if (N <= 0 || al == 0.0) return;
    if (ix == 1 && iy == 1) {
        for (int i = 0; i < N; i++) y[i] += al * x[i];
        return;
    }
    long kx = first(N, ix), ky = first(N, iy);
    for (int i = 0; i < N; i++, kx += ix, ky += iy) y[ky] += al * x[kx];
}

void dscal_(const int* n, const double* a, double* x, const int* incx);
void dscal_(const int* n, const double* a, double* x, const int* incx) {
    const int N = *n, ix = *incx;
    const double al = *a;
    if (N <= 0 || ix <= 0) return;
    for (long i = 0, k = 0; i < N; i++, k += ix) x[k] *= al;
}

void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy);
void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy) {
    const int N = *n, ix = *incx, iy = *incy;
    if (N <= 0) return;
    long kx = first(N, ix), ky = first(N, iy);
    for (int i = 0; i < N; i++, kx += ix, ky += iy) y[ky] = x[kx];
}

int idamax_(const int* n, const double* x, const int* incx);
int idamax_(const int* n, const double* x, const int* incx) {
    const int N = *n, ix = *incx;
    if (N <= 0 || ix <= 0) return 0;
    int best = 1;
    double m = fabs(x[0]);
    for (long i = 1, k = ix; i < N; i++, k += ix) {
        if (fabs(x[k]) > m) m = fabs(x[k]), best = (int)i + 1;
    }
    return best;
}
