// test_ragdoll.c: the particle ragdoll (salto/ragdoll.h)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/kinematics.h"
#include "salto/model.h"
#include "salto/ragdoll.h"
#include "salto/spatial.h"
#include "ragdoll_priv.h"
#include "test_suites.h"
#include "test_util.h"

static const char* const CHARACTERS[] = {"data/characters/humanoid22.yaml",
                                         "data/characters/humanoid22_limited.yaml"};

// a pose within the joints' limits (0.4 rad about zero where a joint has none), velocities in
// [-v, v]; a floating root at height z
static void random_pose(const salto_model* m, salto_data* d, unsigned seed, double v, double z) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, seed);
    for (int j = 0; j < m->nv; j++) {
        double lo = -0.4, hi = 0.4;
        if (m->link_has_limits[j]) lo = m->link_limits[2 * j], hi = m->link_limits[2 * j + 1];
        d->q[j] = salto_test_uniform(&rng, lo, hi);
        d->qd[j] = salto_test_uniform(&rng, -v, v);
    }
    if (m->root_type == SALTO_ROOT_FREE) {
        int tdof[3];
        double axes[3][3];
        const int nt = salto_model_root_translation(m, tdof, axes);
        for (int k = 0; k < nt; k++) d->q[tdof[k]] = axes[k][2] != 0.0 ? z : 0.0;
    }
}


// the points' mass, first moment and second moment about the origin equal the character's
// (its links' inertias summed) at a pose: each body's points carry its mass, centre of mass and
// inertia
START_TEST(ragdoll_points_carry_the_bodies) {
    salto_model* m = salto_test_model_file(CHARACTERS[_i]);
    salto_data* d = salto_data_create(m);
    salto_ragdoll* r = salto_ragdoll_create(m, NULL, NULL);
    ck_assert_ptr_nonnull(r);
    random_pose(m, d, 11u + (unsigned)_i, 1.0, 1.2);
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
    salto_link_inertias(m, d);
    // want: sum of the links' (m, h = m c, Ibar = the second moment about the origin)
    double want[10] = {0}, got[10] = {0};
    for (int l = 0; l < m->nv; l++) {
        if (!m->link_massive[l]) continue;
        for (int t = 0; t < 10; t++) want[t] += d->I[10 * l + t];
    }
    const double* x = salto_ragdoll_positions(r);
    const double* w = salto_ragdoll_masses(r);
    for (int i = 0; i < salto_ragdoll_npoints(r); i++) {
        const double* p = x + 3 * i;
        const double pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        got[0] += w[i];
        for (int a = 0; a < 3; a++) got[1 + a] += w[i] * p[a];
        // Ibar = sum m (|p|^2 1 - p p'): xx yy zz xy xz yz
        got[4] += w[i] * (pp - p[0] * p[0]), got[5] += w[i] * (pp - p[1] * p[1]);
        got[6] += w[i] * (pp - p[2] * p[2]), got[7] -= w[i] * p[0] * p[1];
        got[8] -= w[i] * p[0] * p[2], got[9] -= w[i] * p[1] * p[2];
    }
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s: (m, m c, second moment) of the points", CHARACTERS[_i]);
    ck_assert_vec_close(got, want, 10, 1e-9 * fmax(1.0, fabs(want[4])), 1e-9, ctx);
    ck_assert_double_eq_tol(got[0], m->mass, 1e-9 * m->mass);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// the joint chains' Jacobian (the read-back's Gauss-Newton) against central differences of the
// chains' frames: every body of both humanoids (the root's chain of slides and hinges among
// them), random coordinates and a random parent frame; h = 1e-6. (A revolute column's lever
// term u x (p - o) is zero on every chain the ragdoll takes, whose axes all pass through the
// frame's origin; the differences check it as zero: a wrong sign there would go unseen.)
START_TEST(ragdoll_chain_jacobian) {
    salto_model* m = salto_test_model_file(CHARACTERS[_i % 2]);
    salto_test_rng rng;
    const unsigned seed = 600u + (unsigned)_i;
    salto_test_rng_seed(&rng, seed);
    double q[128], Rp[9], pp[3], u[3];
    for (int j = 0; j < m->nv; j++) q[j] = salto_test_uniform(&rng, -1.5, 1.5);
    for (int a = 0; a < 3; a++) u[a] = salto_test_uniform(&rng, -1, 1), pp[a] = salto_test_uniform(&rng, -1, 1);
    const double nu = salto_v3_norm(u);
    for (int a = 0; a < 3; a++) u[a] /= nu;
    salto_m3_axis_angle(Rp, u, salto_test_uniform(&rng, -3, 3));
    const double h = 1e-6;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_link[b] < 0) continue;
        double R[9], p[3], J[36];
        const int n = salto_ragdoll_chain(m, b, Rp, pp, q, R, p, J);
        int l = m->body_link[b];
        for (int k = n - 1; k >= 0; k--, l = m->link_parent[l]) { // the chain's links, last first
            double Rq[2][9], pq[2][3], fd[6];
            const double q0 = q[l];
            for (int sgn = 0; sgn < 2; sgn++) {
                q[l] = q0 + (sgn ? -h : h);
                salto_ragdoll_chain(m, b, Rp, pp, q, Rq[sgn], pq[sgn], NULL);
            }
            q[l] = q0;
            double Rd[9], W[9]; // the angular velocity: vee((R+ - R-) / 2h R')
            for (int t = 0; t < 9; t++) Rd[t] = (Rq[0][t] - Rq[1][t]) / (2 * h);
            salto_m3_mul_t(W, Rd, R);
            fd[0] = 0.5 * (W[7] - W[5]), fd[1] = 0.5 * (W[2] - W[6]), fd[2] = 0.5 * (W[3] - W[1]);
            for (int a = 0; a < 3; a++) fd[3 + a] = (pq[0][a] - pq[1][a]) / (2 * h);
            char ctx[160];
            snprintf(ctx, sizeof ctx, "%s seed %u body %s link %s", CHARACTERS[_i % 2], seed,
                     m->body_name[b], m->link_name[l]);
            ck_assert_vec_close(J + 6 * k, fd, 6, 1e-7, 1e-7, ctx);
        }
    }
    salto_model_destroy(m);
}
END_TEST


// placed at a pose, the points give the pose back (every link's place, 1e-9 m; the search from
// the zero pose) and the velocities (qd from the step's difference)
START_TEST(ragdoll_reads_back_its_pose) {
    salto_model* m = salto_test_model_file(CHARACTERS[_i % 2]);
    salto_data* d = salto_data_create(m);
    salto_data* e = salto_data_create(m);
    salto_ragdoll* r = salto_ragdoll_create(m, NULL, NULL);
    ck_assert_ptr_nonnull(r);
    const unsigned seed = 40u + (unsigned)_i;
    random_pose(m, d, seed, 2.0, 1.0);
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
    double q[128] = {0}; // the search from the zero pose, every joint far from its answer
    const double res = salto_ragdoll_read(r, q);
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s seed %u", CHARACTERS[_i % 2], seed);
    ck_assert_msg(res < 1e-10, "%s: %g left", ctx, res);
    memcpy(e->q, q, sizeof(double) * (size_t)m->nv);
    salto_fk(m, d, SALTO_FK_POS);
    salto_fk(m, e, SALTO_FK_POS);
    ck_assert_vec_close(e->p, d->p, 3 * m->nv, 1e-9, 0.0, ctx);
    ck_assert_vec_close(e->R, d->R, 9 * m->nv, 1e-9, 0.0, ctx);
    salto_ragdoll_destroy(r);
    // the velocities: one short step in flight (no gravity, no ground) reads them back
    salto_ragdoll_opts o;
    salto_ragdoll_default_opts(&o);
    o.ground = 0, o.joint_friction = 0.0;
    const double g[3] = {m->gravity[0], m->gravity[1], m->gravity[2]};
    m->gravity[0] = m->gravity[1] = m->gravity[2] = 0.0;
    r = salto_ragdoll_create(m, &o, NULL);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-4), SALTO_OK);
    ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
    ck_assert_int_eq(salto_ragdoll_get_state(r, e), SALTO_OK);
    ck_assert_vec_close(e->qd, d->qd, m->nv, 1e-2, 1e-2, ctx);
    memcpy(m->gravity, g, sizeof g);
    salto_ragdoll_destroy(r);
    salto_data_destroy(e);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// the points' total momentum
static void momentum(const salto_ragdoll* r, const double* xold, double h, double p[3]) {
    const double* x = salto_ragdoll_positions(r);
    const double* w = salto_ragdoll_masses(r);
    p[0] = p[1] = p[2] = 0.0;
    for (int i = 0; i < salto_ragdoll_npoints(r); i++) {
        for (int a = 0; a < 3; a++) p[a] += w[i] * (x[3 * i + a] - xold[3 * i + a]) / h;
    }
}


// how far a body's points are from their rest distances at most, m
static double worst_distance(const salto_ragdoll* r) {
    const double* x = salto_ragdoll_positions(r);
    const int* lp = salto_ragdoll_link_points(r);
    const double* len = salto_ragdoll_link_lengths(r);
    double worst = 0.0;
    for (int k = 0; k < salto_ragdoll_nlinks(r); k++) {
        const double* a = x + 3 * lp[2 * k];
        const double* b = x + 3 * lp[2 * k + 1];
        const double dd[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        worst = fmax(worst, fabs(sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]) - len[k]));
    }
    return worst;
}


// how far a joint of q is past its limit at most, rad
static double worst_overrun(const salto_model* m, const double* q) {
    double worst = 0.0;
    for (int j = 0; j < m->nv; j++) {
        if (m->link_has_limits[j]) worst = fmax(worst, fmax(m->link_limits[2 * j] - q[j], q[j] - m->link_limits[2 * j + 1]));
    }
    return worst;
}


// in flight (no ground) every pass keeps the linear momentum: the centre of mass follows the
// parabola of its start to rounding, however the limbs tumble against their limits; the
// bodies stay rigid and the joints within their limits
START_TEST(ragdoll_momentum_in_flight) {
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    salto_data* d = salto_data_create(m);
    salto_ragdoll_opts o;
    salto_ragdoll_default_opts(&o);
    o.ground = 0;
    salto_ragdoll* r = salto_ragdoll_create(m, &o, NULL);
    ck_assert_ptr_nonnull(r);
    const double h = 1e-3;
    random_pose(m, d, 77u, 3.0, 0.0);
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, h), SALTO_OK);
    const int np = salto_ragdoll_npoints(r);
    double* xold = malloc(sizeof(double) * 3 * (size_t)np);
    ck_assert_ptr_nonnull(xold);
    const double* x = salto_ragdoll_positions(r);
    const double* w = salto_ragdoll_masses(r);
    double c0[3] = {0, 0, 0}, p0[3], M = 0.0;
    for (int i = 0; i < np; i++) {
        M += w[i];
        for (int a = 0; a < 3; a++) c0[a] += w[i] * x[3 * i + a];
    }
    for (int a = 0; a < 3; a++) c0[a] /= M;
    // the momentum the start's velocities give (the points' xold is x - h v)
    salto_fk(m, d, SALTO_FK_VEL);
    salto_link_inertias(m, d);
    double cv[3];
    salto_com(m, d, NULL, cv);
    for (int a = 0; a < 3; a++) p0[a] = M * cv[a];

    const int steps = 1000;
    double worst_len = 0.0, worst_lim = 0.0;
    for (int s = 1; s <= steps; s++) {
        memcpy(xold, x, sizeof(double) * 3 * (size_t)np);
        ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
        // the centre of mass: c0 + v0 t + g t^2 / 2 (Verlet is exact for it)
        double c[3] = {0, 0, 0}, want[3], p[3];
        for (int i = 0; i < np; i++) {
            for (int a = 0; a < 3; a++) c[a] += w[i] * x[3 * i + a] / M;
        }
        // Verlet from x_old = x - h v: c_s = c_0 + s h v + s (s + 1) / 2 g h^2
        const double t = s * h;
        for (int a = 0; a < 3; a++) want[a] = c0[a] + cv[a] * t + 0.5 * s * (s + 1) * m->gravity[a] * h * h;
        char ctx[96];
        snprintf(ctx, sizeof ctx, "step %d: the centre of mass", s);
        ck_assert_vec_close(c, want, 3, 1e-9, 0.0, ctx);
        if (s == steps) {
            momentum(r, xold, h, p);
            double pw[3];
            for (int a = 0; a < 3; a++) pw[a] = p0[a] + M * m->gravity[a] * t;
            ck_assert_vec_close(p, pw, 3, 1e-7 * M, 0.0, "the momentum at the end");
        }
        worst_len = fmax(worst_len, worst_distance(r));
        ck_assert_int_eq(salto_ragdoll_get_state(r, d), SALTO_OK);
        worst_lim = fmax(worst_lim, worst_overrun(m, d->q));
    }
    printf("ragdoll in flight: worst distance change %.3g m, worst limit overrun %.3g rad\n", worst_len, worst_lim);
    ck_assert_msg(worst_len < 1e-3, "a body's points moved %g m apart", worst_len);
    ck_assert_msg(worst_lim < 0.01, "a joint overran its limit by %g rad", worst_lim);
    free(xold);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// dropped from 1.3 m tumbling, the humanoid lands and comes to rest: its bodies stay rigid and
// joined (point distances within 1 cm), its joints within their limits (0.1 rad), its surface
// points at most 2.5 cm into the ground and the read-back pose's at most 5 cm (the bounds hold
// with some margin over 30 random falls of a scratch sweep, 2026-11-27: 7.1 mm, 0.064 rad, 1.6
// and 3.5 cm), and its motion dies down
START_TEST(ragdoll_falls_and_settles) {
    salto_model* m = salto_test_model_file(CHARACTERS[_i % 2]);
    salto_data* d = salto_data_create(m);
    salto_ragdoll* r = salto_ragdoll_create(m, NULL, NULL);
    ck_assert_ptr_nonnull(r);
    const unsigned seed = 100u + (unsigned)_i;
    random_pose(m, d, seed, 1.0, 1.3);
    const double h = 1e-3;
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, h), SALTO_OK);
    const int np = salto_ragdoll_npoints(r);
    double* xold = malloc(sizeof(double) * 3 * (size_t)np);
    ck_assert_ptr_nonnull(xold);
    const double* x = salto_ragdoll_positions(r);
    const double* w = salto_ragdoll_masses(r);
    const double* rad = salto_ragdoll_radii(r);
    double worst_len = 0.0, worst_lim = 0.0, low = 0.0, lowp = 0.0, peak = 0.0, ke = 0.0;
    for (int s = 1; s <= 3000; s++) {
        memcpy(xold, x, sizeof(double) * 3 * (size_t)np);
        ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
        worst_len = fmax(worst_len, worst_distance(r));
        ck_assert_int_eq(salto_ragdoll_get_state(r, d), SALTO_OK);
        worst_lim = fmax(worst_lim, worst_overrun(m, d->q));
        // the surface: the geometry's lowest points at the read-back pose
        salto_fk(m, d, SALTO_FK_POS);
        for (int g = 0; g < m->ngeom; g++) {
            double pts[8][3], gr;
            const int n = salto_geom_points(m, d, g, pts, &gr);
            for (int k = 0; k < n; k++) low = fmin(low, pts[k][2] - gr);
        }
        for (int i = 0; i < np; i++) {
            if (rad[i] >= 0.0) lowp = fmin(lowp, x[3 * i + 2] - rad[i]);
        }
        ke = 0.0;
        for (int i = 0; i < np; i++) {
            for (int a = 0; a < 3; a++) {
                const double v = (x[3 * i + a] - xold[3 * i + a]) / h;
                ke += 0.5 * w[i] * v * v;
            }
        }
        peak = fmax(peak, ke);
    }
    printf("ragdoll fall (%s, seed %u): worst distance change %.3g m, limit overrun %.3g rad, "
           "lowest surface point %.3g m (read back: %.3g), kinetic energy %.3g J of %.3g\n",
           CHARACTERS[_i % 2], seed, worst_len, worst_lim, lowp, low, ke, peak);
    ck_assert_msg(worst_len < 0.01, "seed %u: a body's points moved %g m apart", seed, worst_len);
    ck_assert_msg(worst_lim < 0.1, "seed %u: a joint overran its limit by %g rad", seed, worst_lim);
    ck_assert_msg(lowp > -0.025, "seed %u: the surface %g m below the ground", seed, lowp);
    ck_assert_msg(low > -0.05, "seed %u: the read-back pose's surface %g m below the ground", seed, low);
    ck_assert_msg(ke < 0.01 * peak, "seed %u: still %g J of %g after 3 s", seed, ke, peak);
    free(xold);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// a floor at 0.7 m: the ragdoll comes to rest on it, not on z = 0
START_TEST(ragdoll_floor_height) {
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    salto_data* d = salto_data_create(m);
    salto_ragdoll_opts o;
    salto_ragdoll_default_opts(&o);
    o.ground_height = 0.7;
    salto_ragdoll* r = salto_ragdoll_create(m, &o, NULL);
    ck_assert_ptr_nonnull(r);
    random_pose(m, d, 7u, 0.5, 2.0);
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
    for (int s = 0; s < 2500; s++) ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
    const double* x = salto_ragdoll_positions(r);
    const double* rad = salto_ragdoll_radii(r);
    double low = INFINITY;
    for (int i = 0; i < salto_ragdoll_npoints(r); i++) {
        if (rad[i] >= 0.0) low = fmin(low, x[3 * i + 2] - rad[i]);
    }
    ck_assert_msg(low > 0.7 - 0.01 && low < 0.7 + 0.01, "resting %g m from the floor at 0.7", low - 0.7);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// the distance from the line through p along unit u to segment a-b (sampled finely: an
// independent check of the ragdoll's closed form)
static double segment_line_distance(const double* a, const double* b, const double* p, const double* u) {
    double best = INFINITY;
    for (int k = 0; k <= 2000; k++) {
        const double s = k / 2000.0;
        double d[3];
        for (int t = 0; t < 3; t++) d[t] = a[t] + s * (b[t] - a[t]) - p[t];
        const double du = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
        double e2 = 0.0;
        for (int t = 0; t < 3; t++) e2 += (d[t] - du * u[t]) * (d[t] - du * u[t]);
        best = fmin(best, sqrt(e2));
    }
    return best;
}


// a bar: the humanoid dropped lying across a bar (its trunk over it) lands on it and does not
// pass through: the trunk's geometry (the root's: read back exactly from its fit) keeps out of
// the bar to 5 mm at every step and touches it; without the bar it falls through
START_TEST(ragdoll_meets_a_bar) {
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    salto_data* d = salto_data_create(m);
    salto_ragdoll_opts o;
    salto_ragdoll_default_opts(&o);
    o.nbar = _i == 0 ? 1 : 0;
    const double bp[3] = {0.0, 0.0, 1.0}, bu[3] = {0.0, 1.0, 0.0};
    memcpy(o.bar_point[0], bp, sizeof bp);
    const double ax[3] = {0.0, 3.0, 0.0}; // any length
    memcpy(o.bar_axis[0], ax, sizeof ax);
    salto_ragdoll* r = salto_ragdoll_create(m, &o, NULL);
    ck_assert_ptr_nonnull(r);
    memset(d->q, 0, sizeof(double) * (size_t)m->nv);
    memset(d->qd, 0, sizeof(double) * (size_t)m->nv);
    d->q[salto_model_dof(m, "root_ry")] = 1.5707963267948966; // lying: the trunk along +x
    d->q[salto_model_dof(m, "root_x")] = -0.3;
    d->q[salto_model_dof(m, "root_z")] = 0.4; // the pelvis 1.32 m up (0.9242 at q = 0)
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
    const int trunk = salto_model_body(m, "trunk");
    double worst = INFINITY; // the trunk's least clearance: distance - radius - bar radius
    for (int st = 0; st < 1000; st++) {
        ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
        ck_assert_int_eq(salto_ragdoll_get_state(r, d), SALTO_OK);
        salto_fk(m, d, SALTO_FK_POS);
        for (int g = 0; g < m->ngeom; g++) {
            if (m->geom_body[g] != trunk) continue;
            double pts[8][3], rad;
            const int n = salto_geom_local_points(m, g, pts, &rad);
            const int L = m->geom_link[g];
            double w[8][3];
            for (int k = 0; k < n; k++) {
                salto_m3_mul_v3(w[k], d->R + 9 * L, pts[k]);
                for (int t = 0; t < 3; t++) w[k][t] += d->p[3 * L + t];
            }
            for (int i = 0; i < n; i++) {
                for (int j = n == 1 ? i : i + 1; j < n; j++) {
                    worst = fmin(worst, segment_line_distance(w[i], w[j], bp, bu) - rad - o.bar_radius);
                }
            }
        }
        if (_i == 1 && worst < -0.05) break; // through it
    }
    if (_i == 0) {
        printf("ragdoll on a bar: the trunk's least clearance %.4f m over 1 s\n", worst);
        ck_assert_msg(worst > -0.005, "the trunk went %g m into the bar", -worst);
        ck_assert_msg(worst < 0.002, "the trunk never reached the bar (%g m clear)", worst);
    } else {
        ck_assert_msg(worst < -0.05, "without the bar the trunk did not pass its place (%g)", worst);
    }
    // bad bars are refused
    o.nbar = 1, o.bar_axis[0][1] = 0.0;
    ck_assert_ptr_null(salto_ragdoll_create(m, &o, NULL));
    o.bar_axis[0][1] = 1.0, o.bar_radius = 0.0;
    ck_assert_ptr_null(salto_ragdoll_create(m, &o, NULL));
    o.bar_radius = 0.02, o.nbar = 5;
    ck_assert_ptr_null(salto_ragdoll_create(m, &o, NULL));
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// the signed distance from point x (world) to the box of half extents h at (R, c): negative
// inside (Quilez's box distance)
static double box_sdf(const double* R, const double* c, const double* h, const double* x) {
    const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double l[3], out = 0.0, in = -INFINITY;
    salto_m3t_mul_v3(l, R, d);
    for (int k = 0; k < 3; k++) {
        const double q = fabs(l[k]) - h[k];
        out += q > 0.0 ? q * q : 0.0;
        in = fmax(in, q);
    }
    return sqrt(out) + fmin(in, 0.0);
}


// a box dropped onto a bar, tumbling, at random: its clearance from the bar (the least signed
// distance from the bar's axis, sampled every 0.1 mm, to the box, less the bar's radius) never
// below -5 mm, and it touches the bar
START_TEST(ragdoll_box_meets_a_bar) {
    salto_model* m = salto_test_model_file("tests/data/sim/box.yaml");
    salto_data* d = salto_data_create(m);
    salto_ragdoll_opts o;
    salto_ragdoll_default_opts(&o);
    o.nbar = 1;
    const double bp[3] = {0.02, 0.0, 1.0}, bu[3] = {0.0, 1.0, 0.0};
    memcpy(o.bar_point[0], bp, sizeof bp), memcpy(o.bar_axis[0], bu, sizeof bu);
    salto_ragdoll* r = salto_ragdoll_create(m, &o, NULL);
    ck_assert_ptr_nonnull(r);
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 500u + (unsigned)_i);
    for (int j = 0; j < m->nv; j++) d->q[j] = salto_test_uniform(&rng, -0.6, 0.6), d->qd[j] = salto_test_uniform(&rng, -2, 2);
    int tdof[3];
    double axes[3][3];
    ck_assert_int_eq(salto_model_root_translation(m, tdof, axes), 3);
    for (int k = 0; k < 3; k++) d->q[tdof[k]] = axes[k][2] != 0.0 ? 1.4 : salto_test_uniform(&rng, -0.05, 0.05);
    for (int k = 0; k < 3; k++) d->qd[tdof[k]] = 0.0;
    if (_i >= 6) { // thrown down fast (2 to 3 cm a step), flat: deeper than the bar's radius in
        // a step, it must still leave through the face it came in by, not tunnel through (a
        // step deeper than the box's half-height would need continuous collision detection)
        for (int j = 0; j < m->nv; j++) d->qd[j] = 0.0;
        for (int j = 3; j < 6; j++) d->q[j] = salto_test_uniform(&rng, -0.05, 0.05);
        for (int k = 0; k < 3; k++) {
            if (axes[k][2] != 0.0) d->qd[tdof[k]] = -salto_test_uniform(&rng, 20.0, 30.0);
        }
    }
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
    const double h[3] = {0.1, 0.1, 0.05};
    double worst = INFINITY, first = INFINITY;
    for (int st = 0; st < 800; st++) {
        ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
        ck_assert_int_eq(salto_ragdoll_get_state(r, d), SALTO_OK);
        salto_fk(m, d, SALTO_FK_POS);
        const double *R, *c;
        salto_body_frame(m, d, 0, &R, &c);
        double clear = INFINITY;
        for (int k = -5000; k <= 5000; k++) {
            const double x[3] = {bp[0], c[1] + 1e-4 * k, bp[2]};
            clear = fmin(clear, box_sdf(R, c, h, x));
        }
        clear -= o.bar_radius;
        worst = fmin(worst, clear);
        // through it: the box's centre under the bar while the bar is still under its middle
        ck_assert_msg(!(c[2] < bp[2] && fabs(c[0] - bp[0]) < 0.05), "seed %d step %d: the box "
                      "went through the bar (its centre at x %g, z %g)", _i, st, c[0], c[2]);
        if (st < 5) first = fmin(first, clear);
    }
    ck_assert_msg(first > 0.05, "seed %d: the box starts at the bar (%g)", _i, first);
    printf("box on a bar (seed %d): least clearance %.4f m\n", _i, worst);
    ck_assert_msg(worst > -0.005, "seed %d: the box went %g m into the bar", _i, -worst);
    ck_assert_msg(worst < 0.002, "seed %d: the box never reached the bar (%g m clear)", _i, worst);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// a body inside a bar when the state is set (a hand gripping it) is left alone: the humanoid
// lying across the bar's place falls as it would with no bar, bit for bit
START_TEST(ragdoll_starts_inside_a_bar) {
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    salto_data* d = salto_data_create(m);
    const double* x[2];
    salto_ragdoll* r[2];
    for (int k = 0; k < 2; k++) {
        salto_ragdoll_opts o;
        salto_ragdoll_default_opts(&o);
        o.nbar = k;
        o.bar_point[0][2] = 1.0, o.bar_axis[0][1] = 1.0;
        r[k] = salto_ragdoll_create(m, &o, NULL);
        ck_assert_ptr_nonnull(r[k]);
        memset(d->q, 0, sizeof(double) * (size_t)m->nv);
        memset(d->qd, 0, sizeof(double) * (size_t)m->nv);
        d->q[salto_model_dof(m, "root_ry")] = 1.5707963267948966;
        d->q[salto_model_dof(m, "root_x")] = -0.3;
        d->q[salto_model_dof(m, "root_z")] = 1.02 - 0.9242; // the trunk's capsule round the bar (its
                                                            // pelvis 0.9242 m up at q = 0)
        ck_assert_int_eq(salto_ragdoll_set_state(r[k], d, 1e-3), SALTO_OK);
        for (int st = 0; st < 300; st++) ck_assert_int_eq(salto_ragdoll_step(r[k]), SALTO_OK);
        x[k] = salto_ragdoll_positions(r[k]);
    }
    for (int i = 0; i < 3 * salto_ragdoll_npoints(r[0]); i++) {
        ck_assert_msg(x[0][i] == x[1][i], "entry %d: %.17g with no bar, %.17g with it", i, x[0][i], x[1][i]);
    }
    salto_ragdoll_destroy(r[0]), salto_ragdoll_destroy(r[1]);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// a pendulum on a fixed pivot (its body jointed to a welded one): swung hard both ways it
// stays within its hinge's limits, and swung into a floor above its lowest point it stops on it
START_TEST(ragdoll_fixed_base_limits_and_floor) {
    salto_model* m = salto_test_model_file("tests/data/sim/pendulum.yaml");
    salto_data* d = salto_data_create(m);
    salto_ragdoll_opts o;
    salto_ragdoll_default_opts(&o);
    o.joint_friction = 0.0;
    o.ground = _i == 1;        // loop 1: a floor at 1.55 m (the bob hangs at 1.5)
    o.ground_height = 1.55;
    salto_ragdoll* r = salto_ragdoll_create(m, &o, NULL);
    ck_assert_ptr_nonnull(r);
    d->q[0] = _i == 1 ? 0.7 : 0.0;
    d->qd[0] = _i == 1 ? -6.0 : (_i == 0 ? 6.0 : -6.0);
    if (_i == 2) o.ground = 0;
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
    const double lo = m->link_limits[0], hi = m->link_limits[1];
    double qmin = INFINITY, qmax = -INFINITY, low = INFINITY;
    const double* x = salto_ragdoll_positions(r);
    const double* rad = salto_ragdoll_radii(r);
    for (int s = 0; s < 1500; s++) {
        ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
        ck_assert_int_eq(salto_ragdoll_get_state(r, d), SALTO_OK);
        qmin = fmin(qmin, d->q[0]), qmax = fmax(qmax, d->q[0]);
        for (int i = 0; i < salto_ragdoll_npoints(r); i++) {
            if (rad[i] >= 0.0) low = fmin(low, x[3 * i + 2] - rad[i]);
        }
    }
    ck_assert_msg(qmin > lo - 0.05 && qmax < hi + 0.05, "loop %d: swung over [%g, %g], limits [%g, %g]",
                  _i, qmin, qmax, lo, hi);
    if (_i == 1) {
        ck_assert_msg(low > 1.55 - 0.02, "the bob %g m into the floor", 1.55 - low);
        ck_assert_msg(qmin > 0.3, "the bob swung through the floor to q = %g", qmin);
    } else {
        ck_assert_msg(qmax > hi - 0.05 || qmin < lo + 0.05, "loop %d: the limit not reached", _i);
    }
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// static friction holds joints turning slowly: in flight, with no dynamic friction, a threshold
// of 0.01 rad a step holds the limbs' slow turns (0.5 rad/s at most; 0.015 rad of drift left
// over 0.5 s, from the passes), where without it they move freely (0.26 rad)
START_TEST(ragdoll_static_friction_holds) {
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    salto_data* d = salto_data_create(m);
    double moved[2];
    for (int k = 0; k < 2; k++) {
        salto_ragdoll_opts o;
        salto_ragdoll_default_opts(&o);
        o.ground = 0, o.joint_friction = 0.0, o.static_friction = k ? 0.01 : 0.0;
        salto_ragdoll* r = salto_ragdoll_create(m, &o, NULL);
        ck_assert_ptr_nonnull(r);
        random_pose(m, d, 5u, 0.5, 0.0);
        for (int j = 0; j < m->nroot; j++) d->qd[j] = 0.0;
        double q0[128];
        memcpy(q0, d->q, sizeof(double) * (size_t)m->nv);
        ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_OK);
        for (int s = 0; s < 500; s++) ck_assert_int_eq(salto_ragdoll_step(r), SALTO_OK);
        ck_assert_int_eq(salto_ragdoll_get_state(r, d), SALTO_OK);
        moved[k] = 0.0;
        for (int j = m->nroot; j < m->nv; j++) moved[k] = fmax(moved[k], fabs(d->q[j] - q0[j]));
        salto_ragdoll_destroy(r);
    }
    ck_assert_msg(moved[0] > 0.15 && moved[1] < 0.03, "joints moved %g rad without static friction, %g with",
                  moved[0], moved[1]);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


// building fails cleanly at every allocation (nothing leaked), until it succeeds
static salto_test_counter g_count;

START_TEST(ragdoll_survives_allocation_failure) {
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    int succeeded = 0;
    for (int n = 1; n < 100 && !succeeded; n++) {
        g_count.calls = 0, g_count.live = 0, g_count.fail_at = n;
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &g_count};
        salto_set_alloc_hooks(&h);
        salto_error err = {0};
        salto_ragdoll* r = salto_ragdoll_create(m, NULL, &err);
        if (r) {
            succeeded = 1;
        } else {
            ck_assert_int_eq(err.status, SALTO_ERR_NOMEM);
        }
        salto_ragdoll_destroy(r);
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(g_count.live == 0, "%ld blocks leaked when allocation %d failed", g_count.live, n);
    }
    ck_assert(succeeded);
    salto_model_destroy(m);
}
END_TEST


START_TEST(ragdoll_refusals) {
    salto_error err = {0};
    salto_model* planar = salto_test_model_file("data/characters/gymnast7.yaml");
    ck_assert_ptr_null(salto_ragdoll_create(planar, NULL, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.msg, "planar") != NULL, "%s", err.msg);
    salto_model_destroy(planar);
    salto_model* m = salto_test_model_file(CHARACTERS[0]);
    salto_ragdoll_opts o;
    const double bad[3] = {-0.1, 1.0, NAN};
    for (int k = 0; k < 8; k++) {
        salto_ragdoll_default_opts(&o);
        if (k == 3) {
            o.iterations = 0;
        } else if (k == 4) {
            o.static_friction = -1.0;
        } else if (k == 5) {
            o.ground_friction = 1.5;
        } else if (k == 6) {
            o.ground_friction = -0.1;
        } else if (k == 7) {
            o.ground_height = NAN;
        } else {
            o.joint_friction = bad[k];
        }
        salto_error e2 = {0};
        ck_assert_ptr_null(salto_ragdoll_create(m, &o, &e2));
        ck_assert_int_eq(e2.status, SALTO_ERR_INVALID);
    }
    salto_ragdoll* r = salto_ragdoll_create(m, NULL, NULL);
    salto_data* d = salto_data_create(m);
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 0.0), SALTO_ERR_INVALID);
    d->q[3] = NAN;
    ck_assert_int_eq(salto_ragdoll_set_state(r, d, 1e-3), SALTO_ERR_INVALID);
    salto_ragdoll_destroy(r);
    salto_data_destroy(d);
    salto_model_destroy(m);
}
END_TEST


Suite* ragdoll_suite(void) {
    Suite* s = suite_create("ragdoll");
    TCase* tc = tcase_create("ragdoll");
    tcase_add_loop_test(tc, ragdoll_points_carry_the_bodies, 0, 2);
    tcase_add_loop_test(tc, ragdoll_chain_jacobian, 0, 4);
    tcase_add_loop_test(tc, ragdoll_reads_back_its_pose, 0, 6);
    tcase_add_test(tc, ragdoll_momentum_in_flight);
    tcase_add_loop_test(tc, ragdoll_falls_and_settles, 0, 4);
    tcase_add_test(tc, ragdoll_floor_height);
    tcase_add_loop_test(tc, ragdoll_meets_a_bar, 0, 2);
    tcase_add_test(tc, ragdoll_starts_inside_a_bar);
    tcase_add_loop_test(tc, ragdoll_box_meets_a_bar, 0, 12);
    tcase_add_loop_test(tc, ragdoll_fixed_base_limits_and_floor, 0, 3);
    tcase_add_test(tc, ragdoll_static_friction_holds);
    tcase_add_test(tc, ragdoll_survives_allocation_failure);
    tcase_add_test(tc, ragdoll_refusals);
    suite_add_tcase(s, tc);
    return s;
}
