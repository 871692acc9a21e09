// kkt_ma57.c: salto's own KKT factorisation behind IPOPT's MA57 driver (issue 22)
//
// IPOPT 3.11's MA57 interface calls whatever LSL_setMA57 registered (HSLLoader.h;
// ../shared/notes/ipopt-linear-solver-hooks.md): MA57AD once for the structure, MA57BD for each
// factorisation (the inertia in INFO(24), INFO(1) = 4 for singular), MA57CD for the solves,
// MA57ED when asked to grow the factor arrays. Work in progress (branch wip/issue22-kkt): the
// factorisation is the dense Bunch-Kaufman LDL' of kkt_dense.c on the whole (equilibrated)
// matrix, to check the contract end to end on small problems; the sparse numeric phase is
// still to come. The
// solver instances (IPOPT's main one and its restoration phase's) are told apart by a handle
// in KEEP(1) and IFACT(1).
//
// Measured (2026-11-27, SALTO_KKT=dense): the factorisation of the matrix as IPOPT gives it
// ended the paper's held dismount in Restoration_Failed after 58 iterations (MUMPS: converged
// in 56), and the zoo's giant swing after 51 at its optimum: near the end of a solve the
// barrier terms span many orders and the unscaled pivots lose the solve's accuracy. Factored
// symmetrically equilibrated (S A S, every row's largest entry 1), IPOPT converges as with
// MUMPS: the giant swing in 51 iterations to the same objective (820.80223), the held dismount
// in 55 (MUMPS 56) to the same objective (4391.3999), the kip in 27 (27); the lamp's hop, the
// shipped dismount and the zoo's hop up converge to motions that pass every check, on other
// paths (213, 346 and 61 iterations against MUMPS's 190, 248 and 203). Dense, it is slow
// (the lamp's 789 rows: 88 s): the sparse numeric phase is next.
#include "kkt_ma57.h"

#include <math.h>
#include <string.h>

#include <coin/HSLLoader.h>

#include "kkt_dense.h"
#include "salto/base.h"

enum { max_handles = 16 };

typedef struct kkt_handle {
    int n, ne;
    int* irn;   // 0-based rows and columns of the triplets
    int* jcn;
    double* F;  // the factors (n x n)
    double* sc; // the symmetric scaling: S A S factored, s_i = 1 / sqrt(max_j |A_ij|)
    int* perm;
    int* piv;
} kkt_handle;

static kkt_handle handles[max_handles];
static int nhandles;

static kkt_handle* handle_of(int id) { return id >= 1 && id <= nhandles ? &handles[id - 1] : NULL; }

static void ma57id(double* cntl, ipfint* icntl) {
    memset(cntl, 0, 5 * sizeof(double));
    memset(icntl, 0, 20 * sizeof(ipfint));
}

static void ma57ad(ipfint* n, ipfint* ne, const ipfint* irn, const ipfint* jcn, ipfint* lkeep,
                   ipfint* keep, ipfint* iwork, ipfint* icntl, ipfint* info, double* rinfo) {
    (void)lkeep, (void)iwork, (void)icntl, (void)rinfo;
    memset(info, 0, 40 * sizeof(ipfint));
    kkt_handle* h = handle_of(keep[0]);
    if (!h) {
        if (nhandles == max_handles) {
            info[0] = -1;
            return;
        }
        h = &handles[nhandles++];
        memset(h, 0, sizeof *h);
        keep[0] = nhandles;
    }
    salto_free(h->irn), salto_free(h->jcn), salto_free(h->F), salto_free(h->perm), salto_free(h->piv);
    salto_free(h->sc);
    h->n = *n, h->ne = *ne;
    h->irn = salto_malloc(sizeof(int) * (size_t)(*ne > 0 ? *ne : 1));
    h->jcn = salto_malloc(sizeof(int) * (size_t)(*ne > 0 ? *ne : 1));
    h->F = salto_malloc(sizeof(double) * (size_t)(*n) * (size_t)(*n) + 1);
    h->perm = salto_malloc(sizeof(int) * (size_t)(*n + 1));
    h->piv = salto_malloc(sizeof(int) * (size_t)(*n + 1));
    h->sc = salto_malloc(sizeof(double) * (size_t)(*n + 1));
    if (!h->irn || !h->jcn || !h->F || !h->perm || !h->piv || !h->sc) {
        info[0] = -1;
        return;
    }
    for (int e = 0; e < *ne; e++) h->irn[e] = irn[e] - 1, h->jcn[e] = jcn[e] - 1;
    info[8] = info[9] = 16; // INFO(9), INFO(10): the factors live here, not in IPOPT's arrays
}

static void ma57bd(ipfint* n, ipfint* ne, double* a, double* fact, ipfint* lfact, ipfint* ifact,
                   ipfint* lifact, ipfint* lkeep, ipfint* keep, ipfint* iwork, ipfint* icntl,
                   double* cntl, ipfint* info, double* rinfo) {
    (void)fact, (void)lfact, (void)lifact, (void)lkeep, (void)iwork, (void)icntl, (void)cntl, (void)rinfo;
    memset(info, 0, 40 * sizeof(ipfint));
    kkt_handle* h = handle_of(keep[0]);
    if (!h || h->n != *n || h->ne != *ne) {
        info[0] = -1;
        return;
    }
    const int N = *n;
    memset(h->F, 0, sizeof(double) * (size_t)N * (size_t)N);
    double amax = 0.0;
    for (int e = 0; e < *ne; e++) {
        const int i = h->irn[e], j = h->jcn[e];
        h->F[(size_t)j * N + i] += a[e];
        if (i != j) h->F[(size_t)i * N + j] += a[e];
    }
    // equilibrated: every row's largest entry near 1 (the barrier terms span many orders near
    // the end of a solve)
    for (int i = 0; i < N; i++) {
        double m = 0.0;
        for (int j = 0; j < N; j++) m = fmax(m, fabs(h->F[(size_t)j * N + i]));
        h->sc[i] = m > 0.0 ? 1.0 / sqrt(m) : 1.0;
    }
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < N; i++) h->F[(size_t)j * N + i] *= h->sc[i] * h->sc[j];
    }
    for (size_t k = 0; k < (size_t)N * N; k++) amax = fmax(amax, fabs(h->F[k]));
    kkt_dense_inertia in;
    kkt_dense_factor(N, h->F, N, h->perm, h->piv, &in);
    // a 1x1 pivot below 1e-14 of the matrix's largest entry counts as zero: singular
    int tiny = 0;
    for (int k = 0; k < N; k++) {
        if (h->piv[k] == 1 && fabs(h->F[(size_t)k * N + k]) <= 1e-20 * amax) tiny++;
    }
    ifact[0] = keep[0];
    info[23] = in.neg; // INFO(24)
    if (in.zero + tiny > 0) {
        info[0] = 4;             // singular
        info[24] = N - in.zero - tiny; // INFO(25): the rank
    }
}

static void ma57cd(ipfint* job, ipfint* n, double* fact, ipfint* lfact, ipfint* ifact,
                   ipfint* lifact, ipfint* nrhs, double* rhs, ipfint* lrhs, double* work,
                   ipfint* lwork, ipfint* iwork, ipfint* icntl, ipfint* info) {
    (void)job, (void)fact, (void)lfact, (void)lifact, (void)work, (void)lwork, (void)iwork, (void)icntl;
    memset(info, 0, 40 * sizeof(ipfint));
    kkt_handle* h = handle_of(ifact[0]);
    if (!h || h->n != *n) {
        info[0] = -1;
        return;
    }
    for (int r = 0; r < *nrhs; r++) { // x = S (S A S)^-1 S b
        double* x = rhs + (size_t)r * (size_t)*lrhs;
        for (int i = 0; i < *n; i++) x[i] *= h->sc[i];
        kkt_dense_solve(*n, h->F, *n, h->perm, h->piv, x);
        for (int i = 0; i < *n; i++) x[i] *= h->sc[i];
    }
}

static void ma57ed(ipfint* n, ipfint* ic, ipfint* keep, double* fact, ipfint* lfact, double* newfac,
                   ipfint* lnew, ipfint* ifact, ipfint* lifact, ipfint* newifc, ipfint* linew,
                   ipfint* info) {
    (void)n, (void)keep, (void)fact, (void)lfact, (void)newfac, (void)lnew, (void)lifact, (void)linew;
    memset(info, 0, 40 * sizeof(ipfint));
    if (*ic >= 1) newifc[0] = ifact[0];
}

void kkt_ma57_register(void) { LSL_setMA57(ma57ad, ma57bd, ma57cd, ma57ed, ma57id); }
