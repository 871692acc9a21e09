// problem_turn.c: a problem's free root in a turned chart (salto_problem_turn_root)
//
// The optimiser's root angles are Euler angles, singular where the middle one is +-90 deg. A
// motion that has to turn about the lost direction there (a turn about the vertical lying flat,
// in the default [y, x, z] chart) is solved in a turned chart R = B E(q), B chosen so that the
// motion keeps away from that chart's singular set (salto_euler_reference). The problem file's
// root angles stay the character's: its poses and velocities are converted here, once, with
// the turns (2 pi shifts) a motion in the new chart makes, so that a full turn stays a full turn.
#include "salto/problem.h"

#include <math.h>
#include <string.h>

#include "salto/orient.h"


// the three root angles' places in c's DOF list (-1 where absent); how many are there
static int root_slots(const salto_constraint_desc* c, int slot[3]) {
    int n = 0;
    for (int a = 0; a < 3; a++) slot[a] = -1;
    for (int k = 0; k < c->ndof; k++) {
        if (c->dof[k] >= 3 && c->dof[k] < 6) slot[c->dof[k] - 3] = k, n++;
    }
    return n;
}


// the pose giving all three root angles at time t (the character's chart), or NULL
static const salto_constraint_desc* full_pose_at(const salto_problem_desc* p, double t) {
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc* c = p->cons + i;
        int slot[3];
        if (c->type == SALTO_CON_POSE && c->has_time && fabs(c->time - t) <= 1e-12 * fmax(1.0, p->duration) &&
            root_slots(c, slot) == 3) {
            return c;
        }
    }
    return NULL;
}


// c's DOF list with the root's three angles (appended where missing, value 0); 0, or -1 when
// memory runs out (c unchanged)
// Gives every pose and velocity of q that constrains some of the root's angles in p (q's
// constraint i matched to p's i; p may be q) all three, all or nothing: the widened lists are
// made first and swapped in only when each could be (the added angles' values 0, to be set).
// Returns 0, or -1 when memory runs out (q unchanged).
static int widen_root_angles(salto_problem_desc* q, const salto_problem_desc* p) {
    const int nc = q->ncon;
    int** dof = salto_calloc((size_t)(nc > 0 ? nc : 1), sizeof *dof);
    double** value = salto_calloc((size_t)(nc > 0 ? nc : 1), sizeof *value);
    int ok = dof && value;
    for (int i = 0; ok && i < nc; i++) {
        const salto_constraint_desc* a = p->cons + i;
        const salto_constraint_desc* c = q->cons + i;
        int slot[3];
        if ((a->type != SALTO_CON_POSE && a->type != SALTO_CON_VELOCITY) || root_slots(a, slot) == 0) continue;
        const int n = root_slots(c, slot);
        if (n == 3) continue;
        dof[i] = salto_malloc(sizeof(int) * (size_t)(c->ndof + 3 - n));
        value[i] = salto_malloc(sizeof(double) * (size_t)(c->ndof + 3 - n));
        if (!dof[i] || !value[i]) {
            ok = 0;
            break;
        }
        memcpy(dof[i], c->dof, sizeof(int) * (size_t)c->ndof);
        memcpy(value[i], c->value, sizeof(double) * (size_t)c->ndof);
        int k = c->ndof;
        for (int r = 0; r < 3; r++) {
            if (slot[r] < 0) dof[i][k] = 3 + r, value[i][k] = 0.0, k++;
        }
    }
    for (int i = 0; dof && value && i < nc; i++) {
        salto_constraint_desc* c = q->cons + i;
        if (!ok || !dof[i]) {
            salto_free(dof[i]), salto_free(value[i]);
            continue;
        }
        int slot[3];
        c->ndof += 3 - root_slots(c, slot);
        salto_free(c->dof), salto_free(c->value);
        c->dof = dof[i], c->value = value[i];
    }
    salto_free(dof), salto_free(value);
    return ok ? 0 : -1;
}


// the character's chart's angles at time t: the given ones (mask) as they are, the others the
// path's orientation's (nearest the given ones' set)
static void character_angles(const int o[3], const double B[9], const double qp[3], const int given[3],
                             const double v[3], double phi[3]) {
    double e[3], near[3];
    salto_euler_rechart(o, B, NULL, qp, NULL, NULL, NULL, e, NULL, NULL);
    for (int a = 0; a < 3; a++) near[a] = given[a] ? v[a] : e[a];
    salto_euler_rechart(o, B, NULL, qp, NULL, NULL, near, e, NULL, NULL);
    for (int a = 0; a < 3; a++) phi[a] = given[a] ? v[a] : e[a];
}


salto_status salto_problem_turn_root(salto_problem_desc* p, const double B[9], const double anchor[3],
                                     void (*path)(void* ctx, double t, double q[3], double qd[3]), void* ctx,
                                     salto_error* err) {
    int o[3];
    if (p->root_turned || !salto_root_order(p->model, o)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "the root has no chart to turn");
    }
    // first everything checked (and the lists grown), then converted
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc* c = p->cons + i;
        int slot[3];
        const int n = (c->type == SALTO_CON_POSE || c->type == SALTO_CON_VELOCITY ||
                       c->type == SALTO_CON_JOINT_RANGE) ? root_slots(c, slot) : 0;
        if (n == 0) continue;
        // (poses and velocities always have a time: the loader requires it)
        if (c->type == SALTO_CON_JOINT_RANGE) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, c->loc, "a joint range on the root's angles");
        }
    }
    for (int k = 0; k < p->nobj; k++) {
        if (p->objs[k].type == SALTO_OBJ_REFERENCE) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, p->objs[k].loc, "a reference motion's root angles");
        }
    }
    for (int a = 0; a < 3; a++) {
        if (p->model->link_has_limits[3 + a]) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "limits on the root's angles");
        }
    }
    // the targets, in the character's chart (poses) and in the turned one (both), before any list
    // changes: velocities read their time's pose as the file gives it
    const int nc = p->ncon;
    double* tq = salto_malloc(sizeof(double) * (size_t)(nc > 0 ? 3 * nc : 1));
    if (!tq) return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    for (int i = 0; i < nc; i++) {
        const salto_constraint_desc* c = p->cons + i;
        int slot[3];
        if ((c->type != SALTO_CON_POSE && c->type != SALTO_CON_VELOCITY) || root_slots(c, slot) == 0) continue;
        double qp[3], qdp[3], v[3] = {0, 0, 0};
        int given[3];
        path(ctx, c->time, qp, qdp);
        for (int a = 0; a < 3; a++) given[a] = slot[a] >= 0, v[a] = given[a] ? c->value[slot[a]] : 0.0;
        double* out = tq + 3 * i;
        if (c->type == SALTO_CON_POSE) {
            // the orientation the given angles and the path's others make, in the turned chart
            double phi[3];
            character_angles(o, B, qp, given, v, phi);
            salto_euler_rechart(o, NULL, B, phi, NULL, NULL, qp, out, NULL, NULL);
        } else {
            // the character's angles at this time: its pose's where the file gives them all, the
            // path's otherwise; the rates the given ones and the path's others
            double phi[3], phid[3], e[3], ed[3];
            const salto_constraint_desc* pose = full_pose_at(p, c->time);
            if (pose) {
                int ps[3];
                root_slots(pose, ps);
                for (int a = 0; a < 3; a++) phi[a] = pose->value[ps[a]];
            } else {
                const int none[3] = {0, 0, 0};
                const double none_v[3] = {0, 0, 0};
                character_angles(o, B, qp, none, none_v, phi);
            }
            // the path's rates in the character's chart at phi's orientation
            double qpn[3];
            salto_euler_rechart(o, NULL, B, phi, NULL, NULL, qp, qpn, NULL, NULL);
            salto_euler_rechart(o, B, NULL, qp, qdp, NULL, phi, e, ed, NULL);
            for (int a = 0; a < 3; a++) phid[a] = given[a] ? v[a] : ed[a];
            double qn[3];
            salto_euler_rechart(o, NULL, B, phi, phid, NULL, qpn, qn, out, NULL);
        }
    }
    // every list of the root's angles made whole (or none), then the values written
    if (widen_root_angles(p, p) != 0) {
        salto_free(tq);
        return SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
    }
    for (int i = 0; i < nc; i++) {
        salto_constraint_desc* c = p->cons + i;
        int slot[3];
        if ((c->type != SALTO_CON_POSE && c->type != SALTO_CON_VELOCITY) || root_slots(c, slot) == 0) continue;
        for (int a = 0; a < 3; a++) c->value[slot[a]] = tq[3 * i + a];
    }
    salto_free(tq);
    salto_model_set_root_reference(p->model, B);
    p->root_turned = 1;
    memcpy(p->root_ref, B, sizeof p->root_ref);
    memcpy(p->root_anchor, anchor, sizeof p->root_anchor);
    return SALTO_OK;
}


int salto_problem_inherit_turn(salto_problem_desc* q, const salto_problem_desc* p) {
    if (!p->root_turned || q->ncon != p->ncon) return 0;
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc *a = p->cons + i, *b = q->cons + i;
        if (a->type != b->type) return 0;
    }
    if (widen_root_angles(q, p) != 0) return -1; // q stays in the character's chart, whole
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc* a = p->cons + i;
        salto_constraint_desc* b = q->cons + i;
        if (a->type != SALTO_CON_POSE && a->type != SALTO_CON_VELOCITY) continue;
        int slot[3];
        if (root_slots(a, slot) == 0) continue;
        int bs[3];
        root_slots(b, bs);
        for (int k = 0; k < 3; k++) b->value[bs[k]] = a->value[slot[k]];
    }
    salto_model_set_root_reference(q->model, p->root_ref);
    q->root_turned = 1;
    memcpy(q->root_ref, p->root_ref, sizeof q->root_ref);
    memcpy(q->root_anchor, p->root_anchor, sizeof q->root_anchor);
    return 0;
}
