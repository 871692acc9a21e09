// hybrid.c: a hybrid body as a small model of its own (hybrid.h)
//
// The reduced model keeps the character's link order (a preorder stays one when links are
// dropped). Active link i becomes link k; its parent is the link that carries the rigid part
// holding i's parent link (part[p], -1 for the world's part). When i's parent link is active
// the tree transform is i's own; otherwise it is i's joint frame seen from the part's link:
// R_tree' = R_k' R_p R_tree, r_tree' = R_k' (p_p + R_p r_tree - p_k) at the positions given.
// A part's inertia is the sum of its links', about the carrying link's origin (not the world's,
// so that characters far from the origin lose no digits), then moved to its centre of mass and
// into the carrying link's frame.
#include "hybrid.h"

#include <math.h>
#include <string.h>

#include "salto/dynamics.h"
#include "salto/dca.h"
#include "salto/kinematics.h"
#include "linalg.h"
#include "salto/spatial.h"

struct salto_hybrid {
    const salto_model* m;
    salto_model r;    // the reduced model (arrays sized for m's nv links)
    salto_data* d;    // its data
    int* map;         // reduced link -> the character's (nv)
    int* part;        // the character's link -> the reduced link carrying its part, -1 (nv)
    double* fext;     // the reduced model's external forces (nv x 6)
    double* acc;      // per reduced link: mass, first moment (3), second moment (9) (nv x 13)
    double* work;     // salto_hybrid_stop's matrices, grown to the largest seen
    size_t wcap;
    int* sidx;        // salto_hybrid_stop's DOFs, reduced indices (nv)
};


salto_hybrid* salto_hybrid_create(const salto_model* m) {
    const size_t nv = (size_t)m->nv + 1;
    salto_hybrid* h = salto_calloc(1, sizeof *h);
    if (!h) return NULL;
    h->m = m;
    salto_model* r = &h->r;
    r->link_parent = salto_malloc(sizeof(int) * nv);
    r->link_subtree_end = salto_malloc(sizeof(int) * nv);
    r->link_type = salto_malloc(sizeof(int) * nv);
    r->link_body = salto_malloc(sizeof(int) * nv);
    r->link_massive = salto_malloc(sizeof(int) * nv);
    r->link_axis_k = salto_malloc(sizeof(int) * nv);
    r->link_tree_rot = salto_malloc(sizeof(int) * nv);
    r->link_offset = salto_malloc(sizeof(int) * nv);
    r->link_Rtree = salto_malloc(sizeof(double) * 9 * nv);
    r->link_rtree = salto_malloc(sizeof(double) * 3 * nv);
    r->link_axis = salto_malloc(sizeof(double) * 3 * nv);
    r->link_inertia = salto_malloc(sizeof(double) * 10 * nv);
    h->map = salto_malloc(sizeof(int) * nv);
    h->part = salto_malloc(sizeof(int) * nv);
    h->fext = salto_malloc(sizeof(double) * 6 * nv);
    h->acc = salto_malloc(sizeof(double) * 13 * nv);
    h->sidx = salto_malloc(sizeof(int) * nv);
    memcpy(r->gravity, m->gravity, sizeof r->gravity);
    r->nv = m->nv; // the data sized for every link
    h->d = salto_data_create(r);
    r->nv = 0;
    if (!r->link_parent || !r->link_subtree_end || !r->link_type || !r->link_body ||
        !r->link_massive || !r->link_axis_k || !r->link_tree_rot || !r->link_offset ||
        !r->link_Rtree || !r->link_rtree || !r->link_axis || !r->link_inertia || !h->map ||
        !h->part || !h->fext || !h->acc || !h->sidx || !h->d) {
        salto_hybrid_destroy(h);
        return NULL;
    }
    return h;
}


void salto_hybrid_destroy(salto_hybrid* h) {
    if (!h) return;
    salto_model* r = &h->r;
    salto_free(r->link_parent), salto_free(r->link_subtree_end), salto_free(r->link_type);
    salto_free(r->link_body), salto_free(r->link_massive), salto_free(r->link_axis_k);
    salto_free(r->link_tree_rot), salto_free(r->link_offset), salto_free(r->link_Rtree);
    salto_free(r->link_rtree), salto_free(r->link_axis), salto_free(r->link_inertia);
    salto_free(h->map), salto_free(h->part), salto_free(h->fext), salto_free(h->acc);
    salto_free(h->work), salto_free(h->sidx);
    salto_data_destroy(h->d);
    salto_free(h);
}


// adds link i's inertia (world orientation) to the accumulator of the part carried by link k:
// its mass, first moment and second moment about k's origin
static void accumulate(double* acc, const salto_model* m, const salto_data* d, int i, int k) {
    const double* L = m->link_inertia + 10 * i;
    const double* R = d->R + 9 * i;
    const double mass = L[0];
    double c[3];
    salto_m3_mul_v3(c, R, L + 1);
    for (int t = 0; t < 3; t++) c[t] += d->p[3 * i + t] - d->p[3 * k + t];
    // R J R' (J: xx yy zz xy xz yz)
    const double J[9] = {L[4], L[7], L[8], L[7], L[5], L[9], L[8], L[9], L[6]};
    double RJ[9];
    salto_m3_mul(RJ, R, J);
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    acc[0] += mass;
    for (int t = 0; t < 3; t++) acc[1 + t] += mass * c[t];
    for (int r = 0; r < 3; r++) {
        for (int q = 0; q < 3; q++) {
            double s = 0.0;
            for (int t = 0; t < 3; t++) s += RJ[3 * r + t] * R[3 * q + t];
            acc[4 + 3 * r + q] += s + mass * ((r == q ? cc : 0.0) - c[r] * c[q]);
        }
    }
}


// The reduced model's links into r's link arrays (sized for m's nv): map (reduced -> m's link),
// part (m's link -> the reduced link carrying its part, -1 the world's), acc (13 per link,
// scratch); returns the links
static int reduce_links(const salto_model* m, const salto_data* d, const unsigned char* active,
                        salto_model* r, int* map, int* part, double* acc) {
    static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double zero[3] = {0, 0, 0};
    int n = 0;
    for (int i = 0; i < m->nv; i++) {
        const int p = m->link_parent[i];
        if (!active[i]) {
            part[i] = p < 0 ? -1 : part[p];
            if (part[i] >= 0 && m->link_massive[i]) accumulate(acc + 13 * part[i], m, d, i, map[part[i]]);
            continue;
        }
        const int k = n++;
        map[k] = i;
        part[i] = k;
        const int pk = p < 0 ? -1 : part[p];
        r->link_parent[k] = pk;
        r->link_type[k] = m->link_type[i];
        r->link_body[k] = m->link_body[i];
        r->link_axis_k[k] = m->link_axis_k[i];
        memcpy(r->link_axis + 3 * k, m->link_axis + 3 * i, 3 * sizeof(double));
        double* Rt = r->link_Rtree + 9 * k;
        double* rt = r->link_rtree + 3 * k;
        if (p < 0 || active[p]) {
            memcpy(Rt, m->link_Rtree + 9 * i, 9 * sizeof(double));
            memcpy(rt, m->link_rtree + 3 * i, 3 * sizeof(double));
            r->link_tree_rot[k] = m->link_tree_rot[i];
            r->link_offset[k] = m->link_offset[i];
        } else {
            // i's joint frame in the world, then in the frame of the link carrying p's part
            const double* Rp = d->R + 9 * p;
            double RJ[9], pJ[3], dp[3];
            salto_m3_mul(RJ, Rp, m->link_Rtree + 9 * i);
            salto_m3_mul_v3(pJ, Rp, m->link_rtree + 3 * i);
            const double* Rk = pk < 0 ? eye : d->R + 9 * map[pk];
            const double* pkp = pk < 0 ? zero : d->p + 3 * map[pk];
            for (int t = 0; t < 3; t++) dp[t] = d->p[3 * p + t] + pJ[t] - pkp[t];
            salto_m3t_mul(Rt, Rk, RJ);
            salto_m3t_mul_v3(rt, Rk, dp);
            r->link_tree_rot[k] = memcmp(Rt, eye, sizeof eye) != 0;
            r->link_offset[k] = rt[0] != 0.0 || rt[1] != 0.0 || rt[2] != 0.0;
        }
        memset(acc + 13 * k, 0, 13 * sizeof(double));
        if (m->link_massive[i]) accumulate(acc + 13 * k, m, d, i, i);
    }
    // each part's inertia: about its centre of mass, in its link's frame
    for (int k = 0; k < n; k++) {
        const double* ak = acc + 13 * k;
        double* L = r->link_inertia + 10 * k;
        const double mass = ak[0];
        r->link_massive[k] = mass > 0.0;
        memset(L, 0, 10 * sizeof(double));
        if (!(mass > 0.0)) continue;
        const double* R = d->R + 9 * map[k];
        double c[3], J[9], RtJ[9], Jl[9];
        for (int t = 0; t < 3; t++) c[t] = ak[1 + t] / mass;
        const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) J[3 * a + b] = ak[4 + 3 * a + b] - mass * ((a == b ? cc : 0.0) - c[a] * c[b]);
        }
        salto_m3t_mul(RtJ, R, J); // R' J R
        salto_m3_mul(Jl, RtJ, R);
        L[0] = mass;
        salto_m3t_mul_v3(L + 1, R, c);
        L[4] = Jl[0], L[5] = Jl[4], L[6] = Jl[8];
        L[7] = 0.5 * (Jl[1] + Jl[3]), L[8] = 0.5 * (Jl[2] + Jl[6]), L[9] = 0.5 * (Jl[5] + Jl[7]);
    }
    // subtrees: a preorder's subtree keeps its active links together, after the subtree's root
    for (int k = 0; k < n; k++) r->link_subtree_end[k] = k + 1;
    for (int k = n - 1; k >= 0; k--) {
        const int pk = r->link_parent[k];
        if (pk >= 0 && r->link_subtree_end[k] > r->link_subtree_end[pk]) r->link_subtree_end[pk] = r->link_subtree_end[k];
    }
    r->nv = n;
    return n;
}


int salto_hybrid_set(salto_hybrid* h, const salto_data* d, const unsigned char* active) {
    return reduce_links(h->m, d, active, &h->r, h->map, h->part, h->acc);
}


salto_status salto_hybrid_forward(salto_hybrid* h, salto_data* d, const double* fext) {
    const salto_model* r = &h->r;
    salto_data* e = h->d;
    const int n = r->nv;
    for (int k = 0; k < n; k++) {
        const int i = h->map[k];
        e->q[k] = d->q[i], e->qd[k] = d->qd[i], e->tau[k] = d->tau[i];
    }
    if (fext) {
        // in the world frame about the origin a part's force is the sum of its links'
        memset(h->fext, 0, sizeof(double) * 6 * (size_t)n);
        for (int i = 0; i < h->m->nv; i++) {
            const int k = h->part[i];
            if (k >= 0) salto_sv_add_to(h->fext + 6 * k, fext + 6 * i);
        }
    }
    const salto_status s = salto_aba(r, e, fext ? h->fext : NULL);
    if (s != SALTO_OK) return s;
    for (int k = 0; k < n; k++) d->qdd[h->map[k]] = e->qdd[k];
    return SALTO_OK;
}


salto_status salto_hybrid_step(salto_hybrid* h, salto_data* d, const double* fext, double dt) {
    const salto_status s = salto_hybrid_forward(h, d, fext);
    if (s != SALTO_OK) return s;
    for (int k = 0; k < h->r.nv; k++) {
        const int i = h->map[k];
        d->qd[i] += dt * d->qdd[i];
        d->q[i] += dt * d->qd[i];
    }
    return SALTO_OK;
}


// v' M v for the n x n matrix M
static double quad(const double* M, const double* v, int n) {
    double s = 0.0;
    for (int r = 0; r < n; r++) {
        double t = 0.0;
        for (int c = 0; c < n; c++) t += M[(size_t)n * r + c] * v[c];
        s += v[r] * t;
    }
    return s;
}


salto_status salto_hybrid_stop(salto_hybrid* h, salto_data* d, const unsigned char* stop, double* dke) {
    const salto_model* r = &h->r;
    salto_data* e = h->d;
    const int n = r->nv;
    if (dke) *dke = 0.0;
    int nr = 0;
    for (int k = 0; k < n; k++) nr += stop[h->map[k]] != 0;
    if (nr == 0) return SALTO_OK;
    // M (n x n), its factor, X = M^-1 E_R (n x nr), K (nr x nr), v, Q, a column
    const size_t need = 2 * (size_t)n * n + (size_t)n * nr + (size_t)nr * nr + 2 * (size_t)n + nr;
    if (need > h->wcap) {
        double* w = salto_malloc(sizeof(double) * need);
        if (!w) return SALTO_ERR_NOMEM;
        salto_free(h->work);
        h->work = w, h->wcap = need;
    }
    double* M = h->work;
    double* L = M + (size_t)n * n;
    double* X = L + (size_t)n * n;
    double* K = X + (size_t)n * nr;
    double* v = K + (size_t)nr * nr;
    double* Q = v + n;
    double* x = Q + nr;
    int* idx = h->sidx;
    for (int k = 0; k < n; k++) e->q[k] = d->q[h->map[k]], v[k] = d->qd[h->map[k]];
    salto_crba(r, e, M);
    memcpy(L, M, sizeof(double) * (size_t)n * n);
    if (!salto_chol(L, n)) return SALTO_ERR_NUMERIC;
    for (int k = 0, c = 0; k < n; k++) {
        if (stop[h->map[k]]) idx[c++] = k;
    }
    // K^R = (M^-1)_RR, the DOFs' velocity changes for unit impulses on them (section 5.4.2)
    for (int c = 0; c < nr; c++) {
        memset(x, 0, sizeof(double) * (size_t)n);
        x[idx[c]] = 1.0;
        salto_chol_solve(L, n, x);
        for (int k = 0; k < n; k++) X[(size_t)nr * k + c] = x[k];
    }
    for (int a = 0; a < nr; a++) {
        for (int b = 0; b < nr; b++) {
            K[nr * a + b] = 0.5 * (X[(size_t)nr * idx[a] + b] + X[(size_t)nr * idx[b] + a]);
        }
        Q[a] = -v[idx[a]];
    }
    if (!salto_chol(K, nr)) return SALTO_ERR_NUMERIC;
    salto_chol_solve(K, nr, Q); // K^R Q^R = -qd^R
    const double k0 = 0.5 * quad(M, v, n);
    for (int k = 0; k < n; k++) {
        double s = 0.0;
        for (int c = 0; c < nr; c++) s += X[(size_t)nr * k + c] * Q[c];
        if (!isfinite(s)) return SALTO_ERR_NUMERIC;
        v[k] += s;
    }
    for (int c = 0; c < nr; c++) v[idx[c]] = 0.0; // exactly at rest
    if (dke) *dke = 0.5 * quad(M, v, n) - k0;
    for (int k = 0; k < n; k++) d->qd[h->map[k]] = v[k];
    return SALTO_OK;
}


// ---- the locked character as a complete model ----

// x (in link l's frame) into the frame of link k, at d's positions
static void relink(const salto_data* d, int l, int k, const double* x, double* out) {
    double w[3];
    salto_m3_mul_v3(w, d->R + 9 * l, x);
    for (int t = 0; t < 3; t++) w[t] += d->p[3 * l + t] - d->p[3 * k + t];
    salto_m3t_mul_v3(out, d->R + 9 * k, w);
}


// the place for n elements of size sz at *off in buf (NULL while sizing), 16-byte aligned
static void* take(char* buf, size_t* off, size_t n, size_t sz) {
    void* p = buf ? buf + *off : NULL;
    *off += (n * sz + 15) / 16 * 16;
    return p;
}


salto_model* salto_model_locked(const salto_model* m, const salto_data* d,
                                const unsigned char* active, int* map, int* part, int* geom) {
    int nv = 0;
    for (int i = 0; i < m->nv; i++) nv += active[i] != 0;
    int nbox = 0;
    for (int g = 0; g < m->ngeom; g++) nbox += m->geom_shape[g] == SALTO_GEOM_BOX;
    const size_t n = (size_t)nv + 1, nb = n + 1, ng = (size_t)m->ngeom + 7 * (size_t)nbox + 1;
    const size_t ns = (size_t)m->nsite + 1;
    // the layout, twice: once to size the buffer, once to place the arrays
    salto_model* r = salto_calloc(1, sizeof *r);
    double* acc = salto_malloc(sizeof(double) * 13 * n);
    int* own_map = salto_malloc(sizeof(int) * ((size_t)m->nv + 1));
    int* own_part = salto_malloc(sizeof(int) * ((size_t)m->nv + 1));
    int* bk = salto_malloc(sizeof(int) * n); // reduced link -> its body (-1 none)
    char* buf = NULL;
    for (int pass = 0; pass < 2 && r && acc && own_map && own_part && bk; pass++) {
        size_t off = 0;
        r->link_parent = take(buf, &off, n, sizeof(int));
        r->link_subtree_end = take(buf, &off, n, sizeof(int));
        r->link_type = take(buf, &off, n, sizeof(int));
        r->link_body = take(buf, &off, n, sizeof(int));
        r->link_massive = take(buf, &off, n, sizeof(int));
        r->link_axis_k = take(buf, &off, n, sizeof(int));
        r->link_tree_rot = take(buf, &off, n, sizeof(int));
        r->link_offset = take(buf, &off, n, sizeof(int));
        r->link_Rtree = take(buf, &off, 9 * n, sizeof(double));
        r->link_rtree = take(buf, &off, 3 * n, sizeof(double));
        r->link_axis = take(buf, &off, 3 * n, sizeof(double));
        r->link_inertia = take(buf, &off, 10 * n, sizeof(double));
        r->link_Iorigin = take(buf, &off, 10 * n, sizeof(double));
        r->link_has_limits = take(buf, &off, n, sizeof(int));
        r->link_limits = take(buf, &off, 2 * n, sizeof(double));
        r->link_has_torque = take(buf, &off, n, sizeof(int));
        r->link_torque = take(buf, &off, 2 * n, sizeof(double));
        r->link_torque_slope = take(buf, &off, n, sizeof(double));
        r->link_name = take(buf, &off, n, sizeof(char*));
        r->body_name = take(buf, &off, nb, sizeof(char*));
        r->body_parent = take(buf, &off, nb, sizeof(int));
        r->body_link = take(buf, &off, nb, sizeof(int));
        r->body_mass = take(buf, &off, nb, sizeof(double));
        r->body_world = take(buf, &off, 12 * nb, sizeof(double));
        r->site_name = take(buf, &off, ns, sizeof(char*));
        r->site_body = take(buf, &off, ns, sizeof(int));
        r->site_link = take(buf, &off, ns, sizeof(int));
        r->site_pos = take(buf, &off, 3 * ns, sizeof(double));
        r->geom_shape = take(buf, &off, ng, sizeof(int));
        r->geom_body = take(buf, &off, ng, sizeof(int));
        r->geom_link = take(buf, &off, ng, sizeof(int));
        r->geom_data = take(buf, &off, 7 * ng, sizeof(double));
        if (!pass) buf = salto_calloc(1, off);
        if (!buf) break;
    }
    if (!r || !acc || !own_map || !own_part || !bk || !buf) {
        salto_free(r), salto_free(acc), salto_free(own_map), salto_free(own_part), salto_free(bk);
        salto_free(buf);
        return NULL;
    }
    r->buffer = buf;
    if (!map) map = own_map;
    if (!part) part = own_part;
    reduce_links(m, d, active, r, map, part, acc);
    memcpy(r->gravity, m->gravity, sizeof r->gravity);
    r->name = m->name;
    // the links' own data
    for (int k = 0; k < nv; k++) {
        const int i = map[k];
        salto_si_from_com(r->link_Iorigin + 10 * k, r->link_inertia + 10 * k);
        r->link_has_limits[k] = m->link_has_limits[i];
        memcpy(r->link_limits + 2 * k, m->link_limits + 2 * i, 2 * sizeof(double));
        r->link_has_torque[k] = m->link_has_torque[i];
        memcpy(r->link_torque + 2 * k, m->link_torque + 2 * i, 2 * sizeof(double));
        r->link_torque_slope[k] = m->link_torque_slope[i];
        r->link_name[k] = m->link_name[i];
        r->ntorque += m->link_has_torque[i] != 0;
    }
    // bodies: 0 the world's part (welded, its frame the world's), then one per moving part
    static const double eye12[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static char world_name[] = "world";
    int nbody = 1;
    r->body_name[0] = world_name;
    r->body_parent[0] = -1, r->body_link[0] = -1, r->body_mass[0] = 0.0;
    memcpy(r->body_world, eye12, sizeof eye12);
    for (int k = 0; k < nv; k++) {
        bk[k] = -1;
        if (!r->link_massive[k]) continue;
        const int b = nbody++;
        bk[k] = b;
        r->body_name[b] = m->body_name[m->link_body[map[k]]];
        r->body_link[b] = k;
        r->body_mass[b] = r->link_inertia[10 * k];
        r->mass += r->body_mass[b];
        int up = r->link_parent[k];
        while (up >= 0 && bk[up] < 0) up = r->link_parent[up];
        r->body_parent[b] = up < 0 ? 0 : bk[up];
    }
    // a massless link belongs to the body its chain ends at (the next massive link down)
    for (int k = nv - 1; k >= 0; k--) {
        r->link_body[k] = bk[k];
        if (bk[k] < 0 && k + 1 < nv && r->link_parent[k + 1] == k) r->link_body[k] = r->link_body[k + 1];
    }
    r->nbody = nbody;
    // the root: the character's root DOFs if they are all active, else none (welded)
    int root_active = 1;
    for (int i = 0; i < m->nroot; i++) root_active &= active[i] != 0;
    r->root_type = root_active ? m->root_type : SALTO_ROOT_FIXED;
    r->nroot = root_active ? m->nroot : 0;
    // sites: on their part's link, or on the world's part in world coordinates
    r->nsite = m->nsite;
    for (int t = 0; t < m->nsite; t++) {
        r->site_name[t] = m->site_name[t];
        const int l = m->site_link[t];
        double w[3];
        salto_site_pos(m, d, t, w);
        const int k = l < 0 ? -1 : part[l];
        if (k < 0) {
            r->site_link[t] = -1, r->site_body[t] = 0;
            memcpy(r->site_pos + 3 * t, w, sizeof w);
        } else {
            r->site_link[t] = k, r->site_body[t] = r->link_body[k];
            relink(d, l, map[k], m->site_pos + 3 * t, r->site_pos + 3 * t);
        }
    }
    // geometry on the moving parts (the world's part's does not move and is left out): capsules
    // and spheres re-expressed in their part's frame, a box as its eight corners (zero spheres:
    // the simulator's contacts with a box are its corners')
    int ngeom = 0;
    for (int g = 0; g < m->ngeom; g++) {
        const int l = m->geom_link[g];
        const int k = l < 0 ? -1 : part[l];
        if (k < 0) continue;
        double pts[8][3], rad = 0.0;
        const int np = salto_geom_local_points(m, g, pts, &rad);
        const int shape = m->geom_shape[g];
        for (int c = 0; c < (shape == SALTO_GEOM_BOX ? np : 1); c++) {
            double* gd = r->geom_data + 7 * ngeom;
            r->geom_shape[ngeom] = shape == SALTO_GEOM_CAPSULE ? SALTO_GEOM_CAPSULE : SALTO_GEOM_SPHERE;
            r->geom_link[ngeom] = k;
            r->geom_body[ngeom] = r->link_body[k];
            relink(d, l, map[k], pts[c], gd);
            if (shape == SALTO_GEOM_CAPSULE) relink(d, l, map[k], pts[1], gd + 3);
            gd[6] = rad;
            if (geom) geom[ngeom] = g;
            ngeom++;
        }
    }
    r->ngeom = ngeom;
    salto_free(acc), salto_free(own_map), salto_free(own_part), salto_free(bk);
    return r;
}
