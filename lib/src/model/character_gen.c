// character_gen.c: characters built in code (a serial chain, random trees) for tests and
// benchmarks
//
// Both generators fill a description exactly as the loader would and check it with
// salto_character_validate before returning it. The random tree uses its own splitmix64
// generator so that a seed gives the same character on every platform and C library.
#include "salto/character.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

// ---- deterministic random numbers (splitmix64, Steele et al. 2014) ----

typedef struct rng {
    uint64_t s;
} rng;


static uint64_t rng_next(rng* r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}


// uniform in [lo, hi)
static double rng_uniform(rng* r, double lo, double hi) {
    return lo + (hi - lo) * ((double)(rng_next(r) >> 11) * 0x1.0p-53);
}


// uniform integer in [0, n)
static int rng_int(rng* r, int n) {
    return (int)(rng_next(r) % (uint64_t)n);
}


// uniform point in the ball of radius rad (rejection from the cube)
static void rng_ball(rng* r, double rad, double* p) {
    for (;;) {
        for (int i = 0; i < 3; i++) p[i] = rng_uniform(r, -1.0, 1.0);
        if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= 1.0) break;
    }
    for (int i = 0; i < 3; i++) p[i] *= rad;
}


// uniform rotation matrix from a uniform unit quaternion (w, x, y, z) (Shoemake 1992)
static void rng_rotation(rng* r, double* R) {
    double u1 = rng_uniform(r, 0.0, 1.0);
    double u2 = rng_uniform(r, 0.0, 2.0 * pi);
    double u3 = rng_uniform(r, 0.0, 2.0 * pi);
    double a = sqrt(1.0 - u1);
    double b = sqrt(u1);
    double x = a * sin(u2), y = a * cos(u2), z = b * sin(u3), w = b * cos(u3);
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}


static char* name_of(const char* fmt, int a, int b) {
    char buf[64];
    snprintf(buf, sizeof buf, fmt, a, b);
    return salto_strdup(buf);
}

// ---- chain ----

salto_character_desc* salto_character_chain(int n, double len, double mass) {
    return salto_character_chain_axes(n, len, mass, "yxz");
}


salto_character_desc* salto_character_chain_axes(int n, double len, double mass, const char* pattern) {
    if (n < 0 || !(len > 0) || !(mass > 0) || !isfinite(len) || !isfinite(mass)) return NULL;
    const size_t np = pattern ? strlen(pattern) : 0;
    if (np == 0 || strspn(pattern, "xyz") != np) return NULL;
    salto_character_desc* c = salto_character_alloc(n + 1);
    if (!c) return NULL;
    c->name = name_of("chain%d", n, 0);
    if (!c->name) goto fail;
    c->root_type = SALTO_ROOT_FIXED;

    // the base: welded to the world at the origin; 1 kg so that the mass is positive
    salto_body_desc* base = &c->bodies[0];
    base->name = salto_strdup("base");
    if (!base->name) goto fail;
    base->parent = -1;
    base->mass = 1.0;
    for (int i = 0; i < 3; i++) base->inertia[4 * i] = 0.01;

    // link i: a uniform rod along -z from its joint, I_transverse = m len^2 / 12, plus a
    // small axial inertia I_axial = m r^2 / 2 of a radius r = min(0.05, len / 4), which keeps
    // the triangle inequality (I_axial <= 2 I_transverse) for short links too
    const double r = fmin(0.05, 0.25 * len);
    const double It = mass * len * len / 12.0;
    const double Ia = mass * r * r / 2.0;
    static const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}; // x, y, z
    for (int i = 1; i <= n; i++) {
        salto_body_desc* b = &c->bodies[i];
        b->name = name_of("link%d", i, 0);
        if (!b->name) goto fail;
        b->parent = i - 1;
        if (i > 1) b->joint_pos[2] = -len;
        if (salto_character_set_axes(c, i, 1)) goto fail;
        salto_axis_desc* a = &b->axes[0];
        a->name = name_of("q%d", i, 0);
        if (!a->name) goto fail;
        a->type = SALTO_AXIS_REVOLUTE;
        memcpy(a->axis, axes[pattern[(size_t)(i - 1) % np] - 'x'], sizeof a->axis);
        b->mass = mass;
        b->com[2] = -0.5 * len;
        b->inertia[0] = It;
        b->inertia[4] = It;
        b->inertia[8] = Ia;
        b->geoms = salto_calloc(1, sizeof *b->geoms);
        if (!b->geoms) goto fail;
        b->ngeom = 1;
        b->geoms[0].shape = SALTO_GEOM_CAPSULE;
        b->geoms[0].b[2] = -len;
        b->geoms[0].radius = r;
    }

    // a site at the tip of the last link
    if (n > 0) {
        salto_body_desc* last = &c->bodies[n];
        last->sites = salto_calloc(1, sizeof *last->sites);
        if (!last->sites) goto fail;
        last->nsite = 1;
        last->sites[0].name = salto_strdup("tip");
        if (!last->sites[0].name) goto fail;
        last->sites[0].pos[2] = -len;
    }
    if (salto_character_validate(c, NULL)) goto fail;
    return c;

fail:
    salto_character_destroy(c);
    return NULL;
}

// ---- random tree ----

// I = R diag(p) R^T, made exactly symmetric; p from random radii of gyration,
// p = m (ky^2 + kz^2, kx^2 + kz^2, kx^2 + ky^2), which satisfies the triangle inequality
static void random_inertia(rng* r, double mass, double* I) {
    double k2[3];
    for (int i = 0; i < 3; i++) {
        double k = rng_uniform(r, 0.03, 0.3);
        k2[i] = k * k;
    }
    double p[3] = {mass * (k2[1] + k2[2]), mass * (k2[0] + k2[2]), mass * (k2[0] + k2[1])};
    double R[9];
    rng_rotation(r, R);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += R[3 * i + k] * p[k] * R[3 * j + k];
            I[3 * i + j] = I[3 * j + i] = s;
        }
    }
}


salto_character_desc* salto_character_random_tree(int n, salto_root_type root, unsigned seed) {
    if (n < 1 || (root != SALTO_ROOT_FREE && root != SALTO_ROOT_PLANAR &&
                  root != SALTO_ROOT_FIXED)) {
        return NULL;
    }
    salto_character_desc* c = salto_character_alloc(n);
    if (!c) return NULL;
    rng r = {(uint64_t)seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull};
    c->name = name_of("random%d_%d", n, (int)(seed & 0x7fffffff));
    if (!c->name) goto fail;
    c->root_type = root;

    for (int i = 0; i < n; i++) {
        salto_body_desc* b = &c->bodies[i];
        b->name = name_of("b%d", i, 0);
        if (!b->name) goto fail;

        // parent: a uniformly random earlier body, so that the tree branches
        b->parent = i == 0 ? -1 : rng_int(&r, i);
        rng_ball(&r, 0.5, b->joint_pos);
        if (i == 0) b->joint_pos[2] += 1.0;

        // 1-3 axes, about 20% prismatic, some with limits; the axes of one joint are the
        // columns of a random rotation, so that each is a uniform random direction and a
        // multi-axis joint is not close to a singular (gimbal-locked) configuration at q = 0
        if (i > 0) {
            int naxis = 1 + rng_int(&r, 3);
            if (salto_character_set_axes(c, i, naxis)) goto fail;
            double Ra[9];
            rng_rotation(&r, Ra);
            for (int k = 0; k < naxis; k++) {
                salto_axis_desc* a = &b->axes[k];
                a->name = name_of("b%d_a%d", i, k + 1);
                if (!a->name) goto fail;
                a->type = rng_uniform(&r, 0, 1) < 0.2 ? SALTO_AXIS_PRISMATIC
                                                      : SALTO_AXIS_REVOLUTE;
                for (int t = 0; t < 3; t++) a->axis[t] = Ra[3 * t + k];
                if (rng_uniform(&r, 0, 1) < 0.3) {
                    a->has_limits = 1;
                    a->limits[0] = rng_uniform(&r, -2.0, 0.0);
                    a->limits[1] = rng_uniform(&r, 0.0, 2.0);
                }
                // torque limits on every third axis, made without the generator (the trees'
                // other properties stay what they were)
                if ((i + k) % 3 == 0) {
                    a->has_torque = 1;
                    a->torque[0] = -(20.0 + i);
                    a->torque[1] = 10.0 + 0.5 * k;
                    a->torque_slope = 0.25 * k;
                }
            }
        }

        // mass properties
        b->mass = rng_uniform(&r, 0.5, 5.0);
        rng_ball(&r, 0.3, b->com);
        random_inertia(&r, b->mass, b->inertia);

        // a site and a sphere on every other body
        if (i % 2 == 0) {
            b->sites = salto_calloc(1, sizeof *b->sites);
            if (!b->sites) goto fail;
            b->nsite = 1;
            b->sites[0].name = name_of("b%d_site", i, 0);
            if (!b->sites[0].name) goto fail;
            rng_ball(&r, 0.3, b->sites[0].pos);
            b->geoms = salto_calloc(1, sizeof *b->geoms);
            if (!b->geoms) goto fail;
            b->ngeom = 1;
            b->geoms[0].shape = SALTO_GEOM_SPHERE;
            memcpy(b->geoms[0].a, b->com, sizeof b->com);
            b->geoms[0].radius = rng_uniform(&r, 0.02, 0.1);
        }
    }
    if (salto_character_validate(c, NULL)) goto fail;
    return c;

fail:
    salto_character_destroy(c);
    return NULL;
}
