// data.c: creating and copying evaluation data
#include "salto/data.h"

#include <string.h>

salto_data* salto_data_create(const salto_model* m) {
    if (!m) return NULL;
    const size_t nv = (size_t)m->nv;
    // per-link doubles: 4 inputs + R 9 + p 3 + S, V, A, c 24 + I, Ic, Icd 30 + F 6
    //                 + IA 21 + pA, U 12 + Dinv, u 2
    const size_t per_link = 4 + 9 + 3 + 24 + 30 + 6 + 21 + 12 + 2;
    // the world's slot at index -1 of the link arrays (see data.h)
    const size_t world = 9 + 3 + 24 + 30 + 6 + 21 + 12;
    // scratch: the direct and finite-difference baselines need a few copies of the state
    // and one body-frame pass (see aggregate_baseline.c)
    const size_t nwork = 128 * nv + 256;
    salto_data* d = salto_calloc(1, sizeof(salto_data));
    double* buf = salto_calloc(per_link * nv + world + nwork + 1, sizeof(double));
    if (!d || !buf) {
        salto_free(d);
        salto_free(buf);
        return NULL;
    }
    double* at = buf;
#define TAKE(field, n) (d->field = at, at += (n) * nv)
#define TAKE_W(field, n) (at += (n), d->field = at, at += (n) * nv)
    TAKE(q, 1);
    TAKE(qd, 1);
    TAKE(qdd, 1);
    TAKE(tau, 1);
    TAKE_W(R, 9);
    TAKE_W(p, 3);
    TAKE_W(S, 6);
    TAKE_W(V, 6);
    TAKE_W(A, 6);
    TAKE_W(c, 6);
    TAKE_W(I, 10);
    TAKE_W(Ic, 10);
    TAKE_W(Icd, 10);
    TAKE_W(F, 6);
    TAKE_W(IA, 21);
    TAKE_W(pA, 6);
    TAKE(U, 6);
    TAKE(Dinv, 1);
    TAKE(u, 1);
#undef TAKE
#undef TAKE_W
    d->R[-9] = d->R[-5] = d->R[-1] = 1.0; // the world frame: R = 1, p = 0, V = 0
    d->work = at;
    d->nwork = (int)nwork;
    d->buffer = buf;
    return d;
}


void salto_data_destroy(salto_data* d) {
    if (!d) return;
    salto_free(d->buffer);
    salto_free(d);
}


void salto_data_copy_inputs(const salto_model* m, salto_data* dst, const salto_data* src) {
    const size_t n = (size_t)m->nv * sizeof(double);
    memcpy(dst->q, src->q, n);
    memcpy(dst->qd, src->qd, n);
    memcpy(dst->qdd, src->qdd, n);
    memcpy(dst->tau, src->tau, n);
}
