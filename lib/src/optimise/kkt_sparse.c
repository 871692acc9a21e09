// kkt_sparse.c: the multifrontal symmetric-indefinite LDL' (kkt_sparse.h)
//
// Analysis, at the first factorisation (it needs the values): the order (match_order: AMD on
// the pattern with each zero-diagonal row paired with a neighbour), then CHOLMOD's supernodal
// symbolic factor in that order; each supernode s is a front whose fully summed columns are
// its own (super[s] .. super[s+1]) and whose other rows are the factor's pattern below them
// (rows[rptr[s] ..]). The fronts are visited in a postorder of the supernodal tree, so the
// children's contribution blocks are the top of a stack when their parent is assembled.
//
// Numeric phase, one front of order m with nfs fully summed columns (the children's delayed
// columns first, then its own): assemble (the matrix's entries of its own columns, equilibrated,
// and the children's contribution blocks), then eliminate pivots among the fully summed
// columns, right-looking inside that panel so that every candidate's column is current:
// - 1x1 at column j when |a_jj| >= u max_{i != j} |a_ij| (the whole column, the rows of the
//   contribution block too);
// - else 2x2 at (j, r), r the fully summed row of the column's largest entry, when
//   |P^-1| (gamma_j, gamma_r)' <= 1/u (gamma: the columns' largest entries outside P);
// - a column whose entries are all at most 1e-20 is a zero pivot;
// - where no column passes u, the same at 1e-8; the columns that nothing passes are delayed
//   to the parent; at a root (nothing to delay to) Bunch-Kaufman's choice is taken instead,
//   which always exists.
// Then the contribution block is updated once by all the front's pivots (C -= L W', W = L D),
// four pivots at a time; a leaf with nothing delayed leaves that update to its parent, which
// applies it in its own front (leaf_update). L is kept per front (m x ne, column-major) with
// the front's row list.
#include "kkt_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <amd.h>
#include <cholmod.h>

#include "salto/base.h"

#define ZERO_PIVOT 1e-20
#define U_LOW 1e-8 // the pivot threshold a column must pass before it is delayed
#define MAXD(a, b) ((a) > (b) ? (a) : (b))

struct kkt_sparse {
    int n, ne;
    int* irn; // 0-based triplets (the scaling reads them)
    int* jcn;
    int* perm;  // perm[k]: the original index of the analysis' k-th column
    int nsuper;
    int* super;  // nsuper + 1: each supernode's first (permuted) column
    int* rptr;   // nsuper + 1
    int* rows;   // each supernode's rows below its columns (permuted)
    int* parent; // -1 at a root
    int* post;   // the supernodes in a postorder of their tree
    int* child;  // children lists: cptr (nsuper + 1), child
    int* cptr;
    int* aptr;   // n + 1: the triplets by permuted column min(pi, pj)
    int* ae;     // their index
    int* ar;     // their row max(pi, pj), as a place in its supernode's columns and rows
    // numeric
    double* sc; // n: the symmetric scaling (by original index)
    double* x;  // n: the solve's permuted unknowns
    int* map;   // n: a front's local index of a permuted index, -1 outside
    int* fm;    // per supernode: the front's order, pivots eliminated, offsets of its row list, L, D
    int* fne;
    size_t* fidx;
    size_t* fL;
    int* fpiv;
    int* idx; // the fronts' row lists (permuted indices)
    size_t idx_cap;
    double* L;
    size_t L_cap;
    double* d1; // n: D's inverse: 1x1: d1 = 1/d; 2x2 at k: [d1[k] d2[k]; d2[k] d1[k + 1]]
    double* d2;
    int* piv;   // n: 1, 2 (first row of a 2x2), 0 (its second)
    double* dg; // n: D itself: the diagonal, and a 2x2's off-diagonal at its first row
    double* dgo;
    int* deferred; // per supernode: a leaf whose update its parent applies (leaf_update)
    int analysed;  // the order and the symbolic factor, made at the first factorisation
    // work
    double* F; // the front
    size_t F_cap;
    int* fi; // its row list
    int* lmap; // a child's rows' places in its parent's front
    double* w; // the pivots' columns before scaling (2 x the front), then W and its pivots
    size_t w_cap;
    double* stk; // the contribution blocks' stack: values, row lists, per supernode where
    size_t stk_cap, stk_top;
    int* stki;
    size_t stki_cap, stki_top;
    size_t* cb_off;
    size_t* cbi_off;
    int* cb_m;
    int* cb_nd;
};

static int grow(void** p, size_t* cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void* q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}

void kkt_sparse_free(kkt_sparse* f) {
    if (!f) return;
    void* ps[] = {f->irn, f->jcn, f->perm, f->super, f->rptr, f->rows, f->parent, f->post,
                  f->child, f->cptr, f->aptr, f->ae, f->ar, f->sc, f->x, f->map, f->fm,
                  f->fne, f->fidx, f->fL, f->fpiv, f->idx, f->L, f->d1, f->d2, f->piv, f->F,
                  f->fi, f->lmap, f->w, f->stk, f->stki, f->cb_off, f->cbi_off, f->cb_m, f->cb_nd, f->dg, f->dgo, f->deferred};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) free(ps[i]);
    free(f);
}

// The symbolic analysis: CHOLMOD's supernodal one of the pattern in the order given (perm:
// perm[k] the original index of the k-th, CHOLMOD postorders it) or AMD's (perm NULL), and
// the tree, postorder and assembly lists derived from it; the earlier analysis' arrays, if
// any, are replaced. 0, or -1 when out of memory.
static int symbolic(kkt_sparse* f, const int* given) {
    const int n = f->n, ne = f->ne;
    const int* irn = f->irn;
    const int* jcn = f->jcn;
    const size_t N = (size_t)n, NE = (size_t)(ne > 0 ? ne : 1);
    void* old[] = {f->super, f->rptr, f->rows, f->parent, f->post, f->cptr, f->child, f->fm,
                   f->fne, f->fidx, f->fL, f->fpiv, f->cb_off, f->cbi_off, f->cb_m, f->cb_nd,
                   f->deferred};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) free(old[i]);
    f->super = f->rptr = f->rows = f->parent = f->post = f->cptr = f->child = NULL;
    f->fm = f->fne = f->fpiv = f->cb_m = f->cb_nd = f->deferred = NULL;
    f->fidx = f->fL = f->cb_off = f->cbi_off = NULL;
    f->nsuper = 0;
    memset(f->aptr, 0, sizeof(int) * (N + 1));
    int* ip = malloc(sizeof(int) * N);
    int* mark = malloc(sizeof(int) * N);
    if (!ip || !mark) {
        free(ip), free(mark);
        return -1;
    }
    // the lower triangle's pattern, without duplicates, for CHOLMOD
    int* cnt = calloc(N + 1, sizeof(int));
    if (!cnt) {
        free(ip), free(mark);
        return -1;
    }
    for (int e = 0; e < ne; e++) cnt[(irn[e] < jcn[e] ? irn[e] : jcn[e]) + 1]++;
    for (int j = 0; j < n; j++) cnt[j + 1] += cnt[j];
    int* ri = malloc(sizeof(int) * NE);
    int* pos = malloc(sizeof(int) * N);
    cholmod_common cc;
    cholmod_start(&cc);
    cc.supernodal = CHOLMOD_SUPERNODAL;
    cc.nmethods = 1;
    cc.method[0].ordering = given ? CHOLMOD_GIVEN : CHOLMOD_AMD;
    cc.postorder = 1;
    cc.print = 0;
    cholmod_sparse* A = ri && pos ? cholmod_allocate_sparse(N, N, NE, 0, 1, -1, CHOLMOD_PATTERN, &cc) : NULL;
    cholmod_factor* Lf = NULL;
    int ok = A != NULL;
    if (ok) {
        memcpy(pos, cnt, sizeof(int) * N);
        for (int e = 0; e < ne; e++) {
            const int c = irn[e] < jcn[e] ? irn[e] : jcn[e];
            ri[pos[c]++] = irn[e] < jcn[e] ? jcn[e] : irn[e];
        }
        int* Ap = A->p;
        int* Ai = A->i;
        int nz = 0;
        for (int i = 0; i < n; i++) mark[i] = -1;
        for (int j = 0; j < n; j++) {
            Ap[j] = nz;
            for (int p = cnt[j]; p < cnt[j + 1]; p++) {
                if (mark[ri[p]] != j) mark[ri[p]] = j, Ai[nz++] = ri[p];
            }
        }
        Ap[n] = nz;
        Lf = given ? cholmod_analyze_p(A, (int*)given, NULL, 0, &cc) : cholmod_analyze(A, &cc);
        ok = Lf && Lf->is_super && Lf->s;
    }
    if (ok) {
        const int* P = Lf->Perm;
        for (int k = 0; k < n; k++) f->perm[k] = P[k], ip[P[k]] = k;
        const int ns = (int)Lf->nsuper;
        const int* Super = Lf->super;
        const int* Pi = Lf->pi;
        const int* Ls = Lf->s;
        f->super = malloc(sizeof(int) * (size_t)(ns + 1));
        f->rptr = malloc(sizeof(int) * (size_t)(ns + 1));
        f->rows = malloc(sizeof(int) * (size_t)(Pi[ns] > 0 ? Pi[ns] : 1));
        f->parent = malloc(sizeof(int) * (size_t)ns);
        f->post = malloc(sizeof(int) * (size_t)ns);
        f->cptr = calloc((size_t)ns + 1, sizeof(int));
        f->child = malloc(sizeof(int) * (size_t)(ns > 0 ? ns : 1));
        f->fm = malloc(sizeof(int) * (size_t)ns), f->fne = malloc(sizeof(int) * (size_t)ns);
        f->fidx = malloc(sizeof(size_t) * (size_t)ns), f->fL = malloc(sizeof(size_t) * (size_t)ns);
        f->fpiv = malloc(sizeof(int) * (size_t)ns);
        f->cb_off = malloc(sizeof(size_t) * (size_t)ns), f->cbi_off = malloc(sizeof(size_t) * (size_t)ns);
        f->cb_m = malloc(sizeof(int) * (size_t)ns), f->cb_nd = malloc(sizeof(int) * (size_t)ns);
        f->deferred = calloc((size_t)ns + 1, sizeof(int));
        int* col2s = malloc(sizeof(int) * N);
        ok = f->super && f->rptr && f->rows && f->parent && f->post && f->cptr && f->child &&
             f->fm && f->fne && f->fidx && f->fL && f->fpiv && f->cb_off && f->cbi_off &&
             f->cb_m && f->cb_nd && f->deferred && col2s;
        if (ok) {
            int nr = 0;
            for (int s = 0; s < ns; s++) {
                f->super[s] = Super[s];
                for (int j = Super[s]; j < Super[s + 1]; j++) col2s[j] = s;
                const int ncol = Super[s + 1] - Super[s];
                f->rptr[s] = nr;
                for (int p = Pi[s] + ncol; p < Pi[s + 1]; p++) f->rows[nr++] = Ls[p];
            }
            f->super[ns] = Super[ns], f->rptr[ns] = nr;
            for (int s = 0; s < ns; s++) {
                int rmin = n;
                for (int p = f->rptr[s]; p < f->rptr[s + 1]; p++) rmin = f->rows[p] < rmin ? f->rows[p] : rmin;
                f->parent[s] = rmin < n ? col2s[rmin] : -1;
                if (f->parent[s] >= 0) f->cptr[f->parent[s] + 1]++;
            }
            for (int s = 0; s < ns; s++) f->cptr[s + 1] += f->cptr[s];
            int* cp = pos; // reused: the children lists' fill pointers
            for (int s = 0; s < ns; s++) cp[s] = f->cptr[s];
            for (int s = 0; s < ns; s++) {
                if (f->parent[s] >= 0) f->child[cp[f->parent[s]]++] = s;
            }
            // a postorder: depth first from each root, children before their parent
            int* stack = mark;
            int np = 0;
            for (int r = 0; r < ns; r++) {
                if (f->parent[r] >= 0) continue;
                int top = 0;
                stack[top] = r, cp[r] = f->cptr[r];
                while (top >= 0) {
                    const int s = stack[top];
                    if (cp[s] < f->cptr[s + 1]) {
                        const int c = f->child[cp[s]++];
                        stack[++top] = c, cp[c] = f->cptr[c];
                    } else {
                        f->post[np++] = s, top--;
                    }
                }
            }
            ok = np == ns;
            if (ok) f->nsuper = ns;
        }
        free(col2s);
    }
    if (ok) { // the triplets by the permuted column they are assembled into
        for (int e = 0; e < ne; e++) {
            const int a = ip[irn[e]], b = ip[jcn[e]];
            f->aptr[(a < b ? a : b) + 1]++;
        }
        for (int j = 0; j < n; j++) f->aptr[j + 1] += f->aptr[j];
        memcpy(pos, f->aptr, sizeof(int) * N);
        for (int e = 0; e < ne; e++) {
            const int a = ip[irn[e]], b = ip[jcn[e]];
            const int c = a < b ? a : b;
            f->ae[pos[c]] = e, f->ar[pos[c]++] = a < b ? b : a;
        }
        // the rows as places in their supernode's list (its columns, then its rows): a front's
        // place is that plus the delayed columns it receives
        int* loc = pos;
        for (int s = 0; s < f->nsuper && ok; s++) {
            const int ncol = f->super[s + 1] - f->super[s];
            for (int j = 0; j < ncol; j++) loc[f->super[s] + j] = j;
            for (int p = f->rptr[s]; p < f->rptr[s + 1]; p++) loc[f->rows[p]] = ncol + p - f->rptr[s];
            for (int c = f->super[s]; c < f->super[s + 1]; c++) {
                for (int p = f->aptr[c]; p < f->aptr[c + 1]; p++) f->ar[p] = loc[f->ar[p]];
            }
        }
    }
    if (Lf) cholmod_free_factor(&Lf, &cc);
    if (A) cholmod_free_sparse(&A, &cc);
    cholmod_finish(&cc);
    free(cnt), free(ri), free(pos), free(ip), free(mark);
    return ok ? 0 : -1;
}


kkt_sparse* kkt_sparse_analyse(int n, int ne, const int* irn, const int* jcn) {
    if (n <= 0 || ne < 0) return NULL;
    for (int e = 0; e < ne; e++) {
        if (irn[e] < 0 || irn[e] >= n || jcn[e] < 0 || jcn[e] >= n) return NULL;
    }
    kkt_sparse* f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->n = n, f->ne = ne;
    const size_t N = (size_t)n, NE = (size_t)(ne > 0 ? ne : 1);
    f->irn = malloc(sizeof(int) * NE), f->jcn = malloc(sizeof(int) * NE);
    f->perm = malloc(sizeof(int) * N);
    f->aptr = calloc(N + 1, sizeof(int)), f->ae = malloc(sizeof(int) * NE), f->ar = malloc(sizeof(int) * NE);
    f->sc = malloc(sizeof(double) * N), f->x = malloc(sizeof(double) * N);
    f->map = malloc(sizeof(int) * N);
    f->d1 = malloc(sizeof(double) * N), f->d2 = malloc(sizeof(double) * N), f->piv = malloc(sizeof(int) * N);
    f->dg = malloc(sizeof(double) * N), f->dgo = malloc(sizeof(double) * N);
    f->fi = malloc(sizeof(int) * N), f->lmap = malloc(sizeof(int) * N); // a front has at most n rows
    if (!f->irn || !f->jcn || !f->perm || !f->aptr || !f->ae || !f->ar || !f->sc || !f->x ||
        !f->map || !f->d1 || !f->d2 || !f->piv || !f->dg || !f->dgo || !f->fi || !f->lmap) {
        kkt_sparse_free(f);
        return NULL;
    }
    memcpy(f->irn, irn, sizeof(int) * (size_t)ne);
    memcpy(f->jcn, jcn, sizeof(int) * (size_t)ne);
    for (int i = 0; i < n; i++) f->map[i] = -1;
    return f;
}

void kkt_sparse_pattern(const kkt_sparse* f, int* irn, int* jcn) {
    memcpy(irn, f->irn, sizeof(int) * (size_t)f->ne);
    memcpy(jcn, f->jcn, sizeof(int) * (size_t)f->ne);
}

// ---------------------------------------------------------------------------------------------
// one front

#define F_(i, j) F[(size_t)(j) * (size_t)m + (size_t)(i)]

// swaps rows and columns p and q of the front (lower triangle stored), and their row-list entries
static void front_swap(double* F, int m, int* fi, int p, int q) {
    if (p == q) return;
    if (p > q) {
        const int t = p;
        p = q, q = t;
    }
    double t;
    for (int c = 0; c < p; c++) t = F_(p, c), F_(p, c) = F_(q, c), F_(q, c) = t;
    t = F_(p, p), F_(p, p) = F_(q, q), F_(q, q) = t;
    for (int c = p + 1; c < q; c++) t = F_(c, p), F_(c, p) = F_(q, c), F_(q, c) = t;
    for (int r = q + 1; r < m; r++) t = F_(r, p), F_(r, p) = F_(r, q), F_(r, q) = t;
    const int ti = fi[p];
    fi[p] = fi[q], fi[q] = ti;
}

// |a_ij| of the symmetric front, i != j
static inline double absat(const double* F, int m, int i, int j) { return fabs(i > j ? F_(i, j) : F_(j, i)); }

typedef struct front_counts {
    int pos, neg, zero, two;
    double flops;
} front_counts;

static void count_2x2(double a, double b, double c, front_counts* n) {
    const double det = a * c - b * b, tr = a + c;
    if (det < 0.0) n->pos++, n->neg++;
    else if (det > 0.0) {
        if (tr > 0.0) n->pos += 2;
        else n->neg += 2;
    } else { // cannot happen for an accepted 2x2 (det != 0), kept for completeness
        n->zero++;
        if (tr > 0.0) n->pos++;
        else if (tr < 0.0) n->neg++;
        else n->zero++;
    }
}

// eliminates the 1x1 pivot at k (after the swap), updating the panel's columns k+1 .. nfs-1
static void elim_1x1(double* F, int m, int nfs, int k, double* w, front_counts* cnt) {
    const double d = F_(k, k), dinv = 1.0 / d;
    double* Lk = &F_(0, k);
    for (int i = k + 1; i < m; i++) w[i] = Lk[i], Lk[i] *= dinv;
    for (int j = k + 1; j < nfs; j++) {
        const double wj = w[j];
        if (wj == 0.0) continue;
        double* Fj = &F_(0, j);
        for (int i = j; i < m; i++) Fj[i] -= Lk[i] * wj;
        cnt->flops += m - j;
    }
    cnt->flops += m - k;
}

// the 2x2 pivot at (k, k + 1)
static void elim_2x2(double* F, int m, int nfs, int k, double* w, double* e, double* fo, double* g) {
    const double a = F_(k, k), b = F_(k + 1, k), c = F_(k + 1, k + 1);
    const double det = a * c - b * b;
    *e = c / det, *fo = -b / det, *g = a / det;
    double* L0 = &F_(0, k);
    double* L1 = &F_(0, k + 1);
    double* w0 = w;
    double* w1 = w + m;
    for (int i = k + 2; i < m; i++) {
        w0[i] = L0[i], w1[i] = L1[i];
        L0[i] = w0[i] * *e + w1[i] * *fo;
        L1[i] = w0[i] * *fo + w1[i] * *g;
    }
    L0[k + 1] = 0.0;
    for (int j = k + 2; j < nfs; j++) {
        const double a0 = w0[j], a1 = w1[j];
        if (a0 == 0.0 && a1 == 0.0) continue;
        double* Fj = &F_(0, j);
        for (int i = j; i < m; i++) Fj[i] -= L0[i] * a0 + L1[i] * a1;
    }
}

// Bunch-Kaufman's choice at column k when every row is fully summed (a root): returns the
// size, the rows to bring to k (and k + 1)
static int bk_choice(const double* F, int m, int k, int* p, int* q) {
    const double alpha = (1.0 + sqrt(17.0)) / 8.0;
    const double akk = fabs(F_(k, k));
    int r = k;
    double colmax = 0.0;
    for (int i = k + 1; i < m; i++) {
        if (fabs(F_(i, k)) > colmax) colmax = fabs(F_(i, k)), r = i;
    }
    *p = k, *q = -1;
    if (akk >= alpha * colmax) return 1;
    double rowmax = 0.0;
    for (int j = k; j < m; j++) {
        if (j != r && absat(F, m, r, j) > rowmax) rowmax = absat(F, m, r, j);
    }
    if (akk * rowmax >= alpha * colmax * colmax) return 1;
    if (fabs(F_(r, r)) >= alpha * rowmax) {
        *p = r;
        return 1;
    }
    *p = k, *q = r;
    return 2;
}

// The pivot for column k of the front among its fully summed columns k .. nfs - 1 at threshold
// u (the rules above): 1 a 1x1 at *p, 2 a 2x2 at (*p, *q), 3 a zero pivot at *p, 0 none
static int find_pivot(const double* F, int m, int nfs, int k, double u, int* p, int* q) {
    for (int j = k; j < nfs; j++) {
        const double ajj = fabs(F_(j, j));
        double gam = 0.0;
        int r = -1;
        for (int i = k; i < nfs; i++) {
            if (i == j) continue;
            const double v = absat(F, m, i, j);
            if (v > gam) gam = v, r = i;
        }
        for (int i = nfs; i < m; i++) gam = MAXD(gam, fabs(F_(i, j)));
        if (gam <= ZERO_PIVOT && ajj <= ZERO_PIVOT) {
            *p = j;
            return 3;
        }
        if (ajj > ZERO_PIVOT && ajj >= u * gam) {
            *p = j;
            return 1;
        }
        if (r < 0) continue;
        double gj = 0.0, gr = 0.0;
        for (int i = k; i < m; i++) {
            if (i == j || i == r) continue;
            gj = MAXD(gj, absat(F, m, i, j));
            gr = MAXD(gr, absat(F, m, i, r));
        }
        const double a = F_(j, j), c = F_(r, r), b = r > j ? F_(r, j) : F_(j, r);
        const double ad = fabs(a * c - b * b);
        if (ad > 0.0 && u * (fabs(c) * gj + fabs(b) * gr) <= ad &&
            u * (fabs(b) * gj + fabs(a) * gr) <= ad && ad > ZERO_PIVOT * ZERO_PIVOT) {
            *p = j, *q = r;
            return 2;
        }
    }
    return 0;
}

// Eliminates what it can of the front's nfs fully summed columns; returns the count. By pivot:
// d1, d2 receive D's inverse, dg, dgo D itself (the diagonal; a 2x2's off-diagonal at its
// first row), piv the block kinds.
static int front_factor(double* F, int m, int nfs, double u, int* fi, double* w, double* d1,
                        double* d2, double* dg, double* dgo, int* piv, front_counts* cnt) {
    int k = 0;
    while (k < nfs) {
        int p = -1, q = -1;
        // the threshold u first; where no column passes it, IPOPT's own 1e-8 (u is higher only
        // when IPOPT has raised it for accuracy) before a column is delayed: a delay at u = 1e-4
        // cascaded to fronts of a thousand rows on the zoo's humanoids
        int kind = find_pivot(F, m, nfs, k, u, &p, &q);
        if (!kind && u > U_LOW) kind = find_pivot(F, m, nfs, k, U_LOW, &p, &q);
        if (!kind) {
            if (m > nfs) break; // delayed to the parent
            kind = bk_choice(F, m, k, &p, &q);
            if (kind == 1 && fabs(F_(p, p)) <= ZERO_PIVOT) {
                double g = 0.0;
                for (int i = k; i < m; i++) {
                    if (i != p) g = MAXD(g, absat(F, m, i, p));
                }
                if (g <= ZERO_PIVOT) kind = 3;
            }
        }
        if (kind == 3 || kind == 1) {
            front_swap(F, m, fi, k, p);
            piv[k] = 1, d2[k] = 0.0, dgo[k] = 0.0;
            if (kind == 3) {
                for (int i = k; i < m; i++) F_(i, k) = 0.0;
                d1[k] = 0.0, dg[k] = 0.0;
                cnt->zero++;
            } else {
                const double d = F_(k, k);
                dg[k] = d, d1[k] = 1.0 / d;
                if (d > 0.0) cnt->pos++;
                else cnt->neg++;
                elim_1x1(F, m, nfs, k, w, cnt);
            }
            k++;
        } else {
            front_swap(F, m, fi, k, p);
            if (q == k) q = p;
            front_swap(F, m, fi, k + 1, q);
            const double a = F_(k, k), b = F_(k + 1, k), c = F_(k + 1, k + 1);
            count_2x2(a, b, c, cnt);
            cnt->two++;
            dg[k] = a, dg[k + 1] = c, dgo[k] = b, dgo[k + 1] = 0.0;
            double e, fo, g;
            elim_2x2(F, m, nfs, k, w, &e, &fo, &g);
            d1[k] = e, d2[k] = fo, d1[k + 1] = g;
            d2[k + 1] = 0.0;
            piv[k] = 2, piv[k + 1] = 0;
            cnt->flops += 3.0 * (m - k) + (double)(nfs - k - 2) * (m - k);
            k += 2;
        }
    }
    return k;
}

// W = L D over the contribution block's rows nfs .. m - 1 (nc x ne, row j contiguous) for the
// front's L (m x ne, leading dimension m), and the pivots whose W is not all zero (a slack's
// pivot has none below its multiplier's row): returns their count, live[] their places
static int make_W(const double* F, int m, int nfs, int ne, const int* piv, const double* dg,
                  const double* dgo, double* W, int* live) {
    const int nc = m - nfs;
    for (int k = 0; k < ne; k++) {
        const double* Lk = &F_(0, k);
        if (piv[k] == 1) {
            for (int j = 0; j < nc; j++) W[(size_t)j * ne + k] = Lk[nfs + j] * dg[k];
        } else if (piv[k] == 2) {
            const double* Lk1 = &F_(0, k + 1);
            const double a = dg[k], b = dgo[k], c = dg[k + 1];
            for (int j = 0; j < nc; j++) {
                const double l0 = Lk[nfs + j], l1 = Lk1[nfs + j];
                W[(size_t)j * ne + k] = l0 * a + l1 * b;
                W[(size_t)j * ne + k + 1] = l0 * b + l1 * c;
            }
        }
    }
    int nl = 0;
    for (int k = 0; k < ne; k++) {
        int nz = 0;
        for (int j = 0; j < nc && !nz; j++) nz = W[(size_t)j * ne + k] != 0.0;
        if (nz) live[nl++] = k;
    }
    return nl;
}

// C -= L W' over the contribution block's columns nfs .. m - 1 (rows i >= j), W = L D by the
// ne pivots: four pivots a pass
static void front_update(double* F, int m, int nfs, int ne, const int* piv, const double* dg,
                         const double* dgo, double* W, front_counts* cnt) {
    const int nc = m - nfs;
    if (nc <= 0 || ne <= 0) return;
    int* live = (int*)(W + (size_t)nc * (size_t)ne);
    const int nl = make_W(F, m, nfs, ne, piv, dg, dgo, W, live);
    // two columns of C a pass where they share the rows (the second's diagonal entry apart)
    int jj = 0;
    for (; jj + 2 <= nc; jj += 2) {
        const int j = nfs + jj;
        double* Fa = &F_(0, j);
        double* Fb = &F_(0, j + 1);
        const double* wa = &W[(size_t)jj * ne];
        const double* wb = &W[(size_t)(jj + 1) * ne];
        int q = 0;
        for (; q + 4 <= nl; q += 4) {
            const int k0 = live[q], k1 = live[q + 1], k2 = live[q + 2], k3 = live[q + 3];
            const double a0 = wa[k0], a1 = wa[k1], a2 = wa[k2], a3 = wa[k3];
            const double b0 = wb[k0], b1 = wb[k1], b2 = wb[k2], b3 = wb[k3];
            const double* L0 = &F_(0, k0);
            const double* L1 = &F_(0, k1);
            const double* L2 = &F_(0, k2);
            const double* L3 = &F_(0, k3);
            Fa[j] -= (L0[j] * a0 + L1[j] * a1) + (L2[j] * a2 + L3[j] * a3);
            for (int i = j + 1; i < m; i++) {
                const double l0 = L0[i], l1 = L1[i], l2 = L2[i], l3 = L3[i];
                Fa[i] -= (l0 * a0 + l1 * a1) + (l2 * a2 + l3 * a3);
                Fb[i] -= (l0 * b0 + l1 * b1) + (l2 * b2 + l3 * b3);
            }
        }
        for (; q < nl; q++) {
            const double a0 = wa[live[q]], b0 = wb[live[q]];
            const double* L0 = &F_(0, live[q]);
            Fa[j] -= L0[j] * a0;
            for (int i = j + 1; i < m; i++) Fa[i] -= L0[i] * a0, Fb[i] -= L0[i] * b0;
        }
        cnt->flops += (double)nl * (2 * (m - j) - 1);
    }
    for (; jj < nc; jj++) {
        const int j = nfs + jj;
        double* Fj = &F_(0, j);
        const double* wj = &W[(size_t)jj * ne];
        for (int q = 0; q < nl; q++) {
            const double w0 = wj[live[q]];
            const double* L0 = &F_(0, live[q]);
            for (int i = j; i < m; i++) Fj[i] -= L0[i] * w0;
        }
        cnt->flops += (double)nl * (m - j);
    }
}

// A leaf's update applied in its parent's front F (order m) without a contribution block: the
// leaf (L: mc x nec, all its columns eliminated) never had one but its pivots' - L W', which
// goes straight to its rows' places lm (nc = mc - nec, ascending there too)
static void leaf_update(double* F, int m, const double* Lc, int mc, int nec, const int* lm,
                        const int* piv, const double* dg, const double* dgo, double* W,
                        front_counts* cnt) {
    const int nc = mc - nec;
    if (nc <= 0 || nec <= 0) return;
    int* live = (int*)(W + (size_t)nc * (size_t)nec);
    const int nl = make_W(Lc, mc, nec, nec, piv, dg, dgo, W, live);
    for (int jj = 0; jj < nc; jj++) {
        double* col = &F_(0, lm[jj]);
        const double* wj = &W[(size_t)jj * nec];
        int q = 0;
        for (; q + 2 <= nl; q += 2) {
            const double w0 = wj[live[q]], w1 = wj[live[q + 1]];
            const double* L0 = &Lc[(size_t)live[q] * mc + nec];
            const double* L1 = &Lc[(size_t)live[q + 1] * mc + nec];
            for (int ii = jj; ii < nc; ii++) col[lm[ii]] -= L0[ii] * w0 + L1[ii] * w1;
        }
        if (q < nl) {
            const double w0 = wj[live[q]];
            const double* L0 = &Lc[(size_t)live[q] * mc + nec];
            for (int ii = jj; ii < nc; ii++) col[lm[ii]] -= L0[ii] * w0;
        }
        cnt->flops += (double)nl * (nc - jj);
    }
}

// The order from values (the first factorisation's): a row whose diagonal is zero (a
// constraint's, in IPOPT's augmented system) that AMD orders before all its neighbours is
// eliminated first in its front, where no pivot passes: its column is delayed, and the delays
// pile up towards the root (a tenth of the columns on the zoo's humanoids, a factor half again
// as large as predicted, and more when IPOPT raises the pivot threshold). So each such row is
// matched with a neighbour that has a diagonal (the largest entry among the unmatched), AMD
// orders the graph with each pair as one node, and the pair is eliminated together, the
// neighbour first: its pivot fills the row's diagonal, or the two make a 2x2 pivot. 1 when it
// made the order and the symbolic factor, 0 when there is no zero diagonal (AMD's order on the
// pattern serves), -1 when out of memory.
static int match_order(kkt_sparse* f, const double* a) {
    const int n = f->n, ne = f->ne;
    const size_t N = (size_t)n;
    double* diag = calloc(N, sizeof(double));
    int* deg = calloc(N + 1, sizeof(int));
    int* mate = malloc(sizeof(int) * N);
    int* node = malloc(sizeof(int) * N);
    int* adj = malloc(sizeof(int) * 2 * (size_t)(ne > 0 ? ne : 1));
    double* wadj = malloc(sizeof(double) * 2 * (size_t)(ne > 0 ? ne : 1));
    int* pos = malloc(sizeof(int) * (N + 1));
    int st = -1;
    int *Cp = NULL, *Ci = NULL, *Pc = NULL, *perm = NULL, *mark = NULL, *first = NULL, *second = NULL;
    if (!diag || !deg || !mate || !node || !adj || !wadj || !pos) goto done;
    int nz = 0;
    for (int e = 0; e < ne; e++) {
        if (f->irn[e] == f->jcn[e]) diag[f->irn[e]] += a[e];
        else deg[f->irn[e] + 1]++, deg[f->jcn[e] + 1]++;
    }
    for (int i = 0; i < n; i++) nz += diag[i] == 0.0;
    if (nz == 0) {
        st = 0;
        goto done;
    }
    for (int i = 0; i < n; i++) deg[i + 1] += deg[i];
    memcpy(pos, deg, sizeof(int) * (N + 1));
    for (int e = 0; e < ne; e++) {
        const int i = f->irn[e], j = f->jcn[e];
        if (i == j) continue;
        adj[pos[i]] = j, wadj[pos[i]++] = fabs(a[e]);
        adj[pos[j]] = i, wadj[pos[j]++] = fabs(a[e]);
    }
    for (int i = 0; i < n; i++) mate[i] = -1;
    for (int i = 0; i < n; i++) {
        if (diag[i] != 0.0) continue;
        int best = -1;
        double bw = 0.0;
        for (int p = deg[i]; p < deg[i + 1]; p++) {
            const int j = adj[p];
            if (diag[j] == 0.0 || mate[j] >= 0 || wadj[p] <= bw) continue;
            best = j, bw = wadj[p];
        }
        if (best >= 0) mate[i] = best, mate[best] = i;
    }
    // the compressed graph: a node per pair or single row
    int nc = 0;
    first = malloc(sizeof(int) * N), second = malloc(sizeof(int) * N);
    if (!first || !second) goto done;
    for (int i = 0; i < n; i++) {
        if (mate[i] >= 0 && mate[i] < i) continue; // its pair has its node
        node[i] = nc;
        first[nc] = i, second[nc] = -1;
        if (mate[i] >= 0) { // the row with the diagonal first
            const int j = mate[i];
            node[j] = nc;
            if (diag[i] == 0.0) first[nc] = j, second[nc] = i;
            else second[nc] = j;
        }
        nc++;
    }
    Cp = calloc((size_t)nc + 1, sizeof(int));
    Ci = malloc(sizeof(int) * 2 * (size_t)(ne > 0 ? ne : 1));
    Pc = malloc(sizeof(int) * (size_t)(nc > 0 ? nc : 1));
    perm = malloc(sizeof(int) * N);
    mark = malloc(sizeof(int) * (size_t)(nc > 0 ? nc : 1));
    if (!Cp || !Ci || !Pc || !perm || !mark) goto done;
    for (int c = 0; c < nc; c++) mark[c] = -1;
    int k = 0;
    for (int c = 0; c < nc; c++) {
        Cp[c] = k;
        for (int h = 0; h < 2; h++) {
            const int i = h ? second[c] : first[c];
            if (i < 0) continue;
            for (int p = deg[i]; p < deg[i + 1]; p++) {
                const int d = node[adj[p]];
                if (d != c && mark[d] != c) mark[d] = c, Ci[k++] = d;
            }
        }
    }
    Cp[nc] = k;
    if (amd_order(nc, Cp, Ci, Pc, NULL, NULL) < 0) goto done;
    k = 0;
    for (int q = 0; q < nc; q++) {
        const int c = Pc[q];
        perm[k++] = first[c];
        if (second[c] >= 0) perm[k++] = second[c];
    }
    st = symbolic(f, perm) == 0 ? 1 : -1;
done:
    free(diag), free(deg), free(mate), free(node), free(adj), free(wadj), free(pos);
    free(Cp), free(Ci), free(Pc), free(perm), free(mark), free(first), free(second);
    return st;
}

int kkt_sparse_predict(kkt_sparse* f, double* factor_entries, double* flops) {
    if (symbolic(f, NULL) != 0) return -1;
    double lnz = 0.0, fl = 0.0;
    for (int s = 0; s < f->nsuper; s++) {
        const int ncol = f->super[s + 1] - f->super[s], nrow = f->rptr[s + 1] - f->rptr[s];
        for (int k = 0; k < ncol; k++) {
            const double r = (double)(ncol - k - 1 + nrow); // the column's entries below
            lnz += r, fl += r * (r + 1.0) / 2.0;
        }
    }
    f->analysed = 0; // the first factorisation orders the matrix again, from its values
    *factor_entries = lnz, *flops = fl;
    return 0;
}


int kkt_sparse_factor(kkt_sparse* f, const double* a, double u, kkt_sparse_info* info) {
    if (!f->analysed) { // once: the order from the values (SALTO_KKT_NOMATCH, a measuring
        // aid: AMD's order from the pattern alone), and the symbolic factor
        const int mo = getenv("SALTO_KKT_NOMATCH") ? 0 : match_order(f, a);
        if (mo != 1 && symbolic(f, NULL) != 0) return -1;
        f->analysed = 1;
    }
    if (u < 1e-12) u = 1e-12;
    if (u > 0.5) u = 0.5;
    const int n = f->n;
    // the equilibration: s_i = 1 / sqrt(max_j |a_ij|)
    double* sc = f->sc;
    for (int i = 0; i < n; i++) sc[i] = 0.0;
    for (int e = 0; e < f->ne; e++) {
        const double v = fabs(a[e]);
        if (v > sc[f->irn[e]]) sc[f->irn[e]] = v;
        if (v > sc[f->jcn[e]]) sc[f->jcn[e]] = v;
    }
    for (int i = 0; i < n; i++) sc[i] = sc[i] > 0.0 ? 1.0 / sqrt(sc[i]) : 1.0;

    front_counts cnt = {0, 0, 0, 0, 0.0};
    int delayed = 0, max_front = 0;
    size_t Ltop = 0, itop = 0;
    int ptop = 0;
    f->stk_top = f->stki_top = 0;
    for (int t = 0; t < f->nsuper; t++) {
        const int s = f->post[t];
        int nd = 0;
        for (int c = f->cptr[s]; c < f->cptr[s + 1]; c++) nd += f->cb_nd[f->child[c]];
        const int ncol = f->super[s + 1] - f->super[s];
        const int nrow = f->rptr[s + 1] - f->rptr[s];
        const int m = nd + ncol + nrow, nfs = nd + ncol;
        if (m > max_front) max_front = m;
        if (grow((void**)&f->F, &f->F_cap, (size_t)m * (size_t)m, sizeof(double)) ||
            grow((void**)&f->w, &f->w_cap, (size_t)m * (size_t)m + 3 * (size_t)m, sizeof(double)))
            return -1;
        double* F = f->F;
        int* fi = f->fi;
        int l = 0;
        for (int c = f->cptr[s]; c < f->cptr[s + 1]; c++) {
            const int ch = f->child[c];
            const int* ci = &f->stki[f->cbi_off[ch]];
            for (int i = 0; i < f->cb_nd[ch]; i++) fi[l++] = ci[i];
        }
        for (int j = f->super[s]; j < f->super[s + 1]; j++) fi[l++] = j;
        for (int p = f->rptr[s]; p < f->rptr[s + 1]; p++) fi[l++] = f->rows[p];
        for (int i = 0; i < m; i++) f->map[fi[i]] = i;
        // a leaf's contribution block starts empty: only its panel is zeroed (and the rest if
        // a column is delayed), and when all its columns are eliminated its parent applies its
        // update itself (leaf_update)
        const int leaf = f->cptr[s + 1] == f->cptr[s] && f->parent[s] >= 0;
        for (int j = 0; j < (leaf ? nfs : m); j++) memset(&F_(j, j), 0, sizeof(double) * (size_t)(m - j));
        // the matrix's entries of the supernode's columns
        for (int c = f->super[s]; c < f->super[s + 1]; c++) {
            double* Fc = &F_(nd, nd + c - f->super[s]);
            for (int p = f->aptr[c]; p < f->aptr[c + 1]; p++) {
                const int e = f->ae[p];
                Fc[f->ar[p]] += a[e] * sc[f->irn[e]] * sc[f->jcn[e]];
            }
        }
        // the children's contribution blocks
        size_t new_top = f->stk_top, new_itop = f->stki_top;
        for (int c = f->cptr[s]; c < f->cptr[s + 1]; c++) {
            const int ch = f->child[c];
            int* lm = f->lmap;
            if (f->deferred[ch]) {
                const int mc = f->fm[ch], nec = f->fne[ch];
                const int* ci = &f->idx[f->fidx[ch]];
                for (int ii = nec; ii < mc; ii++) lm[ii - nec] = f->map[ci[ii]];
                const int p0 = f->fpiv[ch];
                if (grow((void**)&f->w, &f->w_cap, (size_t)(mc - nec) * (size_t)nec + (size_t)mc + 1, sizeof(double)))
                    return -1;
                leaf_update(F, m, &f->L[f->fL[ch]], mc, nec, lm, &f->piv[p0], &f->dg[p0],
                            &f->dgo[p0], f->w, &cnt);
                continue;
            }
            const int cm = f->cb_m[ch];
            const int* ci = &f->stki[f->cbi_off[ch]];
            const double* cv = &f->stk[f->cb_off[ch]];
            // the child's rows land in the same order in this front (its delayed columns
            // first, in their order, then rows that ascend here too): the lower triangle
            // maps into the lower triangle
            for (int ii = 0; ii < cm; ii++) lm[ii] = f->map[ci[ii]];
            for (int jj = 0; jj < cm; jj++) {
                double* Fc = &F_(0, lm[jj]);
                const double* cvj = &cv[(size_t)jj * cm];
                for (int ii = jj; ii < cm; ii++) Fc[lm[ii]] += cvj[ii];
            }
            if (f->cb_off[ch] < new_top) new_top = f->cb_off[ch];
            if (f->cbi_off[ch] < new_itop) new_itop = f->cbi_off[ch];
        }
        f->stk_top = new_top, f->stki_top = new_itop;

        const int ne = front_factor(F, m, nfs, u, fi, f->w, &f->d1[ptop], &f->d2[ptop],
                                    &f->dg[ptop], &f->dgo[ptop], &f->piv[ptop], &cnt);
        f->deferred[s] = leaf && ne == nfs;
        if (!f->deferred[s]) {
            if (leaf) {
                for (int j = nfs; j < m; j++) memset(&F_(j, j), 0, sizeof(double) * (size_t)(m - j));
            }
            front_update(F, m, nfs, ne, &f->piv[ptop], &f->dg[ptop], &f->dgo[ptop], f->w, &cnt);
        }
        delayed += nfs - ne;
        // keep L and the row list
        if (grow((void**)&f->L, &f->L_cap, Ltop + (size_t)m * (size_t)ne + 1, sizeof(double)) ||
            grow((void**)&f->idx, &f->idx_cap, itop + (size_t)m + 1, sizeof(int)))
            return -1;
        f->fm[s] = m, f->fne[s] = ne, f->fL[s] = Ltop, f->fidx[s] = itop, f->fpiv[s] = ptop;
        memcpy(&f->L[Ltop], F, sizeof(double) * (size_t)m * (size_t)ne);
        memcpy(&f->idx[itop], fi, sizeof(int) * (size_t)m);
        Ltop += (size_t)m * (size_t)ne, itop += (size_t)m, ptop += ne;
        // push the contribution block
        const int cm = f->deferred[s] ? 0 : m - ne;
        f->cb_m[s] = cm, f->cb_nd[s] = nfs - ne;
        if (cm > 0) {
            if (f->parent[s] < 0) return -1; // a root eliminates everything
            if (grow((void**)&f->stk, &f->stk_cap, f->stk_top + (size_t)cm * (size_t)cm, sizeof(double)) ||
                grow((void**)&f->stki, &f->stki_cap, f->stki_top + (size_t)cm, sizeof(int)))
                return -1;
            f->cb_off[s] = f->stk_top, f->cbi_off[s] = f->stki_top;
            double* cv = &f->stk[f->stk_top];
            for (int jj = 0; jj < cm; jj++) {
                memcpy(&cv[(size_t)jj * cm + jj], &F_(ne + jj, ne + jj), sizeof(double) * (size_t)(cm - jj));
            }
            memcpy(&f->stki[f->stki_top], &fi[ne], sizeof(int) * (size_t)cm);
            f->stk_top += (size_t)cm * (size_t)cm, f->stki_top += (size_t)cm;
        } else {
            f->cb_off[s] = f->stk_top, f->cbi_off[s] = f->stki_top;
        }
        for (int i = 0; i < m; i++) f->map[fi[i]] = -1;
    }
    if (info) {
        info->pos = cnt.pos, info->neg = cnt.neg, info->zero = cnt.zero;
        info->delayed = delayed, info->two_by_two = cnt.two, info->max_front = max_front;
        size_t le = 0;
        for (int s = 0; s < f->nsuper; s++) {
            const size_t mm = (size_t)f->fm[s], e = (size_t)f->fne[s];
            le += e * mm - e * (e + 1) / 2;
        }
        info->factor_entries = le;
        info->flops = cnt.flops;
    }
    return ptop == n ? 0 : -1;
}

void kkt_sparse_solve(const kkt_sparse* f, double* b) {
    const int n = f->n;
    double* x = f->x;
    for (int k = 0; k < n; k++) x[k] = b[f->perm[k]] * f->sc[f->perm[k]];
    for (int t = 0; t < f->nsuper; t++) {
        const int s = f->post[t];
        const int m = f->fm[s], ne = f->fne[s];
        const int* id = &f->idx[f->fidx[s]];
        const double* F = &f->L[f->fL[s]];
        for (int k = 0; k < ne; k++) {
            const double xk = x[id[k]];
            if (xk == 0.0) continue;
            const double* Lk = &F_(0, k);
            for (int i = k + 1; i < m; i++) x[id[i]] -= Lk[i] * xk;
        }
        const int p0 = f->fpiv[s];
        for (int k = 0; k < ne; k++) {
            const int p = p0 + k;
            if (f->piv[p] == 1) {
                x[id[k]] *= f->d1[p];
            } else if (f->piv[p] == 2) {
                const double x0 = x[id[k]], x1 = x[id[k + 1]];
                x[id[k]] = f->d1[p] * x0 + f->d2[p] * x1;
                x[id[k + 1]] = f->d2[p] * x0 + f->d1[p + 1] * x1;
            }
        }
    }
    for (int t = f->nsuper - 1; t >= 0; t--) {
        const int s = f->post[t];
        const int m = f->fm[s], ne = f->fne[s];
        const int* id = &f->idx[f->fidx[s]];
        const double* F = &f->L[f->fL[s]];
        for (int k = ne - 1; k >= 0; k--) {
            const double* Lk = &F_(0, k);
            double acc = 0.0;
            for (int i = k + 1; i < m; i++) acc += Lk[i] * x[id[i]];
            x[id[k]] -= acc;
        }
    }
    for (int k = 0; k < n; k++) b[f->perm[k]] = x[k] * f->sc[f->perm[k]];
}

