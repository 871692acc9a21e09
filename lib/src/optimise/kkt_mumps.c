// kkt_mumps.c: MUMPS as IPOPT 3.11 calls it (kkt_mumps.h). IPOPT's MumpsSolverInterface:
// symmetric (SYM = 2), the host working (PAR = 1), ICNTL(6) = 7 (permuting and scaling chosen by
// MUMPS), ICNTL(7) = 7 (ordering chosen by MUMPS), ICNTL(8) = 77 (scaling chosen), ICNTL(10) =
// 0 (no refinement), ICNTL(13) = 1 (the root factored without ScaLAPACK, for the inertia),
// ICNTL(14) = 1000 (% extra workspace), CNTL(1) = 1e-6 (the pivot threshold); messages off.
#include "kkt_mumps.h"

#include <stdlib.h>
#include <string.h>

#include <dmumps_c.h>

struct kkt_mumps {
    DMUMPS_STRUC_C id;
    int* irn;
    int* jcn;
    double* a;
    int ne;
    int analysed;
};

static void controls(DMUMPS_STRUC_C* id) {
    id->icntl[0] = id->icntl[1] = id->icntl[2] = -1;
    id->icntl[3] = 0;
    id->icntl[5] = 7, id->icntl[6] = 7, id->icntl[7] = 77, id->icntl[9] = 0;
    id->icntl[12] = 1, id->icntl[13] = 1000;
    id->cntl[0] = 1e-6;
}

kkt_mumps* kkt_mumps_analyse(int n, int ne, const int* irn, const int* jcn) {
    kkt_mumps* m = calloc(1, sizeof *m);
    if (!m) return NULL;
    const size_t NE = (size_t)(ne > 0 ? ne : 1);
    m->irn = malloc(sizeof(int) * NE), m->jcn = malloc(sizeof(int) * NE), m->a = malloc(sizeof(double) * NE);
    if (!m->irn || !m->jcn || !m->a) {
        free(m->irn), free(m->jcn), free(m->a), free(m);
        return NULL;
    }
    memcpy(m->irn, irn, sizeof(int) * (size_t)ne);
    memcpy(m->jcn, jcn, sizeof(int) * (size_t)ne); // a: each factorisation's values
    m->ne = ne;
    m->id.job = -1, m->id.par = 1, m->id.sym = 2, m->id.comm_fortran = -987654; // USE_COMM_WORLD
    dmumps_c(&m->id);
    controls(&m->id);
    m->id.n = n, m->id.nz = ne, m->id.nnz = ne;
    m->id.irn = m->irn, m->id.jcn = m->jcn, m->id.a = m->a;
    return m;
}

int kkt_mumps_factor(kkt_mumps* m, const double* a, int* neg) {
    memcpy(m->a, a, sizeof(double) * (size_t)m->ne);
    controls(&m->id);
    if (!m->analysed) {
        // the analysis on the first matrix's values, as IPOPT's interface runs it: ICNTL(6) = 7
        // and ICNTL(8) = 77 read them (its permutation and scaling); run on values never set, it
        // read whatever the heap held (NaNs at times: the zoo's twist dismount then factored
        // 400 times slower, 2026-11-27)
        m->id.job = 1;
        dmumps_c(&m->id);
        if (m->id.info[0] < 0) return m->id.info[0];
        m->analysed = 1;
    }
    m->id.job = 2;
    dmumps_c(&m->id);
    if (m->id.info[0] == -8 || m->id.info[0] == -9) { // workspace too small: grow, as IPOPT does
        m->id.icntl[13] *= 2;
        dmumps_c(&m->id);
    }
    if (neg) *neg = m->id.infog[11];
    return m->id.info[0];
}

void kkt_mumps_free(kkt_mumps* m) {
    if (!m) return;
    m->id.job = -2;
    dmumps_c(&m->id);
    free(m->irn), free(m->jcn), free(m->a), free(m);
}
