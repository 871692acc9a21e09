// model.c: building the flat link model from a character description
//
// The tree of user bodies is walked depth first (children in file order) and every joint
// axis becomes one link. The root type adds its own links first (free: x, y, z translations
// and three rotations; planar: x, z, rotation about y). A welded (fixed) root adds no link:
// its children hang from the world.
#include "salto/model.h"

#include <string.h>

#include "salto/spatial.h"

// ---- one-buffer layout: the same code sizes the buffer (base NULL) and then carves it ----

typedef struct layout {
    char* base;
    size_t used;
} layout;


static void* take(layout* L, size_t count, size_t size) {
    size_t bytes = count * size;
    size_t at = (L->used + 15) & ~(size_t)15;
    L->used = at + bytes;
    return L->base ? L->base + at : NULL;
}


static int carve(salto_model* m, layout* L, const salto_character_desc* c, int nv, int nsite,
                 int ngeom) {
    const int nb = c->nbody;
    m->link_parent = take(L, (size_t)nv, sizeof(int));
    m->link_subtree_end = take(L, (size_t)nv, sizeof(int));
    m->link_type = take(L, (size_t)nv, sizeof(int));
    m->link_body = take(L, (size_t)nv, sizeof(int));
    m->link_massive = take(L, (size_t)nv, sizeof(int));
    m->link_axis_k = take(L, (size_t)nv, sizeof(int));
    m->link_tree_rot = take(L, (size_t)nv, sizeof(int));
    m->link_offset = take(L, (size_t)nv, sizeof(int));
    m->link_Rtree = take(L, (size_t)nv * 9, sizeof(double));
    m->link_rtree = take(L, (size_t)nv * 3, sizeof(double));
    m->link_axis = take(L, (size_t)nv * 3, sizeof(double));
    m->link_inertia = take(L, (size_t)nv * 10, sizeof(double));
    m->link_Iorigin = take(L, (size_t)nv * 10, sizeof(double));
    m->link_has_limits = take(L, (size_t)nv, sizeof(int));
    m->link_limits = take(L, (size_t)nv * 2, sizeof(double));
    m->link_has_torque = take(L, (size_t)nv, sizeof(int));
    m->link_torque = take(L, (size_t)nv * 2, sizeof(double));
    m->link_torque_slope = take(L, (size_t)nv, sizeof(double));
    m->link_name = take(L, (size_t)nv, sizeof(char*));
    m->body_name = take(L, (size_t)nb, sizeof(char*));
    m->body_parent = take(L, (size_t)nb, sizeof(int));
    m->body_link = take(L, (size_t)nb, sizeof(int));
    m->body_mass = take(L, (size_t)nb, sizeof(double));
    m->body_world = take(L, (size_t)nb * 12, sizeof(double));
    m->site_name = take(L, (size_t)nsite, sizeof(char*));
    m->site_body = take(L, (size_t)nsite, sizeof(int));
    m->site_link = take(L, (size_t)nsite, sizeof(int));
    m->site_pos = take(L, (size_t)nsite * 3, sizeof(double));
    m->geom_shape = take(L, (size_t)ngeom, sizeof(int));
    m->geom_body = take(L, (size_t)ngeom, sizeof(int));
    m->geom_link = take(L, (size_t)ngeom, sizeof(int));
    m->geom_data = take(L, (size_t)ngeom * 7, sizeof(double));
    return 0;
}


// copies a string into the layout's string area
static char* take_str(layout* L, const char* s) {
    size_t n = strlen(s) + 1;
    char* p = take(L, n, 1);
    if (p) memcpy(p, s, n);
    return p;
}


static const char* const root_axis_names[3] = {"root_rx", "root_ry", "root_rz"};
static const char* const root_trans_names[3] = {"root_x", "root_y", "root_z"};


// fills one link
static void set_link(salto_model* m, int i, int parent, int type, const double* axis,
                     int body) {
    m->link_parent[i] = parent;
    m->link_type[i] = type;
    m->link_body[i] = body;
    m->link_massive[i] = 0;
    m->link_tree_rot[i] = 0;
    double* R = m->link_Rtree + 9 * i;
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1.0;
    memset(m->link_rtree + 3 * i, 0, 3 * sizeof(double));
    memcpy(m->link_axis + 3 * i, axis, 3 * sizeof(double));
    m->link_axis_k[i] = -1;
    for (int k = 0; k < 3; k++) {
        double e[3] = {0, 0, 0};
        e[k] = 1.0;
        if (axis[0] == e[0] && axis[1] == e[1] && axis[2] == e[2]) m->link_axis_k[i] = k;
    }
    memset(m->link_inertia + 10 * i, 0, 10 * sizeof(double));
    m->link_has_limits[i] = 0;
    m->link_limits[2 * i] = m->link_limits[2 * i + 1] = 0.0;
    m->link_has_torque[i] = 0;
    m->link_torque[2 * i] = m->link_torque[2 * i + 1] = 0.0;
    m->link_torque_slope[i] = 0.0;
}


// places a link's joint frame: R_tree = W, r_tree = W x + p (from the world), or the
// identity and x (from a parent link)
static void place_link(salto_model* m, int i, const double* x, const double* W,
                       const double* p) {
    if (W) {
        memcpy(m->link_Rtree + 9 * i, W, 9 * sizeof(double));
        salto_m3_mul_v3(m->link_rtree + 3 * i, W, x);
        for (int k = 0; k < 3; k++) m->link_rtree[3 * i + k] += p[k];
        m->link_tree_rot[i] = !(W[0] == 1 && W[4] == 1 && W[8] == 1 && W[1] == 0 &&
                                W[2] == 0 && W[3] == 0 && W[5] == 0 && W[6] == 0 && W[7] == 0);
    } else {
        memcpy(m->link_rtree + 3 * i, x, 3 * sizeof(double));
    }
}


static void set_inertia(salto_model* m, int i, const salto_body_desc* b) {
    double* I = m->link_inertia + 10 * i;
    m->link_massive[i] = 1;
    I[0] = b->mass;
    I[1] = b->com[0], I[2] = b->com[1], I[3] = b->com[2];
    const double* J = b->inertia;
    I[4] = J[0], I[5] = J[4], I[6] = J[8];
    I[7] = 0.5 * (J[1] + J[3]), I[8] = 0.5 * (J[2] + J[6]), I[9] = 0.5 * (J[5] + J[7]);
}


salto_model* salto_model_build(const salto_character_desc* c, const salto_model_options* opt,
                               salto_error* err) {
    if (!c) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "no character description");
        return NULL;
    }
    if (salto_character_validate(c, err) != SALTO_OK) return NULL;

    const int nb = c->nbody;
    int root = -1;
    for (int b = 0; b < nb; b++) {
        if (c->bodies[b].parent < 0) root = b;
    }
    if (root < 0) {
        SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "character has no root body");
        return NULL;
    }

    // depth-first order of bodies, children in file order (explicit stack, no recursion)
    int* order = salto_calloc((size_t)nb, sizeof(int));
    int* stack = salto_calloc((size_t)nb, sizeof(int));
    if (!order || !stack) {
        salto_free(order);
        salto_free(stack);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory building the model");
        return NULL;
    }
    int norder = 0, nstack = 0;
    stack[nstack++] = root;
    while (nstack > 0) {
        const int b = stack[--nstack];
        order[norder++] = b;
        // push children in reverse file order so that they pop in file order
        for (int k = nb - 1; k >= 0; k--) {
            if (c->bodies[k].parent == b && nstack < nb) stack[nstack++] = k;
        }
    }
    salto_free(stack);

    const int nroot = c->root_type == SALTO_ROOT_FREE ? 6 : c->root_type == SALTO_ROOT_PLANAR ? 3 : 0;
    int nv = nroot, nsite = 0, ngeom = 0;
    for (int b = 0; b < nb; b++) {
        if (b != root) nv += c->bodies[b].naxis;
        nsite += c->bodies[b].nsite;
        ngeom += c->bodies[b].ngeom;
    }

    // size, allocate, carve
    layout L = {NULL, 0};
    salto_model tmp;
    carve(&tmp, &L, c, nv, nsite, ngeom);
    take_str(&L, c->name ? c->name : "");
    for (int b = 0; b < nb; b++) {
        const salto_body_desc* bd = c->bodies + b;
        take_str(&L, bd->name);
        for (int k = 0; k < bd->naxis; k++) take_str(&L, bd->axes[k].name);
        for (int k = 0; k < bd->nsite; k++) take_str(&L, bd->sites[k].name);
    }
    for (int k = 0; k < nroot; k++) take_str(&L, "root_rx");

    salto_model* m = salto_calloc(1, sizeof(salto_model));
    void* buffer = salto_calloc(1, L.used + 16);
    if (!m || !buffer) {
        salto_free(m);
        salto_free(buffer);
        salto_free(order);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory building the model");
        return NULL;
    }
    L.base = buffer;
    L.used = 0;
    carve(m, &L, c, nv, nsite, ngeom);
    m->buffer = buffer;
    m->name = take_str(&L, c->name ? c->name : "");
    m->nv = nv;
    m->nbody = nb;
    m->nsite = nsite;
    m->ngeom = ngeom;
    m->root_type = (int)c->root_type;
    m->nroot = nroot;

    // world frame change
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, P[3] = {0, 0, 0};
    if (opt) {
        memcpy(W, opt->world_R, sizeof W);
        memcpy(P, opt->world_p, sizeof P);
    }
    salto_m3_mul_v3(m->gravity, W, c->gravity);

    // body index in the model: the depth-first order; map file index -> model index
    int* model_index = salto_calloc((size_t)nb, sizeof(int));
    if (!model_index) {
        salto_free(order);
        salto_model_destroy(m);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory building the model");
        return NULL;
    }
    for (int k = 0; k < nb; k++) model_index[order[k]] = k;

    int nl = 0;
    m->mass = 0.0;
    for (int k = 0; k < nb; k++) {
        const int b = order[k];
        const salto_body_desc* bd = c->bodies + b;
        m->body_name[k] = take_str(&L, bd->name);
        m->body_parent[k] = bd->parent < 0 ? -1 : model_index[bd->parent];
        m->body_mass[k] = bd->mass;
        double* bw = m->body_world + 12 * k;
        memset(bw, 0, 12 * sizeof(double));

        if (b == root) {
            const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
            const double* e[3] = {ex, ey, ez};
            if (c->root_type == SALTO_ROOT_FIXED) {
                m->body_link[k] = -1;
                memcpy(bw, W, 9 * sizeof(double));
                salto_m3_mul_v3(bw + 9, W, bd->joint_pos);
                for (int j = 0; j < 3; j++) bw[9 + j] += P[j];
                continue;
            }
            // translations, then rotations
            const int ntrans = c->root_type == SALTO_ROOT_FREE ? 3 : 2;
            const int trans[3] = {0, c->root_type == SALTO_ROOT_FREE ? 1 : 2, 2};
            for (int j = 0; j < ntrans; j++) {
                set_link(m, nl, nl - 1, SALTO_AXIS_PRISMATIC, e[trans[j]], k);
                m->link_name[nl] = take_str(&L, root_trans_names[trans[j]]);
                if (j == 0) place_link(m, nl, bd->joint_pos, W, P);
                nl++;
            }
            const int nrot = c->root_type == SALTO_ROOT_FREE ? 3 : 1;
            for (int j = 0; j < nrot; j++) {
                const int ax = c->root_type == SALTO_ROOT_FREE ? c->root_rot_order[j] : 1;
                set_link(m, nl, nl - 1, SALTO_AXIS_REVOLUTE, e[ax], k);
                m->link_name[nl] = take_str(&L, root_axis_names[ax]);
                nl++;
            }
            m->link_parent[nl - nroot] = -1;
            set_inertia(m, nl - 1, bd);
            m->body_link[k] = nl - 1;
            m->mass += bd->mass;
            continue;
        }

        // a joint chain hanging from the parent body's link (or the world, if welded)
        const int pb = m->body_parent[k];
        const int plink = m->body_link[pb];
        for (int j = 0; j < bd->naxis; j++) {
            const salto_axis_desc* ad = bd->axes + j;
            set_link(m, nl, j == 0 ? plink : nl - 1, (int)ad->type, ad->axis, k);
            m->link_name[nl] = take_str(&L, ad->name);
            if (j == 0) {
                if (plink < 0) {
                    // welded parent: joint position in its body frame, placed in the world
                    const double* pw = m->body_world + 12 * pb;
                    double x[3];
                    salto_m3_mul_v3(x, pw, bd->joint_pos);
                    for (int t = 0; t < 3; t++) x[t] += pw[9 + t];
                    place_link(m, nl, x, NULL, NULL);
                    memcpy(m->link_Rtree + 9 * nl, pw, 9 * sizeof(double));
                    m->link_tree_rot[nl] = !(pw[0] == 1 && pw[4] == 1 && pw[8] == 1 &&
                                             pw[1] == 0 && pw[2] == 0 && pw[3] == 0 &&
                                             pw[5] == 0 && pw[6] == 0 && pw[7] == 0);
                } else {
                    place_link(m, nl, bd->joint_pos, NULL, NULL);
                }
            }
            m->link_has_torque[nl] = ad->has_torque;
            m->link_torque[2 * nl] = ad->torque[0];
            m->link_torque[2 * nl + 1] = ad->torque[1];
            m->link_torque_slope[nl] = ad->torque_slope;
            m->ntorque += ad->has_torque;
            m->link_has_limits[nl] = ad->has_limits;
            m->link_limits[2 * nl] = ad->limits[0];
            m->link_limits[2 * nl + 1] = ad->limits[1];
            nl++;
        }
        set_inertia(m, nl - 1, bd);
        m->body_link[k] = nl - 1;
        m->mass += bd->mass;
    }
    SALTO_ASSERT(nl == nv);

    // inertia about the link origin: h = m c, Ibar = I_com + m (|c|^2 1 - c c')
    for (int i = 0; i < nv; i++) salto_si_from_com(m->link_Iorigin + 10 * i, m->link_inertia + 10 * i);

    for (int i = 0; i < nv; i++) {
        const double* r = m->link_rtree + 3 * i;
        m->link_offset[i] = r[0] != 0.0 || r[1] != 0.0 || r[2] != 0.0;
    }

    // subtree ends: links are in preorder, so a subtree ends at the first later link whose
    // parent chain does not reach back to it
    for (int i = nv - 1; i >= 0; i--) m->link_subtree_end[i] = i + 1;
    for (int i = nv - 1; i >= 0; i--) {
        const int p = m->link_parent[i];
        if (p >= 0 && m->link_subtree_end[i] > m->link_subtree_end[p]) {
            m->link_subtree_end[p] = m->link_subtree_end[i];
        }
    }

    // sites and geometry, in body-frame coordinates of the body's link
    int ns = 0, ng = 0;
    for (int k = 0; k < nb; k++) {
        const salto_body_desc* bd = c->bodies + order[k];
        for (int j = 0; j < bd->nsite; j++, ns++) {
            m->site_name[ns] = take_str(&L, bd->sites[j].name);
            m->site_body[ns] = k;
            m->site_link[ns] = m->body_link[k];
            memcpy(m->site_pos + 3 * ns, bd->sites[j].pos, 3 * sizeof(double));
        }
        for (int j = 0; j < bd->ngeom; j++, ng++) {
            const salto_geom_desc* g = bd->geoms + j;
            m->geom_shape[ng] = (int)g->shape;
            m->geom_body[ng] = k;
            m->geom_link[ng] = m->body_link[k];
            double* gd = m->geom_data + 7 * ng;
            memcpy(gd, g->a, 3 * sizeof(double));
            memcpy(gd + 3, g->b, 3 * sizeof(double));
            gd[6] = g->radius;
        }
    }

    salto_free(order);
    salto_free(model_index);
    return m;
}


salto_model* salto_model_load(const char* path, salto_error* err) {
    salto_character_desc* c = salto_character_load(path, err);
    if (!c) return NULL;
    salto_model* m = salto_model_build(c, NULL, err);
    salto_character_destroy(c);
    return m;
}


void salto_model_destroy(salto_model* m) {
    if (!m) return;
    salto_free(m->buffer);
    salto_free(m);
}


static int find_name(char* const* names, int n, const char* name) {
    if (!name) return -1;
    for (int i = 0; i < n; i++) {
        if (names[i] && strcmp(names[i], name) == 0) return i;
    }
    return -1;
}


int salto_model_dof(const salto_model* m, const char* name) {
    return find_name(m->link_name, m->nv, name);
}


int salto_model_body(const salto_model* m, const char* name) {
    return find_name(m->body_name, m->nbody, name);
}


int salto_model_site(const salto_model* m, const char* name) {
    return find_name(m->site_name, m->nsite, name);
}


double salto_model_weight(const salto_model* m) {
    const double g = salto_v3_norm(m->gravity);
    return m->mass * (g > 0.0 ? g : 9.81);
}


int salto_model_is_planar(const salto_model* m) {
    if (m->root_type != SALTO_ROOT_PLANAR) return 0;
    for (int i = 0; i < m->nv; i++) {
        const double* a = m->link_axis + 3 * i;
        if (m->link_tree_rot[i]) return 0;
        if (m->link_type[i] == SALTO_AXIS_REVOLUTE && !(a[0] == 0 && a[2] == 0)) return 0;
        if (m->link_type[i] == SALTO_AXIS_PRISMATIC && a[1] != 0) return 0;
    }
    return 1;
}


// The root's world translation: its DOFs at the head of the root chain that are prismatic
// (before any revolute one, so that their axes are fixed in the world) into tdof, their world
// axes (the chain's fixed rotations applied) into axes; returns how many (at most 3).
int salto_model_root_translation(const salto_model* m, int tdof[3], double axes[3][3]) {
    int nt = 0;
    for (int j = 0; j < m->nv && j < m->nroot && nt < 3; j++) {
        if (m->link_type[j] != SALTO_AXIS_PRISMATIC || m->link_parent[j] != j - 1) break;
        double a[3];
        memcpy(a, m->link_axis + 3 * j, sizeof a);
        for (int k = j; k >= 0; k--) {
            double b[3];
            salto_m3_mul_v3(b, m->link_Rtree + 9 * k, a);
            memcpy(a, b, sizeof a);
        }
        tdof[nt] = j;
        memcpy(axes[nt], a, sizeof a);
        nt++;
    }
    return nt;
}
