// kkt_ma57.c: salto's own KKT factorisation behind IPOPT's MA57 driver (kkt_ma57.h, issue 22)
//
// IPOPT 3.11's MA57 interface calls whatever LSL_setMA57 registered (HSLLoader.h;
// ../shared/notes/ipopt-linear-solver-hooks.md): MA57AD once for the structure, MA57BD for each
// factorisation (the inertia in INFO(24), INFO(1) = 4 for singular), MA57CD for the solves,
// MA57ED when asked to grow the factor arrays. The factors live here (kkt_sparse.h), not in
// IPOPT's FACT and IFACT, so INFO(9) and INFO(10) ask for 16 entries each. The solver
// instances (IPOPT's main one and its restoration phase's) are told apart by a handle in
// KEEP(1) (which IPOPT zero-fills before MA57AD) and IFACT(1); they are owned by the solve
// between kkt_ma57_begin and kkt_ma57_end, since IPOPT never says when it drops one.
//
// The pivot threshold: IPOPT's CNTL(1) (ma57_pivtol, 1e-8, raised by IPOPT itself when a
// solve's accuracy suffers) is tried first, 1e-8 before a column is delayed (kkt_sparse.h).
#include "kkt_ma57.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <coin/HSLLoader.h>

#include "kkt_mumps.h"
#include "kkt_sparse.h"
#include "salto/base.h"

typedef struct handle {
    kkt_sparse* f;
    kkt_mumps* mumps; // with compare
    int n, ne;
} handle;

static _Thread_local handle* handles;
static _Thread_local int nhandles, caphandles;
static _Thread_local kkt_ma57_stats* stats;
static _Thread_local int compare;

static handle* handle_of(int id) { return id >= 1 && id <= nhandles ? &handles[id - 1] : NULL; }

// SALTO_KKT_DUMP=FILE (a measuring aid): the matrix of the main solver's factorisation number
// SALTO_KKT_DUMP_AT (default 20) is written to FILE: n, ne (int), the 1-based rows and columns
// (int), the values (double); both read when the solve begins
static _Thread_local int dump_count, dump_at;
static _Thread_local const char* dump_path;

static void dump(const handle* h, const double* a) {
    if (!dump_path || h != &handles[0] || ++dump_count != dump_at) return;
    FILE* fp = fopen(dump_path, "wb");
    if (!fp) return;
    int* ij = malloc(sizeof(int) * 2 * (size_t)(h->ne > 0 ? h->ne : 1));
    if (ij) {
        kkt_sparse_pattern(h->f, ij, ij + h->ne);
        fwrite(&h->n, sizeof(int), 1, fp), fwrite(&h->ne, sizeof(int), 1, fp);
        for (int e = 0; e < 2 * h->ne; e++) ij[e]++;
        fwrite(ij, sizeof(int), 2 * (size_t)h->ne, fp);
        fwrite(a, sizeof(double), (size_t)h->ne, fp);
        free(ij);
    }
    fclose(fp);
}

static void ma57id(double* cntl, ipfint* icntl) {
    memset(cntl, 0, 5 * sizeof(double));
    memset(icntl, 0, 20 * sizeof(ipfint));
    cntl[0] = 0.01, cntl[1] = 1e-20;
}

static void ma57ad(ipfint* n, ipfint* ne, const ipfint* irn, const ipfint* jcn, ipfint* lkeep,
                   ipfint* keep, ipfint* iwork, ipfint* icntl, ipfint* info, double* rinfo) {
    (void)lkeep, (void)iwork, (void)icntl, (void)rinfo;
    memset(info, 0, 40 * sizeof(ipfint));
    handle* h = handle_of(keep[0]);
    if (!h) {
        if (nhandles == caphandles) {
            const int c = caphandles ? 2 * caphandles : 4;
            handle* nh = realloc(handles, sizeof(handle) * (size_t)c);
            if (!nh) {
                info[0] = -1;
                return;
            }
            handles = nh, caphandles = c;
        }
        h = &handles[nhandles++];
        memset(h, 0, sizeof *h);
        keep[0] = nhandles;
    }
    kkt_sparse_free(h->f);
    kkt_mumps_free(h->mumps);
    h->mumps = NULL;
    h->n = *n, h->ne = *ne;
    int* ir = malloc(sizeof(int) * (size_t)(*ne > 0 ? *ne : 1));
    int* jc = malloc(sizeof(int) * (size_t)(*ne > 0 ? *ne : 1));
    if (ir && jc) {
        for (int e = 0; e < *ne; e++) ir[e] = irn[e] - 1, jc[e] = jcn[e] - 1;
        h->f = kkt_sparse_analyse(*n, *ne, ir, jc);
    } else {
        h->f = NULL;
    }
    free(ir), free(jc);
    if (!h->f) {
        info[0] = -1;
        return;
    }
    info[8] = info[9] = 16; // INFO(9), INFO(10): the factors live here, not in IPOPT's arrays
    if (stats) stats->n = *n;
    if (stats && compare) h->mumps = kkt_mumps_analyse(*n, *ne, irn, jcn);
}

static void ma57bd(ipfint* n, ipfint* ne, double* a, double* fact, ipfint* lfact, ipfint* ifact,
                   ipfint* lifact, ipfint* lkeep, ipfint* keep, ipfint* iwork, ipfint* icntl,
                   double* cntl, ipfint* info, double* rinfo) {
    (void)fact, (void)lfact, (void)lifact, (void)lkeep, (void)iwork, (void)icntl, (void)rinfo;
    memset(info, 0, 40 * sizeof(ipfint));
    const double t0 = salto_cpu_now();
    handle* h = handle_of(keep[0]);
    if (!h || !h->f || h->n != *n || h->ne != *ne) {
        info[0] = -1;
        return;
    }
    kkt_sparse_info in;
    if (kkt_sparse_factor(h->f, a, cntl[0], &in) != 0) {
        info[0] = -1; // out of memory: fatal to IPOPT
        return;
    }
    ifact[0] = keep[0];
    if (getenv("DBGKKT")) fprintf(stderr, "KKT n %d L %zu maxfront %d delayed %d flops %.3g u %.2g\n", *n, in.factor_entries, in.max_front, in.delayed, in.flops, cntl[0]);
    dump(h, a);
    info[23] = in.neg; // INFO(24)
    if (in.zero > 0) {
        info[0] = 4;                // singular
        info[24] = *n - in.zero;    // INFO(25): the rank
    }
    if (stats) {
        stats->factorisations++;
        stats->factor_s += salto_cpu_now() - t0;
        if (h->mumps) {
            const double t1 = salto_cpu_now();
            int neg = -1;
            const int st = kkt_mumps_factor(h->mumps, a, &neg);
            stats->mumps_s += salto_cpu_now() - t1;
            stats->compared++;
            if (st == 0 && in.zero == 0 && neg != in.neg) stats->inertia_differs++;
        }
    }
}

static void ma57cd(ipfint* job, ipfint* n, double* fact, ipfint* lfact, ipfint* ifact,
                   ipfint* lifact, ipfint* nrhs, double* rhs, ipfint* lrhs, double* work,
                   ipfint* lwork, ipfint* iwork, ipfint* icntl, ipfint* info) {
    (void)job, (void)fact, (void)lfact, (void)lifact, (void)work, (void)lwork, (void)iwork, (void)icntl;
    memset(info, 0, 40 * sizeof(ipfint));
    const double t0 = salto_cpu_now();
    handle* h = handle_of(ifact[0]);
    if (!h || !h->f || h->n != *n) {
        info[0] = -1;
        return;
    }
    for (int r = 0; r < *nrhs; r++) kkt_sparse_solve(h->f, rhs + (size_t)r * (size_t)*lrhs);
    if (stats) stats->solve_s += salto_cpu_now() - t0;
}

static void ma57ed(ipfint* n, ipfint* ic, ipfint* keep, double* fact, ipfint* lfact, double* newfac,
                   ipfint* lnew, ipfint* ifact, ipfint* lifact, ipfint* newifc, ipfint* linew,
                   ipfint* info) {
    (void)n, (void)keep, (void)fact, (void)lfact, (void)newfac, (void)lnew, (void)lifact, (void)linew;
    memset(info, 0, 40 * sizeof(ipfint));
    if (*ic >= 1) newifc[0] = ifact[0];
}

void kkt_ma57_begin(kkt_ma57_stats* s, int cmp) {
    LSL_setMA57(ma57ad, ma57bd, ma57cd, ma57ed, ma57id);
    kkt_ma57_end();
    stats = s, compare = cmp, dump_count = 0;
    dump_path = getenv("SALTO_KKT_DUMP");
    const char* at = getenv("SALTO_KKT_DUMP_AT");
    dump_at = at ? atoi(at) : 20;
    if (stats) memset(stats, 0, sizeof *stats);
}

void kkt_ma57_end(void) {
    for (int i = 0; i < nhandles; i++) kkt_sparse_free(handles[i].f), kkt_mumps_free(handles[i].mumps);
    free(handles);
    handles = NULL, nhandles = caphandles = 0, stats = NULL, compare = 0;
}
