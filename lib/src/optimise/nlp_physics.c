// nlp_physics.c: the physics blocks: the contact's rows on the aggregate force at a slice
// (Fang & Pollard 2003, section 4), a flight's momentum rows (solver.flight_rows: momentum),
// and the impact at a phase's start
#include "nlp_priv.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/aggregate.h"
#include "salto/bspline.h"
#include "salto/data.h"
#include "salto/dynamics.h"
#include "salto/kinematics.h"
#include "salto/spatial.h"


// ---- physics on the aggregate force (Fang & Pollard 2003, section 4) ----
//
// At a slice, f0 = [n; f] (about the world origin) and its Jacobian in (q, qd, qdd) come from
// the linear-time method. Each row is a function g(f0, c) of the aggregate force and, on the
// ground, of the support centre c(q) (the centroid of the contact sites); its derivatives are
//   dg/dq_j = dg/df0 . df0/dq_j + dg/dc . dc/dq_j,  dg/dqd_j = dg/df0 . df0/dqd_j,  likewise qdd.
// Rows (bounds in salto_nlp_build):
//   flight: f0 = 0 (planar: n_y, f_x, f_z);
//   bar:    s . n_c in [-tau_max, tau_max], n_c = n - p x f about the bar point p;
//   ground: fN = N . f in [0, K]; the friction cone squared, ((mu^2 + 1) fN^2 - |f|^2) / W >= 0
//           (W the weight; with fN >= 0 this is the cone |f_t| <= mu fN, and smooth where the
//           square root of |f_t| is not at zero force);
//           the centre of pressure, d_y fN -+ T_x . n_c >= 0 and d_x fN -+ T_y . n_c >= 0 (planar:
//           the second pair only); the twist, k fN -+ N . n_c >= 0 (3-D only).



// the moment of f0 = [n; f] about the point c along a unit axis a, a . (n - c x f), as a row:
// d/dn = a, d/df = -(a x c), d/dc = -(f x a)
static frow moment_row(const double* a, const double* c, const double* n, const double* f) {
    frow m;
    double ac[3], fa[3];
    salto_v3_cross(ac, a, c);
    salto_v3_cross(fa, f, a);
    m.v = salto_v3_dot(a, n) - salto_v3_dot(ac, f);
    for (int k = 0; k < 3; k++) m.df0[k] = a[k], m.df0[3 + k] = -ac[k], m.dc[k] = -fa[k];
    return m;
}


void nlp_physics_rows(const salto_nlp* nlp, const block* b, const double* f0,
                         const double* c, frow* rows) {
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    const int planar = nlp->planar;
    memset(rows, 0, (size_t)b->nrows * sizeof(frow));
    const double* n = f0;
    const double* f = f0 + 3;
    if (nlp->bal[b->phase] >= 0) {
        // a ballistic flight: the torque about the centre of mass c along the world axes
        // (planar: y)
        for (int r = 0; r < b->nrows; r++) {
            double a[3] = {0, 0, 0};
            a[planar ? 1 : r] = 1.0;
            rows[r] = moment_row(a, c, n, f);
        }
        return;
    }
    if (ct->type == SALTO_CONTACT_NONE) {
        static const int planar_rows[3] = {1, 3, 5};
        for (int r = 0; r < b->nrows; r++) {
            const int k = planar ? planar_rows[r] : r;
            rows[r].v = f0[k];
            rows[r].df0[k] = 1.0;
        }
        return;
    }
    if (ct->type == SALTO_CONTACT_BAR) {
        // s . (n - p x f) = s . n - (s x p) . f
        double sp[3];
        salto_v3_cross(sp, ct->bar_axis, ct->bar_point);
        rows[0].v = salto_v3_dot(ct->bar_axis, n) - salto_v3_dot(sp, f);
        for (int k = 0; k < 3; k++) rows[0].df0[k] = ct->bar_axis[k], rows[0].df0[3 + k] = -sp[k];
        return;
    }

    // ground: the contact frame N, T_x (world x made normal to N, or y), T_y = N x T_x
    const double* N = ct->normal;
    double Tx[3], Ty[3];
    salto_contact_frame(N, planar, Tx, Ty);
    const double fN = salto_v3_dot(N, f);
    const double mu2 = ct->friction * ct->friction;

    // r0: fN
    rows[0].v = fN;
    for (int k = 0; k < 3; k++) rows[0].df0[3 + k] = N[k];
    // r1: ((mu^2 + 1) fN^2 - |f|^2) / W, with W the character's weight: in newtons, like the
    // other rows, so that neither the solver nor its tolerances see a row in N^2
    const double W = salto_model_weight(nlp->m);
    rows[1].v = ((mu2 + 1.0) * fN * fN - salto_v3_dot(f, f)) / W;
    for (int k = 0; k < 3; k++) rows[1].df0[3 + k] = (2.0 * (mu2 + 1.0) * fN * N[k] - 2.0 * f[k]) / W;

    // moments about c along the axes, within their bounds times fN
    const double* axes[3] = {Tx, Ty, N};
    const double bound[3] = {ct->support_half[1], ct->support_half[0], ct->twist_max};
    const int first_axis = planar ? 1 : 0, last_axis = planar ? 1 : 2;
    int r = 2;
    for (int ai = first_axis; ai <= last_axis; ai++) {
        const frow m = moment_row(axes[ai], c, n, f);
        for (int sgn = -1; sgn <= 1; sgn += 2, r++) {
            // bound fN - sgn m >= 0
            rows[r].v = bound[ai] * fN - sgn * m.v;
            for (int k = 0; k < 3; k++) {
                rows[r].df0[k] = -sgn * m.df0[k];
                rows[r].df0[3 + k] = bound[ai] * N[k] - sgn * m.df0[3 + k];
                rows[r].dc[k] = -sgn * m.dc[k];
            }
        }
    }
}


// moment_row's curvature: d2/df_k dc_i of a . (n - c x f) = -(a x e_i)_k, weighted by w
static void moment_curv(const double* a, double w, double Pfc[6][3]) {
    for (int i = 0; i < 3; i++) {
        double e[3] = {0, 0, 0}, ae[3];
        e[i] = 1.0;
        salto_v3_cross(ae, a, e);
        for (int k = 0; k < 3; k++) Pfc[3 + k][i] -= w * ae[k];
    }
}


void nlp_physics_curvature(const salto_nlp* nlp, const block* b, const double* lam,
                           double Pff[6][6], double Pfc[6][3]) {
    memset(Pff, 0, 36 * sizeof(double));
    memset(Pfc, 0, 18 * sizeof(double));
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    const int planar = nlp->planar;
    if (nlp->bal[b->phase] >= 0) {
        for (int r = 0; r < b->nrows; r++) {
            double a[3] = {0, 0, 0};
            a[planar ? 1 : r] = 1.0;
            moment_curv(a, lam[r], Pfc);
        }
        return;
    }
    if (ct->type != SALTO_CONTACT_GROUND) return; // f0 = 0 and the bar's rows are linear
    const double* N = ct->normal;
    double Tx[3], Ty[3];
    salto_contact_frame(N, planar, Tx, Ty);
    const double mu2 = ct->friction * ct->friction;
    const double W = salto_model_weight(nlp->m);
    for (int k = 0; k < 3; k++) {
        for (int l = 0; l < 3; l++) {
            Pff[3 + k][3 + l] = lam[1] * (2.0 * (mu2 + 1.0) * N[k] * N[l] - (k == l ? 2.0 : 0.0)) / W;
        }
    }
    const double* axes[3] = {Tx, Ty, N};
    const int first_axis = planar ? 1 : 0, last_axis = planar ? 1 : 2;
    int r = 2;
    for (int ai = first_axis; ai <= last_axis; ai++) {
        for (int sgn = -1; sgn <= 1; sgn += 2, r++) moment_curv(axes[ai], -sgn * lam[r], Pfc);
    }
}


// ---- a flight's momentum rows (solver.flight_rows: momentum) ----
//
// With h = sum_i I_i V_i the spatial momentum about the world origin ([angular; linear], world
// frame), I^C_j and h_j the composite inertia and momentum of link j's subtree, S_j its joint's
// axis and V_p the velocity of its parent:
//   dh/dqd_j = I^C_j S_j,   dh/dq_j = S_j x* h_j - I^C_j (S_j x V_p)
// (a change of q_j moves the subtree rigidly by S_j: each inertia changes by S_j x* I - I S_j x,
// each velocity in it by S_j x (V_i - V_p)). The rows are the angular momentum about the centre
// of mass, L = h_a - c x P with P = h_l, against the phase's constant L0, and the linear
// momentum against gravity's line, P - P0 - M g tau (not in a ballistic flight, whose centre of
// mass is on its parabola by construction), each divided by the phase's duration T so that the
// rows are in newton-metres and newtons: a row's value is the mean force that would make its
// momentum's difference over the phase. f0 = dh/dt (gravity's part aside), so the rows hold
// the momentum's integral of f0 = 0 between any two slices, not only f0 at them.

// the momentum rows' components: planar L_y (, P_x, P_z); else L (, P)
int nlp_momentum_comp(const salto_nlp* nlp, int r) {
    static const int planar[3] = {1, 3, 5};
    return nlp->planar ? planar[r] : r;
}


// component k of the centroidal momentum (L, then P less gravity's impulse over tau) from p0
// = [h_a; P] about the origin and the centre of mass c
double nlp_momentum_part(const salto_model* m, const double* p0, const double* c, int k,
                            double tau) {
    if (k >= 3) return p0[k] - m->mass * m->gravity[k - 3] * tau;
    double cp[3];
    salto_v3_cross(cp, c, p0 + 3);
    return p0[k] - cp[k];
}


// The rows are w h_k - x[aux_k], w = 1/T: the place variables hold the constants divided by T
// (a row's place variable enters with -1, as a hold's place does)
void nlp_eval_momentum(salto_nlp* nlp, const double* x, const block* b, double* g,
                          int want_jac) {
    const salto_model* m = nlp->m;
    const salto_phase_desc* ph = &nlp->p->phases[b->phase];
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv;
    double* Jp = nlp->ev.Jf; // 6 x 2nv: p0's Jacobian (the aggregate force's is not used here)
    nlp_block_state(nlp, x, b, 0);
    salto_p0_jac(m, d, want_jac ? Jp : NULL);
    nlp->ev.have_state = 0;
    double c[3];
    salto_com(m, d, c, NULL);
    const double* P = d->p0 + 3;
    const double w = 1.0 / ph->duration, tau = b->t - ph->start;
    for (int r = 0; r < b->nrows; r++) {
        g[r] = w * nlp_momentum_part(m, d->p0, c, nlp_momentum_comp(nlp, r), tau) - x[b->aux[r]];
    }
    if (!want_jac) return;
    memset(nlp->ev.dqdd, 0, (size_t)b->nrows * nv * sizeof(double));
    for (int j = 0; j < nv; j++) {
        double dhq[6], dhd[6];
        for (int k = 0; k < 6; k++) dhq[k] = Jp[k * 2 * nv + j], dhd[k] = Jp[k * 2 * nv + nv + j];
        // L = h_a - c x P: dc/dq_j = (dP/dqd_j) / M, c does not depend on qd
        double dc[3], e1[3], e2[3], e3[3];
        for (int k = 0; k < 3; k++) dc[k] = dhd[3 + k] / m->mass;
        salto_v3_cross(e1, dc, P);
        salto_v3_cross(e2, c, dhq + 3);
        salto_v3_cross(e3, c, dhd + 3);
        for (int k = 0; k < 3; k++) dhq[k] -= e1[k] + e2[k], dhd[k] -= e3[k];
        for (int r = 0; r < b->nrows; r++) {
            const int k = nlp_momentum_comp(nlp, r);
            nlp->ev.dq[r * nv + j] = w * dhq[k];
            nlp->ev.dqd[r * nv + j] = w * dhd[k];
        }
    }
}


void nlp_rows_weights(const frow* rows, int n, const double* lam, double mu[6], double nu[3]) {
    for (int k = 0; k < 6; k++) mu[k] = 0.0;
    if (nu) nu[0] = nu[1] = nu[2] = 0.0;
    for (int r = 0; r < n; r++) {
        for (int k = 0; k < 6; k++) mu[k] += lam[r] * rows[r].df0[k];
        if (nu) for (int k = 0; k < 3; k++) nu[k] += lam[r] * rows[r].dc[k];
    }
}


void nlp_support_centre(salto_nlp* nlp, const salto_contact_desc* ct, double c[3], double* J3) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv;
    double* Js = nlp->ev.sums; // 7 nv >= 3 nv scratch
    c[0] = c[1] = c[2] = 0.0;
    if (J3) memset(J3, 0, 3 * (size_t)nv * sizeof(double));
    for (int s = 0; s < ct->nsite; s++) {
        double xs[3];
        salto_site_pos(m, d, ct->site[s], xs);
        for (int k = 0; k < 3; k++) c[k] += xs[k] / ct->nsite;
        if (!J3) continue;
        salto_site_jac(m, d, ct->site[s], Js);
        for (int i = 0; i < 3 * nv; i++) J3[i] += Js[i] / ct->nsite;
    }
}


// the physics block's values and derivatives: f0 and its Jacobian at the slice
void nlp_eval_physics(salto_nlp* nlp, const double* x, const block* b, double* g,
                         int want_jac) {
    if (nlp->mom[b->phase] >= 0 && !b->force) {
        nlp_eval_momentum(nlp, x, b, g, want_jac);
        return;
    }
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv;
    nlp_block_state(nlp, x, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, x, b->er, SALTO_FK_ACC, want_jac);
    double f0[6];
    if (want_jac) {
        const salto_jac_method how =
            nlp->hess.linear ? SALTO_JAC_LINEAR : (salto_jac_method)nlp->p->solver.derivatives;
        salto_f0_jac(m, d, how, f0, nlp->ev.Jf, NULL);
    } else {
        salto_f0_rnea(m, d, f0); // values only: inverse dynamics, a fraction of the cost
    }
    nlp->ev.have_state = 0; // the kinematics in d are now this slice's, with accelerations

    // support centre: the contact sites' centroid, and its Jacobian (3 x nv in J3); in a
    // ballistic flight the centre of mass
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    double c[3] = {0, 0, 0};
    if (nlp->bal[b->phase] >= 0) {
        nlp_com_sums(nlp);
        nlp_com_from_sums(nlp, c, NULL);
        if (want_jac) nlp_com_jac(nlp, nlp->ev.J3);
    } else if (ct->type == SALTO_CONTACT_GROUND) {
        nlp_support_centre(nlp, ct, c, want_jac ? nlp->ev.J3 : NULL);
    }
    frow rows[8];
    nlp_physics_rows(nlp, b, f0, c, rows);
    for (int r = 0; r < b->nrows; r++) g[r] = rows[r].v;
    if (!want_jac) return;
    const int ncol = 3 * nv;
    // through the effective root: f0's and the support centre's derivatives to the splines' state
    // and the places
    double dfP[6][3], dcP[3][3];
    memset(dfP, 0, sizeof dfP);
    memset(dcP, 0, sizeof dcP);
    if (b->er >= 0) {
        for (int k = 0; k < 6; k++) {
            double* row = nlp->ev.Jf + k * ncol;
            nlp_er_chain(nlp, b->er, row, row + nv, row + 2 * nv, dfP[k]);
        }
        if (ct->type == SALTO_CONTACT_GROUND) {
            double* zero = nlp->ev.fq; // the centre does not depend on qd
            for (int k = 0; k < 3; k++) {
                memset(zero, 0, (size_t)nv * sizeof(double));
                nlp_er_chain(nlp, b->er, nlp->ev.J3 + k * nv, zero, NULL, dcP[k]);
            }
        }
        for (int r = 0; r < b->nrows; r++) {
            for (int a = 0; a < b->nxaux; a++) {
                double v = 0.0;
                for (int k = 0; k < 6; k++) v += rows[r].df0[k] * dfP[k][a];
                for (int k = 0; k < 3; k++) v += rows[r].dc[k] * dcP[k][a];
                nlp->ev.daux[NXAUX * r + a] = v;
            }
        }
    }
    const int has_c = ct->type == SALTO_CONTACT_GROUND || nlp->bal[b->phase] >= 0;
    for (int r = 0; r < b->nrows; r++) {
        for (int j = 0; j < nv; j++) {
            double a = 0.0, ad = 0.0, add = 0.0;
            for (int k = 0; k < 6; k++) {
                const double w = rows[r].df0[k];
                if (w == 0.0) continue;
                a += w * nlp->ev.Jf[k * ncol + j];
                ad += w * nlp->ev.Jf[k * ncol + nv + j];
                add += w * nlp->ev.Jf[k * ncol + 2 * nv + j];
            }
            if (has_c) {
                for (int k = 0; k < 3; k++) a += rows[r].dc[k] * nlp->ev.J3[k * nv + j];
            }
            nlp->ev.dq[r * nv + j] = a;
            nlp->ev.dqd[r * nv + j] = ad;
            nlp->ev.dqdd[r * nv + j] = add;
        }
    }
}


// ---- the impact at a phase's start ----
//
// The spline is C0 there (a triple knot): q passes through one control point P_j, the velocity
// from the left depends on P_{j-1} and P_j, from the right on P_j and P_{j+1}. The block's four
// columns are P_{j-1} .. P_{j+2}: N picks q, ddN gives the jump u = qd+ - qd-.
void nlp_impact_basis(const salto_nlp* nlp, block* b) {
    double NL[4], dNL[4], ddNL[4], NR[4], dNR[4], ddNR[4];
    const int fl = salto_bspline_basis_side(&nlp->spline, b->t, -1, NL, dNL, ddNL);
    const int fr = salto_bspline_basis_side(&nlp->spline, b->t, 1, NR, dNR, ddNR);
    SALTO_ASSERT(fr == fl + 3 && fr >= 1); // a triple knot: the segments share P_j only
    (void)fl;
    b->first = fr - 1;
    memset(b->N, 0, sizeof b->N);
    b->N[1] = 1.0;
    memset(b->dN, 0, sizeof b->dN);
    // the jump: right minus left, the left's entries for P_{j-1}, P_j its last two
    b->ddN[0] = -dNL[2];
    b->ddN[1] = dNR[0] - dNL[3];
    b->ddN[2] = dNR[1];
    b->ddN[3] = dNR[2];
    // the two sides apart, for free durations (nlp_time.c scales each by its phase's)
    b->jL[0] = dNL[2], b->jL[1] = dNL[3], b->jL[2] = b->jL[3] = 0.0;
    b->jR[0] = 0.0, b->jR[1] = dNR[0], b->jR[2] = dNR[1], b->jR[3] = dNR[2];
}


int nlp_impact_links(const salto_nlp* nlp, int ph, int* link) {
    return salto_contact_links(nlp->m, &nlp->p->phases[ph].contact, link, NULL);
}


int nlp_impulse_width(const salto_nlp* nlp) { return nlp->planar ? 3 : 6; }


// The impact's rows at q (in nlp->ev.d->q) for the jump u, into g: first the joints' impulses
// that the contact impulse does not explain (an impulse on a contact link travels through the
// joints from it to the root, salto_impulse_shared; any other is an impulsive joint torque,
// which no actuator gives), then the contact rows (nlp_physics_rows) of the aggregate impulse
// iota, the world's impulse on the character. On several links xi holds the impulses of the
// second and later (nlp_impulse_width components each; NULL: zero), the first link the rest.
// The generalized impulse M(q) u is RNEA(q, 0, u) - RNEA(q, 0, 0): gravity cancels, the
// joint rows are linear in (u, xi), iota in u alone, and every contact row but the friction
// cone is linear in iota. iota and the contact rows' derivatives (rows) are returned when
// asked for.
void nlp_impact_rows(salto_nlp* nlp, const block* b, const double* u, const double* xi, double* g,
                        double iota_out[6], frow* rows_out) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, nj = nv - m->nroot;
    const salto_contact_desc* ct = &nlp->p->phases[b->phase].contact;
    int link[8];
    const int nl = nlp_impact_links(nlp, b->phase, link);
    // the shares as spatial impulses: a planar character's in-plane components n_y, f_x, f_z
    double shares[6 * 7] = {0};
    const int w = nlp_impulse_width(nlp);
    static const int planar_comp[3] = {1, 3, 5};
    for (int l = 1; xi && l < nl; l++) {
        for (int c = 0; c < w; c++) shares[6 * (l - 1) + (w == 3 ? planar_comp[c] : c)] = xi[w * (l - 1) + c];
    }
    double* res = nlp->ev.fq; // nv
    double iota[6];
    salto_impulse_shared(m, d, nl, link, shares, u, res, iota);
    for (int j = 0; j < nj; j++) g[j] = res[m->nroot + j];
    // the contact rows about the sites' centroid (the kinematics of q are in d)
    double c[3] = {0, 0, 0};
    for (int s = 0; s < ct->nsite; s++) {
        double xs[3];
        salto_site_pos(m, d, ct->site[s], xs);
        for (int k = 0; k < 3; k++) c[k] += xs[k] / ct->nsite;
    }
    frow rows[8];
    block pb = *b;
    pb.nrows = b->nrows - nj;
    nlp_physics_rows(nlp, &pb, iota, c, rows);
    for (int r = 0; r < pb.nrows; r++) g[nj + r] = rows[r].v;
    if (iota_out) memcpy(iota_out, iota, sizeof iota);
    if (rows_out) memcpy(rows_out, rows, (size_t)pb.nrows * sizeof(frow));
}


// The impact block's values and, with want_jac, its derivatives. By u exactly: the joint rows
// and iota are linear in u (each column is the rows at a unit jump), and the contact rows'
// derivatives in iota (nlp_physics_rows) chain them. By the shared impulses xi exactly too:
// the joint rows at a unit impulse and no jump (iota does not depend on them), into the
// place derivatives. By q in five-point central differences (steps 1e-3 of the variable's
// scale: fourth order, so truncation and rounding both stay near 1e-10 of the rows). The
// state is q and u, not the splines' (q, qd, qdd): dq holds the derivatives by q, dqdd those
// by u (ddN maps u to the control points), dqd zeros.
void nlp_eval_impact(salto_nlp* nlp, const double* x, const block* b, double* g,
                        int want_jac) {
    const int nv = nlp->nv, nr = b->nrows, nj = nv - nlp->m->nroot;
    salto_data* d = nlp->ev.d;
    double* qb = nlp->ev.imp;
    double* u = nlp->ev.imp + nv;
    double* gk = nlp->ev.imp + 2 * nv; // nv + 8
    double* xi = nlp->ev.imp + 5 * nv + 16; // NXAUX
    for (int j = 0; j < nv; j++) {
        const double* cp = x + j * nlp->ncp + b->first;
        qb[j] = cp[1];
        u[j] = b->ddN[0] * cp[0] + b->ddN[1] * cp[1] + b->ddN[2] * cp[2] + b->ddN[3] * cp[3];
    }
    for (int a = 0; a < b->nxaux; a++) xi[a] = x[b->xaux[a]];
    memcpy(d->q, qb, (size_t)nv * sizeof(double));
    frow rows[8];
    nlp_impact_rows(nlp, b, u, xi, g, NULL, rows);
    nlp->ev.have_state = 0;
    if (!want_jac) return;
    // by u_k: the rows at the unit jump e_k
    double* e = nlp->ev.imp + 3 * nv + 8; // nv
    for (int k = 0; k < nv; k++) {
        memset(e, 0, (size_t)nv * sizeof(double));
        e[k] = 1.0;
        double iota_k[6];
        nlp_impact_rows(nlp, b, e, NULL, gk, iota_k, NULL);
        for (int r = 0; r < nr; r++) {
            double v = 0.0;
            if (r < nj) {
                v = gk[r];
            } else {
                for (int c = 0; c < 6; c++) v += rows[r - nj].df0[c] * iota_k[c];
            }
            nlp->ev.dqdd[r * nv + k] = v;
            nlp->ev.dqd[r * nv + k] = 0.0;
        }
    }
    // by xi_a: the joint rows at the unit impulse and no jump
    if (b->nxaux > 0) {
        double* ea = nlp->ev.imp + 5 * nv + 16 + NXAUX; // NXAUX
        memset(e, 0, (size_t)nv * sizeof(double));
        for (int a = 0; a < b->nxaux; a++) {
            memset(ea, 0, NXAUX * sizeof(double));
            ea[a] = 1.0;
            nlp_impact_rows(nlp, b, e, ea, gk, NULL, NULL);
            for (int r = 0; r < nj; r++) nlp->ev.daux[NXAUX * r + a] = gk[r];
        }
    }
    // by q_k: five points
    for (int k = 0; k < nv; k++) {
        const double h = 1e-3 * fmax(1.0, fabs(qb[k]));
        static const double wt[4] = {1.0, -8.0, 8.0, -1.0}, off[4] = {-2.0, -1.0, 1.0, 2.0};
        for (int r = 0; r < nr; r++) nlp->ev.dq[r * nv + k] = 0.0;
        for (int p = 0; p < 4; p++) {
            d->q[k] = qb[k] + off[p] * h;
            nlp_impact_rows(nlp, b, u, xi, gk, NULL, NULL);
            for (int r = 0; r < nr; r++) nlp->ev.dq[r * nv + k] += wt[p] * gk[r] / (12.0 * h);
        }
        d->q[k] = qb[k];
    }
    nlp->ev.have_state = 0;
}


// ---- a contact_force objective's rows (Fang & Pollard eq. 22) ----

// the force components the rows are: x, y, z (planar: x, z)
static int force_comp(const salto_nlp* nlp, int r) { return nlp->planar ? (r == 0 ? 0 : 2) : r; }


// the rows, f0's force at b's state (through the effective root where the phase has one), and
// their derivatives as a physics block's
void nlp_eval_force_rows(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, ncol = 3 * nv;
    nlp_block_state(nlp, x, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, x, b->er, SALTO_FK_ACC, want_jac);
    double f0[6];
    if (want_jac) {
        salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, nlp->ev.Jf, NULL);
    } else {
        salto_f0_rnea(m, d, f0);
    }
    nlp->ev.have_state = 0;
    for (int r = 0; r < b->nrows; r++) g[r] = f0[3 + force_comp(nlp, r)];
    if (!want_jac) return;
    for (int r = 0; r < b->nrows; r++) {
        double* row = nlp->ev.Jf + (size_t)(3 + force_comp(nlp, r)) * ncol;
        if (b->er >= 0) nlp_er_chain(nlp, b->er, row, row + nv, row + 2 * nv, nlp->ev.daux + NXAUX * r);
        memcpy(nlp->ev.dq + (size_t)r * nv, row, (size_t)nv * sizeof(double));
        memcpy(nlp->ev.dqd + (size_t)r * nv, row + nv, (size_t)nv * sizeof(double));
        memcpy(nlp->ev.dqdd + (size_t)r * nv, row + 2 * nv, (size_t)nv * sizeof(double));
    }
}


// Phi = obj_factor ow |f|^2: in the full state, 2 obj_factor ow (J_f' J_f + f . d2 f), the second
// the aggregate force's Hessian at mu = [0; f] (salto_f0_hess), and the translation weights of
// its gradient for an effective root
void nlp_force_obj_hess(salto_nlp* nlp, const block* b, double obj_factor, double* H, double wq[3],
                        double wv[3], double wa[3]) {
    nlp_force_rows_hess(nlp, b, NULL, 2.0 * obj_factor * b->ow, H, wq, wv, wa);
}


void nlp_force_rows_hess(salto_nlp* nlp, const block* b, const double* mu_r, double gn, double* H,
                         double wq[3], double wv[3], double wa[3]) {
    const salto_model* m = nlp->m;
    salto_data* d = nlp->ev.d;
    const int nv = nlp->nv, n3 = 3 * nv;
    double* Jf = nlp->hess.Jb;
    nlp_block_state(nlp, nlp->hess.xs, b, 1);
    if (b->er >= 0) nlp_er_state(nlp, nlp->hess.xs, b->er, SALTO_FK_ACC, 1);
    double f0[6];
    salto_f0_jac(m, d, SALTO_JAC_LINEAR, f0, Jf, NULL);
    const double c = gn;
    double mu[6] = {0, 0, 0, 0, 0, 0};
    for (int r = 0; r < b->nrows; r++) {
        mu[3 + force_comp(nlp, r)] = mu_r ? mu_r[r] : c * f0[3 + force_comp(nlp, r)];
    }
    salto_f0_hess(m, d, mu, H, nlp->hess.fw);
    for (int r = 0; r < b->nrows; r++) {
        const double* Jr = Jf + (size_t)(3 + force_comp(nlp, r)) * n3;
        for (int a = 0; a < n3; a++) {
            const double ca = c * Jr[a];
            if (ca == 0.0) continue;
            double* Ha = H + (size_t)a * n3;
            for (int e = 0; e < n3; e++) Ha[e] += ca * Jr[e];
        }
    }
    if (b->er >= 0) {
        const eroot* e = &nlp->root.er[b->er];
        for (int t = 0; t < e->nt; t++) {
            const int T = e->tdof[t];
            wq[t] = wv[t] = wa[t] = 0.0;
            for (int k = 0; k < 6; k++) {
                wq[t] += mu[k] * Jf[(size_t)k * n3 + T];
                wv[t] += mu[k] * Jf[(size_t)k * n3 + nv + T];
                wa[t] += mu[k] * Jf[(size_t)k * n3 + 2 * nv + T];
            }
        }
    }
    nlp->ev.have_state = 0;
}
