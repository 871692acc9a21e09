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


salto_status salto_problem_turn_root(salto_problem_desc* p, const double B[9], const double anchor[3],
                                     void (*path)(void* ctx, double t, double q[3]), void* ctx,
                                     salto_error* err) {
    int o[3];
    if (p->root_turned || !salto_root_order(p->model, o)) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "the root has no chart to turn");
    }
    // first everything checked, then converted
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc* c = p->cons + i;
        int slot[3];
        const int n = (c->type == SALTO_CON_POSE || c->type == SALTO_CON_VELOCITY ||
                       c->type == SALTO_CON_JOINT_RANGE) ? root_slots(c, slot) : 0;
        if (n == 0) continue;
        if (c->type == SALTO_CON_JOINT_RANGE) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, c->loc, "a joint range on the root's angles");
        }
        if (n < 3 || !c->has_time) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, c->loc, "a %s giving %d of the root's three angles",
                              salto_constraint_name(c->type), n);
        }
        if (c->type == SALTO_CON_VELOCITY) {
            const int moving = c->value[slot[0]] != 0.0 || c->value[slot[1]] != 0.0 || c->value[slot[2]] != 0.0;
            if (moving && !full_pose_at(p, c->time)) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, c->loc, "root rates without the root's pose at their time");
            }
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
    // velocities first (they read their time's pose in the character's chart)
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < p->ncon; i++) {
            salto_constraint_desc* c = p->cons + i;
            int slot[3];
            if (c->type != (pass ? SALTO_CON_POSE : SALTO_CON_VELOCITY) || root_slots(c, slot) != 3) continue;
            double v[3], prev[3], q[3];
            for (int a = 0; a < 3; a++) v[a] = c->value[slot[a]];
            path(ctx, c->time, prev);
            if (pass) {
                salto_euler_rechart(o, NULL, B, v, NULL, NULL, prev, q, NULL, NULL);
            } else {
                if (v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0) continue; // at rest in every chart
                const salto_constraint_desc* pose = full_pose_at(p, c->time);
                int ps[3];
                root_slots(pose, ps);
                double qc[3], qr[3], zero[3] = {0, 0, 0};
                for (int a = 0; a < 3; a++) qc[a] = pose->value[ps[a]];
                salto_euler_rechart(o, NULL, B, qc, v, zero, prev, qr, q, NULL);
            }
            for (int a = 0; a < 3; a++) c->value[slot[a]] = q[a];
        }
    }
    salto_model_set_root_reference(p->model, B);
    p->root_turned = 1;
    memcpy(p->root_ref, B, sizeof p->root_ref);
    memcpy(p->root_anchor, anchor, sizeof p->root_anchor);
    return SALTO_OK;
}


void salto_problem_inherit_turn(salto_problem_desc* q, const salto_problem_desc* p) {
    if (!p->root_turned || q->ncon != p->ncon) return;
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc *a = p->cons + i, *b = q->cons + i;
        if (a->type != b->type || a->ndof != b->ndof) return;
    }
    for (int i = 0; i < p->ncon; i++) {
        const salto_constraint_desc* a = p->cons + i;
        salto_constraint_desc* b = q->cons + i;
        if (a->type != SALTO_CON_POSE && a->type != SALTO_CON_VELOCITY) continue;
        for (int k = 0; k < a->ndof; k++) {
            if (a->dof[k] >= 3 && a->dof[k] < 6) b->value[k] = a->value[k];
        }
    }
    salto_model_set_root_reference(q->model, p->root_ref);
    q->root_turned = 1;
    memcpy(q->root_ref, p->root_ref, sizeof q->root_ref);
    memcpy(q->root_anchor, p->root_anchor, sizeof q->root_anchor);
}
