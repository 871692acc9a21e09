// dca.c: forward dynamics by Featherstone's divide-and-conquer algorithm (dca.h)
//
// Notation as Redon et al. 2005, section 3. A node C joins A (the parent side: the world's, or
// the one holding the joint's parent body) and B (the child body's side) through its principal
// joint J, the child body's chain of one-DOF links (S: 6 x nd, the links' world axes). With
// Phi_2^A, Phi_1^B the inverse inertias of the handles J joins and f the force J puts on B
// (-f on A), a_B = a_A + S qdd + c (c: the chain's velocity-product terms) and S' f = Q (the
// chain's joint forces) give
//   V = (Phi_2^A + Phi_1^B)^-1, beta = b_2^A - b_1^B + c,
//   W = V - V S (S' V S)^-1 S' V, gamma = W beta + V S (S' V S)^-1 Q,
//   qdd = (S' V S)^-1 (Q - S' V x), f = W (x - beta) + gamma,
// where x = Phi_21^A f_1^A - Phi_12^B f_2^B + beta, and C's coefficients over the handles that
// remain (A's others, then B's others): Phi_1^C = Phi_1^A - Phi_12^A W Phi_21^A,
// Phi_2^C = Phi_2^B - Phi_21^B W Phi_12^B, Phi_21^C = Phi_21^B W Phi_21^A,
// b_1^C = b_1^A - Phi_12^A gamma, b_2^C = b_2^B + Phi_21^B gamma (eq. 2, 4, 5).
// A body leaf: Phi = I^-1 for every pair of its handles, b = I^-1 (f_ext - V x* I V) (eq. 3);
// the world leaf: Phi = 0, b = -g (the world accelerates at -g, as in salto_aba).
#include "salto/dca.h"

#include <math.h>
#include <string.h>

#include "hybrid.h"
#include "linalg.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"

typedef struct dca_node {
    int body;   // leaf: its body, or -1 for the world; internal: the principal joint's child body
    int a, b;   // internal: the children (a: the parent side); leaf: -1
    int nh;     // handles
    int h;      // offset of the handles' joints (child bodies of the joints) in hjoint
    int phi;    // offset of Phi (6 nh x 6 nh, row-major) in the pool, of b and of F (6 nh)
    int vec;
    int ia, ib; // internal: the principal joint's handle in a and in b
    int j0, nd; // internal: the joint's links j0 .. j0 + nd - 1
    int ws;     // internal: offset of its workspace (W, VS, the factor of S'VS, beta, gamma)
    int height;
    int parent; // the node above (-1 for the root)
    int active; // internal: its joint is simulated (1), or held rigid (0)
} dca_node;

enum { WS = 36 + 36 + 36 + 6 + 6 }; // W, VS (6 x nd), L (nd x nd), beta, gamma

// an internal node's workspace, unpacked
typedef struct node_ws {
    double* W;     // 6 x 6
    double* VS;    // 6 x nd
    double* L;     // nd x nd, the factor of S'VS
    double* beta;  // 6
    double* gamma; // 6
} node_ws;

struct salto_dca {
    const salto_model* m;
    int nnode, root;
    int* order;     // internal nodes, breadth-first from the root
    int ninternal;
    dca_node* node;
    int* hjoint;
    double* phi;   // Phi of every node
    double* vec;   // b of every node, then F (handle forces) of every node
    double* force;
    double* ws;
    double* scratch; // 72 (max handles + 1): the join's Phi W products, a leaf's handle points
    // the acceleration metric (Redon et al. 5.2): per node Psi (laid out as Phi), p (as b),
    // eta, the principal joint's weight (nd x nd, identity unless set), the node's value
    double* psi;
    double* pm;
    double* eta;
    double* weight;
    double* value;
    double* mscratch; // the metric's join: G and W G (6 x 6 maxh each), products (12 x 6 maxh)
    int maxh;
    int metric_on;
    int impulse;    // a pass for impulses: no gravity, no velocity terms, no external forces
    int* heap;      // node indices, a max-heap on value[]
    double* armature; // per DOF, added to the joint's inertia (nv; zero unless set)
    // the adaptive step's buffers, allocated once: activity kept across a region's search
    // (nnode), the region's DOFs and the bodies to stop (nv + nbody), the DOFs to stop (nv),
    // tau and qd kept across the impulses (2 nv), K^R and Q^R (grown to the largest nr)
    int* was;
    unsigned char* region;
    int* idx;
    double* save;
    double* K;
    int kcap;
    int* body_node; // the node whose principal joint moves each body (-1 none)
    // the hybrid body as a model of its own, between the active region's updates (section 4.3)
    salto_hybrid* hy;
    int hy_valid;   // built for the current active joints and the rigid joints' positions
    int since;      // adaptive steps since the last update of the active region (0: none yet)
    int hy_joints, hy_dofs; // the hybrid body's active joints and DOFs
    unsigned char* links; // scratch: the active links (nv)
    double* keep;   // salto_dca_adaptive_select's velocities (nv)
};


// ---- building the assembly tree ----

typedef struct builder {
    const salto_model* m;
    int nvert, world;     // vertices: the bodies that move (body_link >= 0) and the world
    int* vpar;            // a vertex's parent vertex (-1 for the world)
    int* cstart;          // children of vertex v: child[cstart[v] .. cstart[v + 1])
    int* child;
    int* mark;            // membership stamps
    int stamp;
    int* size;            // subtree sizes within the set being cut
    int* order;           // scratch
    dca_node* node;
    int nnode;
    size_t cap;
    int* hj;
    int nh;
    size_t hcap;
} builder;


static int push_node(builder* b, const dca_node* n) {
    if (salto_grow((void**)&b->node, &b->cap, (size_t)b->nnode + 1, sizeof(dca_node)) != 0) return -1;
    b->node[b->nnode] = *n;
    return b->nnode++;
}


static int push_handle(builder* b, int joint) {
    if (salto_grow((void**)&b->hj, &b->hcap, (size_t)b->nh + 1, sizeof(int)) != 0) return -1;
    b->hj[b->nh++] = joint;
    return 0;
}


// the node for the connected set of n vertices in set[] (which it may reorder); -1 when out
// of memory
static int build(builder* b, int* set, int n) {
    dca_node nd;
    memset(&nd, 0, sizeof nd);
    nd.a = nd.b = -1;
    if (n == 1) {
        // a leaf: its handles are every joint it takes part in
        const int v = set[0];
        nd.body = v == b->world ? -1 : v;
        nd.h = b->nh;
        for (int k = b->cstart[v]; k < b->cstart[v + 1]; k++) {
            if (push_handle(b, b->child[k]) != 0) return -1;
        }
        if (v != b->world && push_handle(b, v) != 0) return -1;
        nd.nh = b->nh - nd.h;
        return push_node(b, &nd);
    }
    // the set's root: the vertex whose parent is outside it
    const int stamp = ++b->stamp;
    for (int k = 0; k < n; k++) b->mark[set[k]] = stamp;
    int r = -1;
    for (int k = 0; k < n && r < 0; k++) {
        const int p = b->vpar[set[k]];
        if (p < 0 || b->mark[p] != stamp) r = set[k];
    }
    // preorder of the set from r, then subtree sizes from the leaves up
    int no = 0;
    b->order[no++] = r;
    for (int i = 0; i < no; i++) {
        const int v = b->order[i];
        for (int k = b->cstart[v]; k < b->cstart[v + 1]; k++) {
            if (b->mark[b->child[k]] == stamp) b->order[no++] = b->child[k];
        }
    }
    for (int i = 0; i < no; i++) b->size[b->order[i]] = 1;
    for (int i = no - 1; i > 0; i--) b->size[b->vpar[b->order[i]]] += b->size[b->order[i]];
    // the joint that best halves the set: the child side's size nearest n / 2; but a floating
    // character's root joint (free or planar) at the top, the world alone on one side: the
    // active joints are a top part of the tree, and with the root joint active first a limp
    // character is never held in the air by its root while a limb moves
    int cut = -1, best = n + 1;
    const int root_first = r == b->world && b->m->root_type != SALTO_ROOT_FIXED &&
                           b->cstart[r + 1] - b->cstart[r] == 1;
    for (int i = 1; i < no && !root_first; i++) {
        const int v = b->order[i];
        const int big = b->size[v] > n - b->size[v] ? b->size[v] : n - b->size[v];
        if (big < best) best = big, cut = v;
    }
    if (root_first) cut = b->child[b->cstart[r]];
    // B: the subtree of cut within the set, A: the rest
    const int stampB = ++b->stamp;
    int nb = 0;
    b->order[nb++] = cut;
    b->mark[cut] = stampB;
    for (int i = 0; i < nb; i++) {
        const int v = b->order[i];
        for (int k = b->cstart[v]; k < b->cstart[v + 1]; k++) {
            const int c = b->child[k];
            if (b->mark[c] == stamp) b->mark[c] = stampB, b->order[nb++] = c;
        }
    }
    int* setA = salto_malloc(sizeof(int) * (size_t)(n - nb));
    int* setB = salto_malloc(sizeof(int) * (size_t)nb);
    if (!setA || !setB) {
        salto_free(setA), salto_free(setB);
        return -1;
    }
    int ka = 0, kb = 0;
    for (int k = 0; k < n; k++) {
        if (b->mark[set[k]] == stampB) {
            setB[kb++] = set[k];
        } else {
            setA[ka++] = set[k];
        }
    }
    const int ia = build(b, setA, ka);
    const int ib = ia < 0 ? -1 : build(b, setB, kb);
    salto_free(setA), salto_free(setB);
    if (ib < 0) return -1;
    // the node's handles: A's others, then B's others
    nd.body = cut;
    nd.a = ia, nd.b = ib;
    nd.h = b->nh;
    const dca_node A = b->node[ia], B = b->node[ib];
    nd.ia = nd.ib = -1;
    for (int k = 0; k < A.nh; k++) {
        if (b->hj[A.h + k] == cut) {
            nd.ia = k;
        } else if (push_handle(b, b->hj[A.h + k]) != 0) {
            return -1;
        }
    }
    for (int k = 0; k < B.nh; k++) {
        if (b->hj[B.h + k] == cut) {
            nd.ib = k;
        } else if (push_handle(b, b->hj[B.h + k]) != 0) {
            return -1;
        }
    }
    nd.nh = b->nh - nd.h;
    nd.height = 1 + (A.height > B.height ? A.height : B.height);
    // the joint: the chain of links that moves the child body
    const salto_model* m = b->m;
    const int last = m->body_link[cut];
    int first = last;
    while (m->link_parent[first] >= 0 && m->link_body[m->link_parent[first]] == cut) first--;
    nd.j0 = first, nd.nd = last - first + 1;
    return push_node(b, &nd);
}


salto_dca* salto_dca_create(const salto_model* m) {
    const int nb = m->nbody;
    builder b;
    memset(&b, 0, sizeof b);
    b.m = m;
    b.world = nb;
    b.nvert = nb + 1;
    salto_dca* a = salto_calloc(1, sizeof *a);
    b.vpar = salto_malloc(sizeof(int) * (size_t)b.nvert);
    b.cstart = salto_calloc((size_t)b.nvert + 1, sizeof(int));
    b.child = salto_malloc(sizeof(int) * (size_t)b.nvert);
    b.mark = salto_calloc((size_t)b.nvert, sizeof(int));
    b.size = salto_malloc(sizeof(int) * (size_t)b.nvert);
    b.order = salto_malloc(sizeof(int) * (size_t)b.nvert);
    int* set = salto_malloc(sizeof(int) * (size_t)b.nvert);
    int ok = a && b.vpar && b.cstart && b.child && b.mark && b.size && b.order && set;
    int n = 0;
    if (ok) {
        // vertices: the world and the bodies that move; a body welded to the world is the world's
        b.vpar[b.world] = -1;
        for (int k = 0; k < nb; k++) {
            if (m->body_link[k] < 0) {
                b.vpar[k] = -2; // not a vertex
                continue;
            }
            const int p = m->body_parent[k];
            b.vpar[k] = p < 0 || m->body_link[p] < 0 ? b.world : p;
        }
        for (int k = 0; k < nb; k++) {
            if (b.vpar[k] >= 0) b.cstart[b.vpar[k] + 1]++;
        }
        for (int v = 0; v < b.nvert; v++) b.cstart[v + 1] += b.cstart[v];
        int* fill = b.size; // scratch: the next slot of each vertex's children
        for (int v = 0; v < b.nvert; v++) fill[v] = b.cstart[v];
        for (int k = 0; k < nb; k++) {
            if (b.vpar[k] >= 0) b.child[fill[b.vpar[k]]++] = k;
        }
        set[n++] = b.world;
        for (int k = 0; k < nb; k++) {
            if (b.vpar[k] >= 0) set[n++] = k;
        }
        a->root = build(&b, set, n);
        ok = a->root >= 0;
    }
    salto_free(b.vpar), salto_free(b.cstart), salto_free(b.child), salto_free(b.mark);
    salto_free(b.size), salto_free(b.order), salto_free(set);
    if (!ok) {
        salto_free(b.node), salto_free(b.hj);
        salto_free(a);
        return NULL;
    }
    a->m = m;
    a->node = b.node, a->nnode = b.nnode;
    a->hjoint = b.hj;
    // the pools: Phi, b and F per node, a workspace per internal node
    size_t nphi = 0, nvec = 0, nws = 0;
    int maxh = 1;
    for (int i = 0; i < a->nnode; i++) {
        dca_node* d = &a->node[i];
        d->phi = (int)nphi, d->vec = (int)nvec;
        nphi += 36 * (size_t)d->nh * (size_t)d->nh;
        nvec += 6 * (size_t)d->nh;
        if (d->a >= 0) d->ws = (int)nws, nws += WS;
        if (d->nh > maxh) maxh = d->nh;
    }
    a->phi = salto_malloc(sizeof(double) * (nphi + 1));
    a->vec = salto_malloc(sizeof(double) * (2 * nvec + 1));
    a->ws = salto_malloc(sizeof(double) * (nws + 1));
    a->scratch = salto_malloc(sizeof(double) * 72 * (size_t)(maxh + 1));
    const size_t mh = 6 * (size_t)maxh;
    a->maxh = maxh;
    a->psi = salto_malloc(sizeof(double) * (nphi + 1));
    a->pm = salto_malloc(sizeof(double) * (nvec + 1));
    a->eta = salto_malloc(sizeof(double) * (size_t)a->nnode);
    a->weight = salto_malloc(sizeof(double) * 36 * (size_t)a->nnode);
    a->value = salto_malloc(sizeof(double) * (size_t)a->nnode);
    a->mscratch = salto_malloc(sizeof(double) * (24 * mh + 1));
    if (!a->phi || !a->vec || !a->ws || !a->scratch || !a->psi || !a->pm || !a->eta ||
        !a->weight || !a->value || !a->mscratch) {
        salto_dca_destroy(a);
        return NULL;
    }
    a->force = a->vec + nvec;
    a->order = salto_malloc(sizeof(int) * (size_t)a->nnode);
    if (!a->order) {
        salto_dca_destroy(a);
        return NULL;
    }
    for (int i = 0; i < a->nnode; i++) a->node[i].parent = -1, a->node[i].active = 1;
    // identity weights
    memset(a->weight, 0, sizeof(double) * 36 * (size_t)a->nnode);
    for (int i = 0; i < a->nnode; i++) {
        for (int k = 0; k < 6; k++) a->weight[36 * i + 7 * k] = 1.0;
    }
    for (int i = 0; i < a->nnode; i++) {
        if (a->node[i].a >= 0) a->node[a->node[i].a].parent = i;
        if (a->node[i].b >= 0) a->node[a->node[i].b].parent = i;
    }
    // breadth-first order of the internal nodes
    int no = 0;
    if (a->node[a->root].a >= 0) a->order[no++] = a->root;
    for (int i = 0; i < no; i++) {
        const dca_node* up = &a->node[a->order[i]];
        if (a->node[up->a].a >= 0) a->order[no++] = up->a;
        if (a->node[up->b].a >= 0) a->order[no++] = up->b;
    }
    a->ninternal = no;
    a->body_node = salto_malloc(sizeof(int) * (size_t)(m->nbody + 1));
    a->heap = salto_malloc(sizeof(int) * (size_t)a->nnode);
    a->armature = salto_calloc((size_t)m->nv + 1, sizeof(double));
    a->was = salto_malloc(sizeof(int) * (size_t)a->nnode);
    a->region = salto_malloc((size_t)m->nv + (size_t)m->nbody + 1);
    a->idx = salto_malloc(sizeof(int) * ((size_t)m->nv + 1));
    a->save = salto_malloc(sizeof(double) * 2 * ((size_t)m->nv + 1));
    a->hy = salto_hybrid_create(m);
    a->links = salto_malloc((size_t)m->nv + 1);
    a->keep = salto_malloc(sizeof(double) * ((size_t)m->nv + 1));
    if (!a->body_node || !a->heap || !a->armature || !a->was || !a->region || !a->idx || !a->save ||
        !a->hy || !a->links || !a->keep) {
        salto_dca_destroy(a);
        return NULL;
    }
    for (int k = 0; k < m->nbody; k++) a->body_node[k] = -1;
    for (int i = 0; i < a->nnode; i++) {
        if (a->node[i].a >= 0) a->body_node[a->node[i].body] = i;
    }
    return a;
}


void salto_dca_destroy(salto_dca* a) {
    if (!a) return;
    salto_free(a->node), salto_free(a->hjoint), salto_free(a->phi), salto_free(a->vec);
    salto_free(a->ws), salto_free(a->scratch), salto_free(a->order);
    salto_free(a->psi), salto_free(a->pm), salto_free(a->eta), salto_free(a->weight);
    salto_free(a->value), salto_free(a->mscratch), salto_free(a->body_node);
    salto_free(a->heap), salto_free(a->armature), salto_free(a->was), salto_free(a->region);
    salto_free(a->idx), salto_free(a->save), salto_free(a->K);
    salto_hybrid_destroy(a->hy), salto_free(a->links), salto_free(a->keep);
    salto_free(a);
}


int salto_dca_height(const salto_dca* a) {
    return a->node[a->root].height;
}


int salto_dca_nodes(const salto_dca* a) {
    return a->nnode;
}


int salto_dca_set_active(salto_dca* a, const unsigned char* active) {
    // a joint active only where the joint of the node above is
    for (int i = 0; i < a->nnode; i++) {
        const dca_node* n = &a->node[i];
        if (n->a < 0 || !active || !active[n->body] || n->parent < 0) continue;
        if (!active[a->node[n->parent].body]) return -1;
    }
    for (int i = 0; i < a->nnode; i++) {
        dca_node* n = &a->node[i];
        if (n->a >= 0) n->active = !active || active[n->body];
    }
    a->hy_valid = 0, a->since = 0;
    return 0;
}


int salto_dca_activate_top(salto_dca* a, int n) {
    int dofs = 0;
    for (int k = 0; k < a->ninternal; k++) {
        dca_node* nd = &a->node[a->order[k]];
        nd->active = k < n;
        if (nd->active) dofs += nd->nd;
    }
    a->hy_valid = 0, a->since = 0;
    return dofs;
}


void salto_dca_active_links(const salto_dca* a, unsigned char* active) {
    for (int i = 0; i < a->nnode; i++) {
        const dca_node* n = &a->node[i];
        for (int k = 0; n->a >= 0 && k < n->nd; k++) active[n->j0 + k] = (unsigned char)n->active;
    }
}


int salto_dca_active_dofs(const salto_dca* a) {
    int dofs = 0;
    for (int i = 0; i < a->nnode; i++) {
        if (a->node[i].a >= 0 && a->node[i].active) dofs += a->node[i].nd;
    }
    return dofs;
}


// ---- small dense products ----

// C (r x 6) = A (r x 6, row stride lda) B (6 x 6)
static void mul_r6_66(double* C, int ldc, const double* A, int lda, const double* B, int r) {
    for (int i = 0; i < r; i++) {
        for (int j = 0; j < 6; j++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += A[lda * i + k] * B[6 * k + j];
            C[ldc * i + j] = s;
        }
    }
}


// C (6 x 6, row stride ldc) += alpha A (6 x 6) B (6 x 6, row stride ldb)
static void mul_66_66_acc(double* C, int ldc, double alpha, const double* A, const double* B,
                          int ldb) {
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += A[6 * i + k] * B[ldb * k + j];
            C[ldc * i + j] += alpha * s;
        }
    }
}


// y (6) += alpha A (6 x 6, row stride lda) x (6)
static void mul_6_acc(double* y, double alpha, const double* A, int lda, const double* x) {
    for (int i = 0; i < 6; i++) {
        double s = 0.0;
        for (int k = 0; k < 6; k++) s += A[lda * i + k] * x[k];
        y[i] += alpha * s;
    }
}


// the inverse of the symmetric positive definite 6 x 6 A into Ainv; 0 if A is not
static int inv6(const double* A, double* Ainv) {
    double L[36];
    memcpy(L, A, sizeof L);
    if (!salto_chol(L, 6)) return 0;
    for (int j = 0; j < 6; j++) {
        double e[6] = {0, 0, 0, 0, 0, 0};
        e[j] = 1.0;
        salto_chol_solve(L, 6, e);
        for (int i = 0; i < 6; i++) Ainv[6 * i + j] = e[i];
    }
    // exactly symmetric
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < i; j++) Ainv[6 * i + j] = Ainv[6 * j + i] = 0.5 * (Ainv[6 * i + j] + Ainv[6 * j + i]);
    }
    return 1;
}


// ---- reference points ----
//
// In world coordinates about the origin, a body far from the origin has an inertia whose
// entries grow with its distance squared, and inverting it and its sums loses the digits of
// its small rotational part (on a 50-link chain, RNEA of DCA's accelerations missed the
// torques by 7e-4 N m). So every handle's coefficients are kept about the joint's centre, and
// each body's inverse inertia is formed in closed form about its centre of mass. A motion
// vector [w; v] about point P is [w; v + w x r] about P + r (T_r), a force [n; f] is
// [n - r x f; f]; the handle equations a = Phi f + b about points p_i read
// Phi_ij -> T_i Phi_ij T_j', b_i -> T_i b_i, which leaves the assembly formulas as they are.

// x about P -> about P + r (a motion vector)
static void shift_m(double* x, const double* r) {
    double t[3];
    salto_v3_cross(t, x, r);
    x[3] += t[0], x[4] += t[1], x[5] += t[2];
}


// Phi (row stride ld) := T_ri Phi T_rj': each column shifted by ri, then each row by rj
static void shift_phi(double* P, int ld, const double* ri, const double* rj) {
    for (int j = 0; j < 6; j++) {
        double col[6];
        for (int i = 0; i < 6; i++) col[i] = P[ld * i + j];
        shift_m(col, ri);
        for (int i = 0; i < 6; i++) P[ld * i + j] = col[i];
    }
    for (int i = 0; i < 6; i++) shift_m(P + ld * i, rj);
}


// out = R J R' (3 x 3, J symmetric): a body's inertia, or its inverse, turned into the world
static void rot_sym(double* out, const double* R, const double* J) {
    double RJ[9];
    salto_m3_mul(RJ, R, J);
    for (int r = 0; r < 3; r++) {
        for (int q = 0; q < 3; q++) {
            out[3 * r + q] = RJ[3 * r] * R[3 * q] + RJ[3 * r + 1] * R[3 * q + 1] + RJ[3 * r + 2] * R[3 * q + 2];
        }
    }
}


// ---- the passes ----

// Phi block (i, j) of node n, and its row stride
static double* block(const salto_dca* a, const dca_node* n, int i, int j) {
    return a->phi + n->phi + 36 * (size_t)n->nh * (size_t)i + 6 * (size_t)j;
}


static node_ws ws_of(const salto_dca* a, const dca_node* n) {
    double* w = a->ws + n->ws;
    return (node_ws){w, w + 36, w + 72, w + 108, w + 114};
}


static salto_status leaf(salto_dca* a, dca_node* n, const salto_data* d, const double* fext) {
    const int ld = 6 * n->nh;
    double* bv = a->vec + n->vec;
    if (n->body < 0) { // the world: immovable, accelerating at -g
        memset(a->phi + n->phi, 0, sizeof(double) * 36 * (size_t)n->nh * (size_t)n->nh);
        for (int h = 0; h < n->nh; h++) {
            if (a->impulse) {
                memset(bv + 6 * h, 0, 6 * sizeof(double));
            } else {
                memcpy(bv + 6 * h, d->A - 6, 6 * sizeof(double));
            }
        }
        return SALTO_OK;
    }
    // the body's inverse inertia about its centre of mass c, in closed form: blockdiag(Jc^-1,
    // 1/m 1) with Jc^-1 = R J^-1 R' (J: the inertia about the centre in the link's frame)
    const salto_model* m = a->m;
    const int l = m->body_link[n->body];
    const double* L = m->link_inertia + 10 * l;
    const double* R = d->R + 9 * l;
    const double mass = L[0];
    double c[3];
    salto_m3_mul_v3(c, R, L + 1);
    for (int t = 0; t < 3; t++) c[t] += d->p[3 * l + t];
    // J^-1 by the adjugate (J symmetric: xx yy zz xy xz yz)
    const double jxx = L[4], jyy = L[5], jzz = L[6], jxy = L[7], jxz = L[8], jyz = L[9];
    const double a00 = jyy * jzz - jyz * jyz, a01 = jxz * jyz - jxy * jzz, a02 = jxy * jyz - jxz * jyy;
    const double a11 = jxx * jzz - jxz * jxz, a12 = jxy * jxz - jxx * jyz, a22 = jxx * jyy - jxy * jxy;
    const double det = jxx * a00 + jxy * a01 + jxz * a02;
    if (!(det > 0.0) || !(mass > 0.0)) return SALTO_ERR_NUMERIC;
    const double Ji[9] = {a00 / det, a01 / det, a02 / det, a01 / det, a11 / det,
                          a12 / det, a02 / det, a12 / det, a22 / det};
    const double Jl[9] = {jxx, jxy, jxz, jxy, jyy, jyz, jxz, jyz, jzz};
    double Jci[9], Jc[9];
    rot_sym(Jci, R, Ji);
    rot_sym(Jc, R, Jl);
    double Dinv[36];
    memset(Dinv, 0, sizeof Dinv);
    for (int r = 0; r < 3; r++) {
        for (int q = 0; q < 3; q++) Dinv[6 * r + q] = 0.5 * (Jci[3 * r + q] + Jci[3 * q + r]);
        Dinv[6 * (r + 3) + r + 3] = 1.0 / mass;
    }
    // about c: V = [w; v], the bias force V x* I V = [w x Jc w; m w x v], the external force
    // [n - c x f; f]; b = I^-1 (f_ext - V x* I V)
    double V[6], p[6], fb[6], Jw[3];
    memcpy(V, d->V + 6 * l, sizeof V);
    shift_m(V, c);
    salto_m3_mul_v3(Jw, Jc, V);
    salto_v3_cross(p, V, Jw);
    salto_v3_cross(p + 3, V, V + 3);
    p[3] *= mass, p[4] *= mass, p[5] *= mass;
    if (fext && !a->impulse) {
        const double* f = fext + 6 * l;
        double t[3];
        salto_v3_cross(t, c, f + 3);
        fb[0] = f[0] - t[0], fb[1] = f[1] - t[1], fb[2] = f[2] - t[2];
        fb[3] = f[3], fb[4] = f[4], fb[5] = f[5];
    } else {
        memset(fb, 0, sizeof fb);
    }
    for (int t = 0; t < 6; t++) p[t] = a->impulse ? 0.0 : fb[t] - p[t];
    double b0[6] = {0, 0, 0, 0, 0, 0};
    mul_6_acc(b0, 1.0, Dinv, 6, p);
    // each handle about its joint's centre
    double* rh = a->scratch; // 3 per handle: its point less c
    for (int i = 0; i < n->nh; i++) {
        const double* pj = d->p + 3 * m->body_link[a->hjoint[n->h + i]];
        for (int t = 0; t < 3; t++) rh[3 * i + t] = pj[t] - c[t];
    }
    for (int i = 0; i < n->nh; i++) {
        memcpy(bv + 6 * i, b0, sizeof b0);
        shift_m(bv + 6 * i, rh + 3 * i);
        for (int j = 0; j < n->nh; j++) {
            double* B = a->phi + n->phi + (size_t)ld * 6 * (size_t)i + 6 * (size_t)j;
            for (int q = 0; q < 6; q++) memcpy(B + (size_t)ld * q, Dinv + 6 * q, 6 * sizeof(double));
            shift_phi(B, ld, rh + 3 * i, rh + 3 * j);
        }
    }
    return SALTO_OK;
}


// The node's bias terms, given its coefficients (W, VS, the factor of S'VS) and its children's
// biases: beta = b_2^A - b_1^B + c, gamma = W beta + VS (S'VS)^-1 Q (Q: the joint's entries of
// tau), b_1^C = b_1^A - Phi_12^A gamma, b_2^C = b_2^B + Phi_21^B gamma. The joint's forces and
// the velocity terms enter here only, so that impulses, which change neither the positions nor
// the coefficients, need this pass alone.
static void join_bias(salto_dca* a, const dca_node* n, const double* c, const double* tau) {
    const dca_node* A = &a->node[n->a];
    const dca_node* B = &a->node[n->b];
    const int ldA = 6 * A->nh, ldB = 6 * B->nh, nd = n->active ? n->nd : 0;
    const node_ws ws = ws_of(a, n);
    const double* bA = a->vec + A->vec;
    const double* bB = a->vec + B->vec;
    double* bC = a->vec + n->vec;
    double q[6];
    for (int k = 0; k < nd; k++) q[k] = tau[n->j0 + k];
    for (int t = 0; t < 6; t++) ws.beta[t] = bA[6 * n->ia + t] - bB[6 * n->ib + t] + c[t];
    salto_chol_solve(ws.L, nd, q);
    for (int i = 0; i < 6; i++) {
        double s = 0.0;
        for (int k = 0; k < nd; k++) s += ws.VS[nd * i + k] * q[k];
        ws.gamma[i] = s;
    }
    mul_6_acc(ws.gamma, 1.0, ws.W, 6, ws.beta);
    int r = 0;
    for (int j = 0; j < A->nh; j++) {
        if (j == n->ia) continue;
        for (int t = 0; t < 6; t++) bC[6 * r + t] = bA[6 * j + t];
        mul_6_acc(bC + 6 * r, -1.0, block(a, A, j, n->ia), ldA, ws.gamma);
        r++;
    }
    for (int j = 0; j < B->nh; j++) {
        if (j == n->ib) continue;
        for (int t = 0; t < 6; t++) bC[6 * r + t] = bB[6 * j + t];
        mul_6_acc(bC + 6 * r, 1.0, block(a, B, j, n->ib), ldB, ws.gamma);
        r++;
    }
}


static salto_status join(salto_dca* a, dca_node* n, const salto_data* d) {
    const dca_node* A = &a->node[n->a];
    const dca_node* B = &a->node[n->b];
    // a rigid joint: no motion subspace (S = 0, Redon et al. 4.2): W = V, gamma = V beta
    const int ldA = 6 * A->nh, ldB = 6 * B->nh, ldC = 6 * n->nh, nd = n->active ? n->nd : 0;
    const node_ws ws = ws_of(a, n);
    // V = (Phi_2^A + Phi_1^B)^-1
    const double* PA = block(a, A, n->ia, n->ia);
    const double* PB = block(a, B, n->ib, n->ib);
    double Vs[36], V[36];
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) Vs[6 * i + j] = PA[ldA * i + j] + PB[ldB * i + j];
    }
    if (!inv6(Vs, V)) return SALTO_ERR_NUMERIC;
    // VS, L = chol(S' V S), W = V - VS (S'VS)^-1 VS'
    // the joint's axes and velocity-product term about its centre pe
    const double* pe = d->p + 3 * a->m->body_link[n->body];
    double S[36], c[6] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < nd; k++) {
        memcpy(S + 6 * k, d->S + 6 * (n->j0 + k), 6 * sizeof(double));
        shift_m(S + 6 * k, pe);
        if (!a->impulse) salto_sv_add_to(c, d->c + 6 * (n->j0 + k));
    }
    shift_m(c, pe);
    for (int i = 0; i < 6; i++) {
        for (int k = 0; k < nd; k++) {
            double s = 0.0;
            for (int t = 0; t < 6; t++) s += V[6 * i + t] * S[6 * k + t];
            ws.VS[nd * i + k] = s;
        }
    }
    for (int k = 0; k < nd; k++) {
        for (int j = 0; j < nd; j++) {
            double s = 0.0;
            for (int t = 0; t < 6; t++) s += S[6 * k + t] * ws.VS[nd * t + j];
            ws.L[nd * k + j] = s;
        }
        // a DOF's armature: S' f = Q - a qdd, so (S'VS + a) qdd = Q - S'V x
        ws.L[nd * k + k] += a->armature[n->j0 + k];
    }
    if (!salto_chol(ws.L, nd)) return SALTO_ERR_NUMERIC;
    memcpy(ws.W, V, sizeof V);
    for (int j = 0; j < 6; j++) {
        double col[6]; // (S'VS)^-1 VS' e_j = (S'VS)^-1 (row j of VS)'
        for (int k = 0; k < nd; k++) col[k] = ws.VS[nd * j + k];
        salto_chol_solve(ws.L, nd, col);
        for (int i = 0; i < 6; i++) {
            double s = 0.0;
            for (int k = 0; k < nd; k++) s += ws.VS[nd * i + k] * col[k];
            ws.W[6 * i + j] -= s;
        }
    }
    // C's coefficients: A's other handles first (rows/columns 0 .. nA - 2), then B's
    const int na1 = A->nh - 1;
    double* PW = a->scratch;                      // Phi_A[j, ia] W for A's others (6 na1 x 6)
    double* QW = a->scratch + 36 * (size_t)(na1 + 1); // Phi_B[j, ib] W for B's others
    for (int j = 0, r = 0; j < A->nh; j++) {
        if (j == n->ia) continue;
        mul_r6_66(PW + 36 * r, 6, block(a, A, j, n->ia), ldA, ws.W, 6);
        r++;
    }
    for (int j = 0, r = 0; j < B->nh; j++) {
        if (j == n->ib) continue;
        mul_r6_66(QW + 36 * r, 6, block(a, B, j, n->ib), ldB, ws.W, 6);
        r++;
    }
    for (int j = 0, rj = 0; j < A->nh; j++) {
        if (j == n->ia) continue;
        for (int k = 0, rk = 0; k < A->nh; k++) {
            if (k == n->ia) continue;
            double* Cb = block(a, n, rj, rk);
            const double* Ab = block(a, A, j, k);
            for (int r = 0; r < 6; r++) memcpy(Cb + (size_t)ldC * r, Ab + (size_t)ldA * r, 6 * sizeof(double));
            mul_66_66_acc(Cb, ldC, -1.0, PW + 36 * rj, block(a, A, n->ia, k), ldA);
            rk++;
        }
        rj++;
    }
    for (int j = 0, rj = 0; j < B->nh; j++) {
        if (j == n->ib) continue;
        const int cj = na1 + rj;
        for (int k = 0, rk = 0; k < B->nh; k++) {
            if (k == n->ib) continue;
            double* Cb = block(a, n, cj, na1 + rk);
            const double* Bb = block(a, B, j, k);
            for (int r = 0; r < 6; r++) memcpy(Cb + (size_t)ldC * r, Bb + (size_t)ldB * r, 6 * sizeof(double));
            mul_66_66_acc(Cb, ldC, -1.0, QW + 36 * rj, block(a, B, n->ib, k), ldB);
            rk++;
        }
        // Phi_21^C = Phi_21^B W Phi_21^A, and its transpose
        for (int k = 0, rk = 0; k < A->nh; k++) {
            if (k == n->ia) continue;
            double* Cb = block(a, n, cj, rk);
            for (int r = 0; r < 6; r++) memset(Cb + (size_t)ldC * r, 0, 6 * sizeof(double));
            mul_66_66_acc(Cb, ldC, 1.0, QW + 36 * rj, block(a, A, n->ia, k), ldA);
            double* Ct = block(a, n, rk, cj);
            for (int r = 0; r < 6; r++) {
                for (int t = 0; t < 6; t++) Ct[(size_t)ldC * r + t] = Cb[(size_t)ldC * t + r];
            }
            rk++;
        }
        rj++;
    }
    join_bias(a, n, c, d->tau);
    return SALTO_OK;
}


// ---- the acceleration metric's coefficients (Redon et al. 5.2, Theorems 1 and 2) ----
//
// A(C) = sum over the joints in C of qdd' A_i qdd, as a quadratic in the forces g on C's
// handles: A(C) = g' Psi g + g' p + eta. Derived here from the node's own equations rather
// than transcribed: with y = Phi_21^A f_1^A - Phi_12^B f_2^B = G g, the principal joint's
// qdd = R - U y (U = (S'VS)^-1 S'V, R = (S'VS)^-1 (Q - S'V beta)), its force f = W y + gamma,
// and the children's handle forces affine in g: F_A = M_A g + m_A (f_1^A in place, -f at the
// joint), F_B = M_B g + m_B (f at the joint, f_2^B in place). Then
//   Psi_C = G' U'A_o U G + M_A' Psi_A M_A + M_B' Psi_B M_B
//   p_C   = -2 G' U'A_o R + M_A' (2 Psi_A m_A + p_A) + M_B' (2 Psi_B m_B + p_B)
//   eta_C = R'A_o R + m_A' Psi_A m_A + m_A' p_A + eta_A + (the same for B),
// the paper's equation (8) in another arrangement; a leaf's are zero.

// C (r x c) = op(A) B, or C + op(A) B with acc, with A r x k (ta = 0) or k x r (ta = 1), B k x c,
// dense (the two cases apart, so that no branch sits in the inner loop). Without acc C is not
// read: it may hold anything (a scratch's or the stack's leftovers, NaN among them, which 0 C
// would carry into the result)
static void gemm(int r, int c, int k, const double* A, int lda, int ta, const double* B, int ldb,
                 double* C, int ldc, int acc) {
    for (int i = 0; i < r; i++) {
        for (int j = 0; j < c; j++) {
            double s = 0.0;
            if (ta) {
                for (int t = 0; t < k; t++) s += A[lda * t + i] * B[ldb * t + j];
            } else {
                for (int t = 0; t < k; t++) s += A[lda * i + t] * B[ldb * t + j];
            }
            C[ldc * i + j] = acc ? C[ldc * i + j] + s : s;
        }
    }
}


// A child X's terms of C's metric coefficients (X = A: sign -1, its other handles at C's
// columns from 0; X = B: sign +1, after A's), with F_X = M g + m: M's rows are the identity
// into C's columns for X's other handles and sign WG for its principal one (ix), m is sign
// gamma there and zero elsewhere. The products are taken block by block, not through M:
//   M' P M = the other-other blocks of P, + sign (Q_j into rows c(j) and Q_j' into columns
//   c(j)) with Q_j = P_{j,ix} WG, + WG' P_{ix,ix} WG;  with t = 2 P m + p (t_j = p_j + 2 sign
//   P_{j,ix} gamma): M' t = t_j at c(j), + sign WG' t_ix;  m' P m + m' p = gamma' P_{ix,ix}
//   gamma + sign p_ix' gamma.
static double metric_side(const salto_dca* a, const dca_node* X, int ix, int col0, double sign,
                          const double* WG, const double* gamma, int nC, double* psiC, double* pC,
                          double* Q) {
    const int nX = 6 * X->nh;
    const double* P = a->psi + X->phi;
    const double* p = a->pm + X->vec;
    const double* Pii = P + (size_t)nX * 6 * ix + 6 * ix;
    double eta = 0.0, t[6], Pg[6];
    // the other-other blocks, and each other handle's Q_j and t_j
    for (int j = 0, cj = col0; j < X->nh; j++) {
        if (j == ix) continue;
        for (int k = 0, ck = col0; k < X->nh; k++) {
            if (k == ix) continue;
            const double* Pjk = P + (size_t)nX * 6 * j + 6 * k;
            for (int r = 0; r < 6; r++) {
                for (int c = 0; c < 6; c++) psiC[(size_t)nC * (cj + r) + ck + c] += Pjk[(size_t)nX * r + c];
            }
            ck += 6;
        }
        const double* Pji = P + (size_t)nX * 6 * j + 6 * ix;
        for (int r = 0; r < 6; r++) {
            double sg = 0.0;
            for (int c = 0; c < 6; c++) sg += Pji[(size_t)nX * r + c] * gamma[c];
            pC[cj + r] += p[6 * j + r] + 2.0 * sign * sg;
            for (int col = 0; col < nC; col++) {
                double q = 0.0;
                for (int c = 0; c < 6; c++) q += Pji[(size_t)nX * r + c] * WG[(size_t)nC * c + col];
                Q[(size_t)nC * r + col] = sign * q;
            }
        }
        for (int r = 0; r < 6; r++) {
            for (int col = 0; col < nC; col++) {
                psiC[(size_t)nC * (cj + r) + col] += Q[(size_t)nC * r + col];
                psiC[(size_t)nC * col + cj + r] += Q[(size_t)nC * r + col];
            }
        }
        cj += 6;
    }
    // the principal handle: R = P_ii WG (in Q), WG' R; t_ix = p_ix + 2 sign P_ii gamma
    for (int r = 0; r < 6; r++) {
        double sg = 0.0;
        for (int c = 0; c < 6; c++) sg += Pii[(size_t)nX * r + c] * gamma[c];
        Pg[r] = sg;
        t[r] = p[6 * ix + r] + 2.0 * sign * sg;
        for (int col = 0; col < nC; col++) {
            double q = 0.0;
            for (int c = 0; c < 6; c++) q += Pii[(size_t)nX * r + c] * WG[(size_t)nC * c + col];
            Q[(size_t)nC * r + col] = q;
        }
    }
    for (int r = 0; r < nC; r++) {
        double tr = 0.0;
        for (int c = 0; c < 6; c++) tr += WG[(size_t)nC * c + r] * t[c];
        pC[r] += sign * tr;
        for (int col = 0; col < nC; col++) {
            double q = 0.0;
            for (int c = 0; c < 6; c++) q += WG[(size_t)nC * c + r] * Q[(size_t)nC * c + col];
            psiC[(size_t)nC * r + col] += q;
        }
    }
    for (int r = 0; r < 6; r++) eta += gamma[r] * Pg[r] + sign * p[6 * ix + r] * gamma[r];
    return eta;
}


static void metric_join(salto_dca* a, const dca_node* n, const salto_data* d) {
    const int i = (int)(n - a->node);
    const dca_node* A = &a->node[n->a];
    const dca_node* B = &a->node[n->b];
    const int nA = 6 * A->nh, nB = 6 * B->nh, nC = 6 * n->nh, nd = n->active ? n->nd : 0;
    const int na1 = A->nh - 1;
    const node_ws ws = ws_of(a, n);
    const size_t mh = 6 * (size_t)a->maxh;
    double* G = a->mscratch;       // 6 x nC
    double* WG = G + 6 * mh;       // 6 x nC
    double* T = WG + 6 * mh;       // scratch, up to mh x mh
    // G = [Phi_A(ia, A1), -Phi_B(ib, B2)]
    for (int r = 0; r < 6; r++) {
        for (int k = 0, c = 0; k < A->nh; k++) {
            if (k == n->ia) continue;
            for (int t = 0; t < 6; t++) G[nC * r + 6 * c + t] = block(a, A, n->ia, k)[nA * r + t];
            c++;
        }
        for (int k = 0, c = 0; k < B->nh; k++) {
            if (k == n->ib) continue;
            for (int t = 0; t < 6; t++) G[nC * r + 6 * (na1 + c) + t] = -block(a, B, n->ib, k)[nB * r + t];
            c++;
        }
    }
    gemm(6, nC, 6, ws.W, 6, 0, G, nC, WG, nC, 0); // WG = W G
    double* psiC = a->psi + n->phi;
    double* pC = a->pm + n->vec;
    double eta = a->eta[n->a] + a->eta[n->b];
    memset(psiC, 0, sizeof(double) * (size_t)nC * (size_t)nC);
    memset(pC, 0, sizeof(double) * (size_t)nC);
    // the principal joint: U (nd x 6) = (S'VS)^-1 VS', R = (S'VS)^-1 (Q - VS' beta)
    if (nd > 0) {
        double U[36], Rv[6], AU[36], AR[6];
        for (int j = 0; j < 6; j++) {
            double col[6];
            for (int k = 0; k < nd; k++) col[k] = ws.VS[nd * j + k];
            salto_chol_solve(ws.L, nd, col);
            for (int k = 0; k < nd; k++) U[6 * k + j] = col[k];
        }
        for (int k = 0; k < nd; k++) {
            double s = 0.0;
            for (int t = 0; t < 6; t++) s += ws.VS[nd * t + k] * ws.beta[t];
            Rv[k] = d->tau[n->j0 + k] - s;
        }
        salto_chol_solve(ws.L, nd, Rv);
        const double* Ao = a->weight + 36 * i;
        // AU = A_o U (nd x 6), AR = A_o R; UG = U G (nd x nC) into T
        gemm(nd, 6, nd, Ao, 6, 0, U, 6, AU, 6, 0);
        for (int k = 0; k < nd; k++) {
            double s = 0.0;
            for (int t = 0; t < nd; t++) s += Ao[6 * k + t] * Rv[t];
            AR[k] = s;
            eta += Rv[k] * s;
        }
        gemm(nd, nC, 6, U, 6, 0, G, nC, T, nC, 0);            // U G
        double* AUG = T + 6 * (size_t)nC;                     // A_o U G
        gemm(nd, nC, 6, AU, 6, 0, G, nC, AUG, nC, 0);
        gemm(nC, nC, nd, T, nC, 1, AUG, nC, psiC, nC, 1);     // += (UG)' A_o (UG)
        for (int t = 0; t < nC; t++) {
            double s = 0.0;
            for (int k = 0; k < nd; k++) s += T[nC * k + t] * AR[k];
            pC[t] -= 2.0 * s;                                 // -2 (UG)' A_o R
        }
    }
    // the children's terms
    eta += metric_side(a, A, n->ia, 0, -1.0, WG, ws.gamma, nC, psiC, pC, T);
    eta += metric_side(a, B, n->ib, 6 * na1, 1.0, WG, ws.gamma, nC, psiC, pC, T);
    a->eta[i] = eta;
}


// A(C) from the forces on its handles
static double metric_value(const salto_dca* a, const dca_node* n) {
    const int i = (int)(n - a->node), nC = 6 * n->nh;
    const double* psi = a->psi + n->phi;
    const double* p = a->pm + n->vec;
    const double* f = a->force + n->vec;
    double v = a->eta[i];
    for (int r = 0; r < nC; r++) {
        double s = 0.0;
        for (int c = 0; c < nC; c++) s += psi[nC * r + c] * f[c];
        v += f[r] * (s + p[r]);
    }
    return v;
}


// the principal joint's accelerations and force from the forces on n's handles
static salto_status split(salto_dca* a, const dca_node* n, salto_data* d) {
    const dca_node* A = &a->node[n->a];
    const dca_node* B = &a->node[n->b];
    const int ldA = 6 * A->nh, ldB = 6 * B->nh, nd = n->active ? n->nd : 0;
    const node_ws ws = ws_of(a, n);
    const double* fC = a->force + n->vec;
    double* fA = a->force + A->vec;
    double* fB = a->force + B->vec;
    // x - beta = Phi_21^A f_1^A - Phi_12^B f_2^B
    double xb[6] = {0, 0, 0, 0, 0, 0};
    const int na1 = A->nh - 1;
    for (int k = 0, r = 0; k < A->nh; k++) {
        if (k == n->ia) continue;
        mul_6_acc(xb, 1.0, block(a, A, n->ia, k), ldA, fC + 6 * r);
        memcpy(fA + 6 * k, fC + 6 * r, 6 * sizeof(double));
        r++;
    }
    for (int k = 0, r = 0; k < B->nh; k++) {
        if (k == n->ib) continue;
        mul_6_acc(xb, -1.0, block(a, B, n->ib, k), ldB, fC + 6 * (na1 + r));
        memcpy(fB + 6 * k, fC + 6 * (na1 + r), 6 * sizeof(double));
        r++;
    }
    // qdd = (S'VS)^-1 (Q - VS' x)
    double q[6];
    for (int k = 0; k < nd; k++) {
        double s = 0.0;
        for (int t = 0; t < 6; t++) s += ws.VS[nd * t + k] * (xb[t] + ws.beta[t]);
        q[k] = d->tau[n->j0 + k] - s;
    }
    salto_chol_solve(ws.L, nd, q);
    for (int k = 0; k < nd; k++) {
        if (!isfinite(q[k])) return SALTO_ERR_NUMERIC;
        d->qdd[n->j0 + k] = q[k];
    }
    for (int k = nd; k < n->nd; k++) d->qdd[n->j0 + k] = 0.0; // held rigid
    // f = W (x - beta) + gamma: on B's handle, -f on A's
    double f[6];
    memcpy(f, ws.gamma, sizeof f);
    mul_6_acc(f, 1.0, ws.W, 6, xb);
    for (int t = 0; t < 6; t++) {
        fB[6 * n->ib + t] = f[t];
        fA[6 * n->ia + t] = -f[t];
    }
    return SALTO_OK;
}


// the main pass, leaves to root (children precede their parents in node[]), and with metric
// the acceleration metric's coefficients (a leaf's zero)
static salto_status main_pass(salto_dca* a, const salto_data* d, const double* fext, int metric) {
    for (int i = 0; i < a->nnode; i++) {
        dca_node* n = &a->node[i];
        const salto_status s = n->a < 0 ? leaf(a, n, d, fext) : join(a, n, d);
        if (s != SALTO_OK) return s;
        if (!metric) continue;
        if (n->a < 0) {
            memset(a->psi + n->phi, 0, sizeof(double) * 36 * (size_t)n->nh * (size_t)n->nh);
            memset(a->pm + n->vec, 0, sizeof(double) * 6 * (size_t)n->nh);
            a->eta[i] = 0.0;
        } else {
            metric_join(a, n, d);
        }
    }
    return SALTO_OK;
}


// the back-substitution, root to leaves (the root has no handles), and with the metric
// tracked each node's value
static salto_status back_substitute(salto_dca* a, salto_data* d) {
    if (a->metric_on) a->value[a->root] = a->eta[a->root];
    for (int i = a->nnode - 1; i >= 0; i--) {
        const dca_node* n = &a->node[i];
        if (n->a < 0) continue;
        const salto_status s = split(a, n, d);
        if (s != SALTO_OK) return s;
        for (int side = 0; a->metric_on && side < 2; side++) { // a leaf holds no joint: 0
            const int c = side ? n->b : n->a;
            a->value[c] = a->node[c].a < 0 ? 0.0 : metric_value(a, &a->node[c]);
        }
    }
    return SALTO_OK;
}


salto_status salto_dca_forward(salto_dca* a, salto_data* d, const double* fext) {
    salto_fk(a->m, d, SALTO_FK_VEL);
    const salto_status s = main_pass(a, d, fext, a->metric_on);
    return s != SALTO_OK ? s : back_substitute(a, d);
}


void salto_dca_track_metric(salto_dca* a, int on) {
    a->metric_on = on != 0;
}


double salto_dca_metric(const salto_dca* a, int body) {
    if (body < 0) return a->value[a->root];
    const int i = body < a->m->nbody ? a->body_node[body] : -1;
    return i >= 0 ? a->value[i] : NAN;
}


int salto_dca_set_weight(salto_dca* a, int body, const double* w) {
    const int i = body >= 0 && body < a->m->nbody ? a->body_node[body] : -1;
    if (i < 0) return -1;
    const int nd = a->node[i].nd;
    double L[36];
    for (int r = 0; r < nd; r++) {
        for (int c = 0; c < nd; c++) {
            if (w[nd * r + c] != w[nd * c + r] || !isfinite(w[nd * r + c])) return -1;
            L[nd * r + c] = w[nd * r + c];
        }
    }
    if (!salto_chol(L, nd)) return -1; // not positive definite
    for (int r = 0; r < nd; r++) {
        for (int c = 0; c < nd; c++) a->weight[36 * i + 6 * r + c] = w[nd * r + c];
    }
    return 0;
}


int salto_dca_subtree_links(const salto_dca* a, int body, unsigned char* in) {
    const int top = body < 0 ? a->root : body < a->m->nbody ? a->body_node[body] : -1;
    if (top < 0) return -1;
    memset(in, 0, (size_t)a->m->nv);
    // each internal node under top (up its parents to top: the tree's height steps at most)
    int count = 0;
    for (int i = 0; i < a->nnode; i++) {
        const dca_node* n = &a->node[i];
        if (n->a < 0) continue;
        int up = i;
        while (up >= 0 && up != top) up = a->node[up].parent;
        if (up != top) continue;
        for (int k = 0; k < n->nd; k++) in[n->j0 + k] = 1;
        count += n->nd;
    }
    return count;
}


// ---- the adaptive parts: regions by the metrics, rigidification, the step ----

// a max-heap of node indices on key[]
static void heap_push(int* heap, int* n, int x, const double* key) {
    int i = (*n)++;
    heap[i] = x;
    while (i > 0 && key[heap[(i - 1) / 2]] < key[heap[i]]) {
        const int p = (i - 1) / 2, t = heap[p];
        heap[p] = heap[i], heap[i] = t, i = p;
    }
}


static int heap_pop(int* heap, int* n, const double* key) {
    const int top = heap[0];
    heap[0] = heap[--*n];
    for (int i = 0;;) {
        const int l = 2 * i + 1, r = l + 1;
        int big = i;
        if (l < *n && key[heap[l]] > key[heap[big]]) big = l;
        if (r < *n && key[heap[r]] > key[heap[big]]) big = r;
        if (big == i) break;
        const int t = heap[big];
        heap[big] = heap[i], heap[i] = t, i = big;
    }
    return top;
}


// q' W q for the joint of node n (W: its weight) over its nd values q
static double weighted(const salto_dca* a, const dca_node* n, const double* q) {
    const double* W = a->weight + 36 * (n - a->node);
    if (n->nd == 1) return W[0] * q[0] * q[0];
    double v = 0.0;
    for (int r = 0; r < n->nd; r++) {
        for (int c = 0; c < n->nd; c++) v += q[r] * W[6 * r + c] * q[c];
    }
    return v;
}


// The search of salto_dca_accel_region from the accelerations of every joint (value[]: each
// node's metric, the sum of qdd' A qdd over its joints; the fully articulated ones in d->qdd):
// the node that matters most first, until the metric left is at most eps or budget joints are
// visited. On return d->qdd holds the visited joints' accelerations, zero elsewhere.
static void search_region(salto_dca* a, salto_data* d, double eps, int budget,
                          unsigned char* region, double* error) {
    memset(region, 0, (size_t)a->m->nv);
    double left = a->value[a->root];
    int nheap = 0, used = 0;
    if (a->node[a->root].a >= 0) heap_push(a->heap, &nheap, a->root, a->value);
    // (eps <= 0: the budget alone decides; the metric left may round below zero)
    while (nheap > 0 && (eps <= 0.0 || left > eps) && used < budget) {
        const dca_node* n = &a->node[heap_pop(a->heap, &nheap, a->value)];
        left -= weighted(a, n, d->qdd + n->j0);
        for (int k = 0; k < n->nd; k++) region[n->j0 + k] = 1;
        used++;
        for (int side = 0; side < 2; side++) {
            const int c = side ? n->b : n->a;
            if (a->node[c].a >= 0) heap_push(a->heap, &nheap, c, a->value);
        }
    }
    for (int j = 0; j < a->m->nv; j++) {
        if (!region[j]) d->qdd[j] = 0.0;
    }
    if (error) *error = left > 0.0 ? left : 0.0;
}


// The acceleration update region by the articulated-body algorithm: every joint's acceleration in
// O(N) by salto_aba, then each node's metric summed up the tree, then the search. The metric's
// coefficients (salto_dca_accel_region_coef) serve a search that solves only the joints it
// visits, but assembling them is a DCA pass and more, far dearer per node than ABA per link (the
// region of 20 joints on the 300-link pendulum: 26 us this way, 760 us by the coefficients; 30
// times on 50 and 1000 links too, 2026-11-27: 1.3 us a node against ABA's 0.08 us a link), so
// that even section 6's incremental coefficients, touching only the O(N_A log N) nodes around
// the active region, would have to touch fewer than 20 nodes to come out even. Armature, which
// salto_aba does not take, falls back to the coefficients.
salto_status salto_dca_accel_region(salto_dca* a, salto_data* d, const double* fext, double eps,
                                    int budget, unsigned char* region, double* error) {
    for (int j = 0; j < a->m->nv; j++) {
        if (a->armature[j] != 0.0) return salto_dca_accel_region_coef(a, d, fext, eps, budget, region, error);
    }
    const salto_status st = salto_aba(a->m, d, fext);
    if (st != SALTO_OK) return st;
    for (int j = 0; j < a->m->nv; j++) {
        if (!isfinite(d->qdd[j])) return SALTO_ERR_NUMERIC;
    }
    for (int i = 0; i < a->nnode; i++) {
        const dca_node* n = &a->node[i];
        a->value[i] = n->a < 0 ? 0.0 : a->value[n->a] + a->value[n->b] + weighted(a, n, d->qdd + n->j0);
    }
    search_region(a, d, eps, budget, region, error);
    return SALTO_OK;
}


salto_status salto_dca_accel_region_coef(salto_dca* a, salto_data* d, const double* fext,
                                         double eps, int budget, unsigned char* region,
                                         double* error) {
    // the fully articulated state, its coefficients and the metric's
    const int metric = a->metric_on;
    int* was = a->was;
    for (int i = 0; i < a->nnode; i++) was[i] = a->node[i].active, a->node[i].active = 1;
    a->metric_on = 1;
    salto_fk(a->m, d, SALTO_FK_VEL);
    salto_status st = main_pass(a, d, fext, 1);
    // the priority-queue back-substitution: the node that matters most first, until the
    // error left is at most eps or the budget of joints is spent
    memset(region, 0, (size_t)a->m->nv);
    memset(d->qdd, 0, sizeof(double) * (size_t)a->m->nv);
    double left = a->eta[a->root];
    a->value[a->root] = left;
    int nheap = 0, used = 0;
    if (st == SALTO_OK && a->node[a->root].a >= 0) heap_push(a->heap, &nheap, a->root, a->value);
    // (eps <= 0: the budget alone decides; the metric left may round below zero)
    while (st == SALTO_OK && nheap > 0 && (eps <= 0.0 || left > eps) && used < budget) {
        const dca_node* n = &a->node[heap_pop(a->heap, &nheap, a->value)];
        st = split(a, n, d);
        if (st != SALTO_OK) break;
        left -= weighted(a, n, d->qdd + n->j0);
        for (int k = 0; k < n->nd; k++) region[n->j0 + k] = 1;
        used++;
        for (int side = 0; side < 2; side++) {
            const int c = side ? n->b : n->a;
            if (a->node[c].a < 0) continue;
            a->value[c] = metric_value(a, &a->node[c]);
            heap_push(a->heap, &nheap, c, a->value);
        }
    }
    if (error) *error = left > 0.0 ? left : 0.0;
    for (int i = 0; i < a->nnode; i++) a->node[i].active = was[i];
    a->metric_on = metric;
    return st;
}


// the velocity changes d->qdd for joint impulses d->tau, after a main pass in impulse mode at
// the same positions: the leaves' biases zero, the bias pass up the tree, the back-substitution
static salto_status impulse_response(salto_dca* a, salto_data* d) {
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < a->nnode; i++) {
        const dca_node* n = &a->node[i];
        if (n->a < 0) {
            memset(a->vec + n->vec, 0, sizeof(double) * 6 * (size_t)n->nh);
        } else {
            join_bias(a, n, zero, d->tau);
        }
    }
    return back_substitute(a, d);
}


salto_status salto_dca_rigidify(salto_dca* a, salto_data* d, const unsigned char* rigid) {
    const salto_model* m = a->m;
    const int nv = m->nv;
    // the DOFs to stop: active now, rigid next
    int nr = 0;
    int* idx = a->idx;
    double* save = a->save;
    for (int i = 0; i < a->nnode; i++) {
        const dca_node* n = &a->node[i];
        if (n->a < 0 || !n->active || !rigid[n->body]) continue;
        for (int k = 0; k < n->nd; k++) idx[nr++] = n->j0 + k;
    }
    if (nr == 0) return SALTO_OK; // nothing to stop
    if (nr > a->kcap) { // K^R (nr x nr) and Q^R (nr), grown to the largest seen
        double* K = salto_malloc(sizeof(double) * (size_t)nr * (size_t)(nr + 1));
        if (!K) return SALTO_ERR_NOMEM;
        salto_free(a->K);
        a->K = K, a->kcap = nr;
    }
    double* K = a->K;
    memcpy(save, d->tau, sizeof(double) * (size_t)nv);
    memcpy(save + nv, d->qd, sizeof(double) * (size_t)nv);
    // impulses meet no velocity terms, gravity or external forces: K^R's columns are the DOFs'
    // velocity changes for a unit impulse on each (Kokkevis's test impulses). The positions do
    // not change, so the coefficients are assembled once and each impulse takes the bias pass
    // and the back-substitution alone.
    const int metric = a->metric_on;
    a->impulse = 1, a->metric_on = 0;
    salto_fk(m, d, SALTO_FK_POS);
    salto_status st = main_pass(a, d, NULL, 0);
    for (int c = 0; c < nr && st == SALTO_OK; c++) {
        memset(d->tau, 0, sizeof(double) * (size_t)nv);
        d->tau[idx[c]] = 1.0;
        st = impulse_response(a, d);
        for (int r = 0; r < nr && st == SALTO_OK; r++) K[nr * r + c] = d->qdd[idx[r]];
    }
    double* Q = K + (size_t)nr * (size_t)nr;
    if (st == SALTO_OK) {
        // K^R Q^R = -qd^R; K^R is SPD (the inverse of the inertia matrix's R block)
        for (int r = 0; r < nr; r++) {
            for (int c = 0; c < r; c++) K[nr * r + c] = K[nr * c + r] = 0.5 * (K[nr * r + c] + K[nr * c + r]);
            Q[r] = -save[nv + idx[r]];
        }
        if (!salto_chol(K, nr)) {
            st = SALTO_ERR_NUMERIC;
        } else {
            salto_chol_solve(K, nr, Q);
            memset(d->tau, 0, sizeof(double) * (size_t)nv);
            for (int r = 0; r < nr; r++) d->tau[idx[r]] = Q[r];
            st = impulse_response(a, d);
        }
    }
    a->metric_on = metric;
    a->impulse = 0;
    // the velocity change on every active DOF; the stopped ones exactly at rest
    memcpy(d->tau, save, sizeof(double) * (size_t)nv);
    for (int j = 0; j < nv; j++) d->qd[j] = save[nv + j] + (st == SALTO_OK ? d->qdd[j] : 0.0);
    for (int r = 0; r < nr; r++) d->qd[idx[r]] = 0.0;
    if (st != SALTO_OK) return st;
    // and those joints rigid from now on
    for (int i = 0; i < a->nnode; i++) {
        dca_node* n = &a->node[i];
        if (n->a >= 0 && rigid[n->body]) n->active = 0;
    }
    a->hy_valid = 0;
    return SALTO_OK;
}


int salto_dca_active_joints(const salto_dca* a) {
    int n = 0;
    for (int i = 0; i < a->nnode; i++) n += a->node[i].a >= 0 && a->node[i].active;
    return n;
}


// builds the hybrid body as a model of its own when the active joints changed (O(N)); 1 when
// it serves, 0 when an active DOF has armature (which salto_aba does not take); fk: d's
// kinematics are not known to be at d->q
static int hybrid_ready(salto_dca* a, salto_data* d, int fk) {
    if (a->hy_valid) return 1;
    salto_dca_active_links(a, a->links);
    for (int j = 0; j < a->m->nv; j++) {
        if (a->links[j] && a->armature[j] != 0.0) return 0;
    }
    if (fk) salto_fk(a->m, d, SALTO_FK_POS);
    a->hy_dofs = salto_hybrid_set(a->hy, d, a->links);
    a->hy_joints = salto_dca_active_joints(a);
    a->hy_valid = 1;
    return 1;
}


salto_status salto_dca_hybrid_forward(salto_dca* a, salto_data* d, const double* fext) {
    return hybrid_ready(a, d, 1) ? salto_hybrid_forward(a->hy, d, fext) : salto_dca_forward(a, d, fext);
}


// an adaptive step that updates the active region (section 5.1)
// advance 0: the active region chosen (by the velocities a step of h would reach) and the
// joints left out stopped at the current velocities; nothing integrated
static salto_status region_step(salto_dca* a, salto_data* d, const double* fext, double h,
                                const salto_adaptive_opts* o, salto_adaptive_stats* out,
                                int advance) {
    const salto_model* m = a->m;
    const int nv = m->nv;
    salto_adaptive_stats st;
    memset(&st, 0, sizeof st);
    st.updated = 1;
    a->hy_valid = 0;
    unsigned char* region = a->region;
    unsigned char* rigid = region + nv;
    // 1. the acceleration update region, from the fully articulated state
    salto_status s = salto_dca_accel_region(a, d, fext, o->accel_eps, o->budget, region, &st.accel_error);
    // 2. the transient active region: the previous one and that one; its accelerations
    for (int i = 0; i < a->nnode && s == SALTO_OK; i++) {
        dca_node* n = &a->node[i];
        if (n->a >= 0 && region[n->j0]) n->active = 1;
    }
    // (by the transient hybrid body as a model of its own: the rigid DOFs' qdd stay the zeros
    // the region's search left)
    // (the search's kinematics are at d->q)
    const int small = s == SALTO_OK && hybrid_ready(a, d, 0);
    if (s == SALTO_OK) s = small ? salto_hybrid_forward(a->hy, d, fext) : salto_dca_forward(a, d, fext);
    // 3. the velocities of the transient region (the rigid ones are at rest); the velocity
    // metric bottom up, then the new active region from the root, the fastest first
    if (s == SALTO_OK) {
        if (!advance) memcpy(a->keep, d->qd, sizeof(double) * (size_t)nv);
        for (int j = 0; j < nv; j++) d->qd[j] += h * d->qdd[j];
        for (int i = 0; i < a->nnode; i++) {
            const dca_node* n = &a->node[i];
            a->value[i] = n->a < 0 ? 0.0
                                   : a->value[n->a] + a->value[n->b] +
                                         (n->active ? weighted(a, n, d->qd + n->j0) : 0.0);
        }
        double left = a->value[a->root];
        st.transient_joints = salto_dca_active_joints(a);
        memset(rigid, 1, (size_t)m->nbody);
        int nheap = 0, used = 0;
        if (a->node[a->root].a >= 0) heap_push(a->heap, &nheap, a->root, a->value);
        while (nheap > 0 && (o->vel_eps <= 0.0 || left > o->vel_eps) && used < o->budget) {
            const dca_node* n = &a->node[heap_pop(a->heap, &nheap, a->value)];
            if (!n->active) continue; // at rest and rigid: nothing under it moves
            left -= weighted(a, n, d->qd + n->j0);
            rigid[n->body] = 0;
            used++;
            for (int side = 0; side < 2; side++) {
                const int c = side ? n->b : n->a;
                if (a->node[c].a >= 0) heap_push(a->heap, &nheap, c, a->value);
            }
        }
        st.vel_error = left > 0.0 ? left : 0.0;
        if (!advance) memcpy(d->qd, a->keep, sizeof(double) * (size_t)nv);
        // 4. rigidification: the transient joints left out stopped by impulses (and the kinetic
        // energy that took, measured only when there are some)
        int stops = 0;
        for (int i = 0; i < a->nnode; i++) {
            stops |= a->node[i].a >= 0 && a->node[i].active && rigid[a->node[i].body];
        }
        if (stops && small) {
            // on the transient hybrid body's joint-space inertia: O(N_T^3), not O(N_R N)
            unsigned char* stop = a->links;
            memset(stop, 0, (size_t)nv);
            for (int i = 0; i < a->nnode; i++) {
                const dca_node* n = &a->node[i];
                for (int k = 0; n->a >= 0 && n->active && rigid[n->body] && k < n->nd; k++) stop[n->j0 + k] = 1;
            }
            s = salto_hybrid_stop(a->hy, d, stop, &st.rigidified_energy);
            for (int i = 0; s == SALTO_OK && i < a->nnode; i++) {
                dca_node* n = &a->node[i];
                if (n->a >= 0 && rigid[n->body]) n->active = 0;
            }
            a->hy_valid = 0;
        } else if (stops) {
            double k0, k1, pe;
            salto_fk(m, d, SALTO_FK_VEL);
            salto_link_inertias(m, d);
            salto_energy(m, d, &k0, &pe);
            s = salto_dca_rigidify(a, d, rigid);
            if (s == SALTO_OK) {
                salto_fk(m, d, SALTO_FK_VEL);
                salto_link_inertias(m, d);
                salto_energy(m, d, &k1, &pe);
                st.rigidified_energy = k1 - k0;
            }
        }
    }
    // 5. positions
    if (s == SALTO_OK) {
        for (int j = 0; advance && j < nv; j++) d->q[j] += h * d->qd[j];
        st.active_joints = salto_dca_active_joints(a);
        st.active_dofs = salto_dca_active_dofs(a);
    }
    if (out) *out = st;
    return s;
}


salto_status salto_dca_adaptive_step(salto_dca* a, salto_data* d, const double* fext, double h,
                                     const salto_adaptive_opts* o, salto_adaptive_stats* out) {
    const int period = o->period > 1 ? o->period : 1;
    const int all = o->budget >= a->ninternal && !(o->accel_eps > 0.0) && !(o->vel_eps > 0.0);
    if (!all && (a->since == 0 || a->since >= period)) {
        const salto_status s = region_step(a, d, fext, h, o, out, 1);
        a->since = 1;
        return s;
    }
    // between updates (or with every joint kept, when there is nothing to choose): the hybrid
    // body's step, its active joints only
    salto_adaptive_stats st;
    memset(&st, 0, sizeof st);
    if (all && !(a->hy_valid && a->hy_joints == a->ninternal) && salto_dca_active_joints(a) < a->ninternal) {
        salto_dca_set_active(a, NULL);
    }
    st.updated = a->since == 0;
    a->since++;
    salto_status s;
    if (hybrid_ready(a, d, 1)) {
        s = salto_hybrid_step(a->hy, d, fext, h);
        st.active_joints = a->hy_joints, st.active_dofs = a->hy_dofs;
    } else {
        s = salto_dca_forward(a, d, fext); // rigid joints: qdd = 0 and qd = 0
        for (int j = 0; s == SALTO_OK && j < a->m->nv; j++) d->qd[j] += h * d->qdd[j], d->q[j] += h * d->qd[j];
        st.active_joints = salto_dca_active_joints(a);
        st.active_dofs = salto_dca_active_dofs(a);
    }
    st.transient_joints = st.active_joints;
    if (out) *out = st;
    return s;
}


salto_status salto_dca_adaptive_select(salto_dca* a, salto_data* d, const double* fext, double h,
                                       const salto_adaptive_opts* o, salto_adaptive_stats* out) {
    const salto_status s = region_step(a, d, fext, h, o, out, 0);
    a->since = 1;
    return s;
}


int salto_dca_set_armature(salto_dca* a, const double* arm) {
    const int nv = a->m->nv;
    for (int j = 0; arm && j < nv; j++) {
        if (!(arm[j] >= 0.0) || !isfinite(arm[j])) return -1;
    }
    for (int j = 0; j < nv; j++) a->armature[j] = arm ? arm[j] : 0.0;
    a->hy_valid = 0;
    return 0;
}
