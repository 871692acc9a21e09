// test_character.c: character files: broken inputs, checks, generators, save/load round trips
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "salto/character.h"
#include "salto/model.h"
#include "test_suites.h"
#include "test_util.h"

// ---- temporary files ----

static char tmpdir[256];


static void make_tmpdir(void) {
    const char* base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/salto_character_XXXXXX", base && base[0] ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}


static void remove_tmpdir(void) {
    rmdir(tmpdir);
}


// "<tmpdir>/<name>" in a static buffer
static const char* tmp_path(const char* name) {
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}


static void write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}


static salto_character_desc* load_ok(const char* path) {
    salto_error err = {0};
    salto_character_desc* c = salto_character_load(path, &err);
    if (!c) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not load %s: %s", path, msg);
    }
    return c;
}

// ---- bit-for-bit comparison of descriptions ----

static int same_bits(const double* a, const double* b, int n) {
    return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}


static void assert_desc_equal(const salto_character_desc* a, const salto_character_desc* b) {
    ck_assert_str_eq(a->name, b->name);
    ck_assert_int_eq(a->root_type, b->root_type);
    if (a->root_type == SALTO_ROOT_FREE) {
        for (int i = 0; i < 3; i++) ck_assert_int_eq(a->root_rot_order[i], b->root_rot_order[i]);
    }
    ck_assert(same_bits(a->gravity, b->gravity, 3));
    ck_assert_int_eq(a->nbody, b->nbody);
    for (int i = 0; i < a->nbody; i++) {
        const salto_body_desc* x = &a->bodies[i];
        const salto_body_desc* y = &b->bodies[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_int_eq(x->parent, y->parent);
        ck_assert_msg(same_bits(x->joint_pos, y->joint_pos, 3), "body %d joint_pos", i);
        ck_assert_msg(same_bits(&x->mass, &y->mass, 1), "body %d mass", i);
        ck_assert_msg(same_bits(x->com, y->com, 3), "body %d com", i);
        ck_assert_msg(same_bits(x->inertia, y->inertia, 9), "body %d inertia", i);
        ck_assert_int_eq(x->naxis, y->naxis);
        for (int k = 0; k < x->naxis; k++) {
            const salto_axis_desc* p = &x->axes[k];
            const salto_axis_desc* q = &y->axes[k];
            ck_assert_str_eq(p->name, q->name);
            ck_assert_int_eq(p->type, q->type);
            ck_assert_msg(same_bits(p->axis, q->axis, 3), "body %d axis %d", i, k);
            ck_assert_int_eq(p->has_limits, q->has_limits);
            if (p->has_limits) ck_assert(same_bits(p->limits, q->limits, 2));
            ck_assert_int_eq(p->has_torque, q->has_torque);
            if (p->has_torque) {
                ck_assert(same_bits(p->torque, q->torque, 2));
                ck_assert(same_bits(&p->torque_slope, &q->torque_slope, 1));
            }
        }
        ck_assert_int_eq(x->nsite, y->nsite);
        for (int s = 0; s < x->nsite; s++) {
            ck_assert_str_eq(x->sites[s].name, y->sites[s].name);
            ck_assert(same_bits(x->sites[s].pos, y->sites[s].pos, 3));
        }
        ck_assert_int_eq(x->ngeom, y->ngeom);
        for (int g = 0; g < x->ngeom; g++) {
            const salto_geom_desc* p = &x->geoms[g];
            const salto_geom_desc* q = &y->geoms[g];
            ck_assert_int_eq(p->shape, q->shape);
            ck_assert(same_bits(p->a, q->a, 3));
            if (p->shape != SALTO_GEOM_SPHERE) ck_assert(same_bits(p->b, q->b, 3));
            if (p->shape != SALTO_GEOM_BOX) ck_assert(same_bits(&p->radius, &q->radius, 1));
        }
    }
}

// ---- broken inputs: every loader error, with status, place and message ----

typedef salto_bad_case bad_case;

static const bad_case bad_cases[] = {
    {"torque_dof.yaml", SALTO_ERR_INVALID, 20, 3, "torque_limits: no joint DOF is named 'shoulderr'",
     "did you mean 'shoulder'?"},
    {"torque_root.yaml", SALTO_ERR_INVALID, 20, 3, "'root_x' is the root's: nothing drives it", NULL},
    {"torque_order.yaml", SALTO_ERR_INVALID, 20, 13,
     "the torque limit of 'shoulder' must be a positive number or [lo, hi] with lo < hi, found [40, -30]",
     NULL},
    {"torque_zero.yaml", SALTO_ERR_INVALID, 20, 13,
     "the torque limit of 'shoulder', [10, 30], does not contain zero", NULL},
    {"torque_slope.yaml", SALTO_ERR_INVALID, 20, 32,
     "the slope of 'shoulder' must be zero or positive, found -2", NULL},
    {"torque_key.yaml", SALTO_ERR_INVALID, 20, 25, "unknown key 'slop' in 'shoulder'",
     "did you mean 'slope'?"},
    {"torque_kind.yaml", SALTO_ERR_INVALID, 20, 13, "expected a number for 'shoulder', found 'fifty'",
     NULL},
    {"wrong_type.yaml", SALTO_ERR_INVALID, 16, 11, "expected a number for 'mass', found 'heavy'",
     NULL},
    {"wrong_length.yaml", SALTO_ERR_INVALID, 17, 10,
     "expected a list of 3 numbers for 'com', found a list of 2 items", NULL},
    {"wrong_kind.yaml", SALTO_ERR_INVALID, 12, 12, "expected a map for 'joint', found 'shoulder'",
     NULL},
    {"unknown_key.yaml", SALTO_ERR_INVALID, 16, 5, "unknown key 'mas'", "did you mean 'mass'?"},
    {"unknown_key_case.yaml", SALTO_ERR_INVALID, 17, 5, "unknown key 'COM'",
     "did you mean 'com'?"},
    {"missing_key.yaml", SALTO_ERR_INVALID, 10, 5, "missing required key 'mass'", NULL},
    {"missing_inertia.yaml", SALTO_ERR_INVALID, 10, 5,
     "missing required key 'inertia' (or 'radii_of_gyration') in body 'arm'", NULL},
    {"mass_zero.yaml", SALTO_ERR_INVALID, 16, 11, "mass of body 'arm' must be positive", NULL},
    {"mass_infinite.yaml", SALTO_ERR_INVALID, 16, 11, "expected a finite number for 'mass'",
     NULL},
    {"mass_nan.yaml", SALTO_ERR_INVALID, 16, 11, "expected a number for 'mass', found '.nan'",
     NULL},
    {"inertia_asymmetric.yaml", SALTO_ERR_INVALID, 18, 14,
     "inertia of body 'arm' is not symmetric", NULL},
    {"inertia_not_pd.yaml", SALTO_ERR_INVALID, 18, 14,
     "inertia of body 'arm' is not positive definite", NULL},
    {"inertia_triangle.yaml", SALTO_ERR_INVALID, 18, 14, "violates the triangle inequality",
     NULL},
    {"inertia_form.yaml", SALTO_ERR_INVALID, 18, 14,
     "or a 3x3 nested list for 'inertia', found a list of 4 items", NULL},
    {"radii_nonpositive.yaml", SALTO_ERR_INVALID, 18, 30,
     "radii of gyration of body 'arm' must be positive, found 0", NULL},
    {"inertia_and_radii.yaml", SALTO_ERR_INVALID, 19, 5,
     "give either 'inertia' or 'radii_of_gyration', not both", NULL},
    {"duplicate_body.yaml", SALTO_ERR_INVALID, 10, 5,
     "duplicate body name 'trunk' (first given on line 4)", NULL},
    {"duplicate_dof.yaml", SALTO_ERR_INVALID, 16, 11,
     "duplicate DOF name 'shoulder' (first given on line 15)", NULL},
    {"duplicate_root_dof.yaml", SALTO_ERR_INVALID, 15, 11,
     "duplicate DOF name 'root_rx' (the free root already has it)", NULL},
    {"duplicate_site.yaml", SALTO_ERR_INVALID, 19, 9,
     "duplicate site name 'tip' (first given on line 9)", NULL},
    {"unknown_parent.yaml", SALTO_ERR_INVALID, 11, 13, "unknown parent 'trunc' of body 'arm'",
     "did you mean 'trunk'?"},
    {"cycle.yaml", SALTO_ERR_INVALID, 20, 13,
     "cycle among parents: 'hand' -> 'finger' -> 'hand'", NULL},
    {"no_root.yaml", SALTO_ERR_INVALID, 5, 13, "no root body", NULL},
    {"two_roots.yaml", SALTO_ERR_INVALID, 10, 5,
     "more than one root body: 'trunk' (line 4) and 'arm' have no parent", NULL},
    {"zero_axis.yaml", SALTO_ERR_INVALID, 15, 50, "axis 'shoulder' is zero", NULL},
    {"parallel_axes.yaml", SALTO_ERR_INVALID, 16, 52,
     "axis 'shoulder_b' is parallel to axis 'shoulder' of the same joint", NULL},
    {"unknown_axis_type.yaml", SALTO_ERR_INVALID, 15, 34, "unknown axis type 'revolut'",
     "did you mean 'revolute'?"},
    {"unknown_root_type.yaml", SALTO_ERR_INVALID, 6, 13, "unknown root joint type 'floating'",
     NULL},
    {"limits_reversed.yaml", SALTO_ERR_INVALID, 15, 69,
     "limits of axis 'shoulder': min (1.5) is above max (-0.5)", NULL},
    {"limits_deg_prismatic.yaml", SALTO_ERR_INVALID, 15, 62,
     "'limits_deg' is only allowed for revolute axes", NULL},
    {"limits_both.yaml", SALTO_ERR_INVALID, 15, 78,
     "give either 'limits' or 'limits_deg', not both", NULL},
    {"geometry_radius.yaml", SALTO_ERR_INVALID, 17, 68,
     "radius of a capsule must be positive, found -0.05", NULL},
    {"geometry_extent.yaml", SALTO_ERR_INVALID, 17, 64,
     "half extents of a box must be positive, found 0", NULL},
    {"geometry_type.yaml", SALTO_ERR_INVALID, 17, 16, "unknown geometry type 'cylinder'", NULL},
    {"root_axes.yaml", SALTO_ERR_INVALID, 7, 7, "the root joint takes no 'axes'", NULL},
    {"rotation_order.yaml", SALTO_ERR_INVALID, 7, 30,
     "rotation axis 'y' appears twice in 'rotation_order'", NULL},
    {"duplicate_key.yaml", SALTO_ERR_INVALID, 18, 5, "duplicate key 'mass' (first given on line 16)",
     NULL},
    {"empty_bodies.yaml", SALTO_ERR_INVALID, 3, 9, "'bodies' must not be empty", NULL},
    {"syntax.yaml", SALTO_ERR_SYNTAX, 17, 8, "did not find expected ',' or ']'", NULL},
    {"empty.yaml", SALTO_ERR_INVALID, 1, 1, "expected a map for the document, found nothing",
     NULL},
    {"extends_dof.yaml", SALTO_ERR_INVALID, 4, 32, "torque_limits: no joint DOF is named 'elbow'", NULL},
    {"extends_keys.yaml", SALTO_ERR_INVALID, 3, 1,
     "'bodies' is not allowed in a character that extends another (its keys: name, source, "
     "extends, torque_limits)", NULL},
    {"extends_self.yaml", SALTO_ERR_INVALID, 2, 10,
     "more than 8 files extend one another (does 'extends_self.yaml' extend itself?)", NULL},
    {"extends_missing.yaml", SALTO_ERR_IO, 2, 10, "cannot read the character it extends: cannot open", NULL},
    {"mass_huge.yaml", SALTO_ERR_INVALID, 16, 11,
     "mass of body 'arm' must be from 1e-06 to 1e+06 kg (a milligram to a thousand tonnes), found 1e+308", NULL},
    {"mass_tiny.yaml", SALTO_ERR_INVALID, 16, 11,
     "mass of body 'arm' must be from 1e-06 to 1e+06 kg (a milligram to a thousand tonnes), found 1e-308", NULL},
    {"gravity_huge.yaml", SALTO_ERR_INVALID, 3, 10, "gravity of 1e+308 m/s^2: at most 1000 (a hundred g)", NULL},
    {"position_far.yaml", SALTO_ERR_INVALID, 10, 5,
     "the joint centre of body 'arm' is 1e+308 m from its frame's origin: at most 10000", NULL},
};
enum { NBAD = (int)(sizeof bad_cases / sizeof bad_cases[0]) };


START_TEST(bad_file) {
    const bad_case* bc = &bad_cases[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/bad/%s", bc->file);
    char path[4096];
    snprintf(path, sizeof path, "%s", salto_test_path(rel));

    salto_error err = {0};
    salto_character_desc* c = salto_character_load(path, &err);
    salto_test_check_bad(bc, path, c != NULL, &err);
}
END_TEST


// A character that extends another is the other with its own name and torque limits: the same
// model otherwise (masses, inertias, axes, sites, geometry, bit for bit), the base's limits
// replaced; an error inside the base points into the base, with a note naming the extending
// file's line
START_TEST(extends) {
    salto_error err = {0};
    char path[600];
    salto_test_character_with("gymnast7", "\ntorque_limits: {knee: 100}\n", "extends_base", path, sizeof path);
    char ext[700];
    snprintf(ext, sizeof ext, "%s.ext.yaml", path);
    FILE* f = fopen(ext, "w");
    ck_assert_ptr_nonnull(f);
    const char* slash = strrchr(path, '/');
    fprintf(f, "name: strong\nextends: %s\ntorque_limits: {shoulder: [-200, 240], hip: {limit: 600, slope: 20}}\n",
            slash ? slash + 1 : path);
    fclose(f);
    salto_character_desc* base = salto_character_load(path, &err);
    ck_assert_msg(base != NULL, "%s", err.msg);
    salto_character_desc* c = salto_character_load(ext, &err);
    ck_assert_msg(c != NULL, "%s", err.msg);
    ck_assert_str_eq(c->name, "strong");
    salto_model* mb = salto_model_build(base, NULL, &err);
    salto_model* mc = salto_model_build(c, NULL, &err);
    ck_assert_ptr_nonnull(mb);
    ck_assert_ptr_nonnull(mc);
    ck_assert_int_eq(mb->nv, mc->nv);
    ck_assert(memcmp(mb->link_inertia, mc->link_inertia, sizeof(double) * 10 * (size_t)mb->nv) == 0);
    ck_assert(memcmp(mb->site_pos, mc->site_pos, sizeof(double) * 3 * (size_t)mb->nsite) == 0);
    const int sh = salto_model_dof(mc, "shoulder"), hip = salto_model_dof(mc, "hip"), knee = salto_model_dof(mc, "knee");
    ck_assert(mb->link_has_torque[knee] && !mb->link_has_torque[sh]);
    ck_assert(mc->link_has_torque[sh] && mc->link_has_torque[hip] && !mc->link_has_torque[knee]);
    ck_assert_double_eq(mc->link_torque[2 * sh], -200.0);
    ck_assert_double_eq(mc->link_torque[2 * sh + 1], 240.0);
    ck_assert_double_eq(mc->link_torque_slope[hip], 20.0);
    salto_model_destroy(mb), salto_model_destroy(mc);
    salto_character_destroy(base), salto_character_destroy(c);
    remove(ext);
    // an error inside the base: at its own place, noted at the extends line
    const char* bad = salto_test_path("tests/data/bad/extends_bad_base.yaml");
    memset(&err, 0, sizeof err);
    ck_assert_ptr_null(salto_character_load(bad, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
    ck_assert_msg(strstr(err.where.file, "torque_root.yaml") && err.where.line == 20, "%s:%d", err.where.file, err.where.line);
    ck_assert_msg(strstr(err.note, "extends_bad_base.yaml:2:10"), "%s", err.note);
}
END_TEST


START_TEST(missing_file) {
    salto_error err = {0};
    const char* path = salto_test_path("tests/data/bad/does_not_exist.yaml");
    ck_assert_ptr_null(salto_character_load(path, &err));
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
    ck_assert_msg(strstr(err.msg, "does_not_exist.yaml"), "%s", err.msg);
    ck_assert_ptr_null(salto_character_load(path, NULL)); // no error object: no crash
}
END_TEST

// ---- a complete file: every form the format allows ----

static const char* const full_text =
    "name: full\n"
    "source: \"made up for the tests\"\n"
    "gravity: [0, 0, -9.80665]\n"
    "bodies:\n"
    "  - name: pelvis\n"
    "    parent: world\n"
    "    joint:\n"
    "      type: free\n"
    "      rotation_order: [z, x, y]\n"
    "      position: [0, 0, 1.0]\n"
    "    mass: 10\n"
    "    com: [0, 0, 0.1]\n"
    "    inertia: [[0.2, 0.01, 0], [0.01, 0.25, 0], [0, 0, 0.1]]\n"
    "    sites:\n"
    "      - {name: navel, position: [0.1, 0, 0.05]}\n"
    "    geometry:\n"
    "      - {type: capsule, from: [0, -0.1, 0], to: [0, 0.1, 0], radius: 0.12}\n"
    "      - {type: box, center: [0.05, 0, -0.04], half_extents: [0.13, 0.05, 0.03]}\n"
    "      - {type: sphere, radius: 0.1}\n"
    "  - name: thigh\n"
    "    parent: pelvis\n"
    "    joint:\n"
    "      position: [0, -0.09, 0]\n"
    "      axes:\n"
    "        - {name: hip_flex, type: revolute, axis: [0, 2, 0], limits: [-2.4, 0.5]}\n"
    "        - {name: hip_abd, type: revolute, axis: [1, 0, 0], limits_deg: [-45, 30]}\n"
    "        - {name: hip_slide, type: prismatic, axis: [0.6, 0, 0.8], limits: [0, 0.1]}\n"
    "    mass: 7.5\n"
    "    radii_of_gyration: [0.15, 0.15, 0.05]\n"
    "  - name: shin\n"
    "    parent: thigh\n"
    "    joint: {position: [0, 0, -0.4], axes: [{name: knee, type: revolute, axis: [0, 1, 0]}]}\n"
    "    mass: 3\n"
    "    com: [0, 0, -0.2]\n"
    "    inertia: [0.04, 0.04, 0.003, 0.0001, 0, 0]\n"
    "  - name: arm\n"
    "    parent: pelvis\n"
    "    joint:\n"
    "      axes:\n"
    "        - name: shoulder\n"
    "          type: revolute\n"
    "          axis: [1, 1, 0]\n"
    "    mass: 2\n"
    "    inertia: [0.02, 0.02, 0.004]\n";


START_TEST(full_file) {
    make_tmpdir();
    const char* path = tmp_path("full.yaml");
    char p[512];
    snprintf(p, sizeof p, "%s", path);
    write_file(p, full_text);
    salto_character_desc* c = load_ok(p);
    unlink(p);

    ck_assert_str_eq(c->name, "full");
    ck_assert_str_eq(c->path, p);
    ck_assert(c->gravity[2] == -9.80665);
    ck_assert_int_eq(c->root_type, SALTO_ROOT_FREE);
    ck_assert_int_eq(c->root_rot_order[0], 2);
    ck_assert_int_eq(c->root_rot_order[1], 0);
    ck_assert_int_eq(c->root_rot_order[2], 1);
    ck_assert_int_eq(c->root_loc.line, 8);
    ck_assert_int_eq(c->nbody, 4);

    const salto_body_desc* pelvis = &c->bodies[0];
    ck_assert_int_eq(pelvis->parent, -1);
    ck_assert_int_eq(pelvis->naxis, 0);
    ck_assert(pelvis->joint_pos[2] == 1.0);
    ck_assert(pelvis->inertia[1] == 0.01 && pelvis->inertia[3] == 0.01);
    ck_assert_int_eq(pelvis->nsite, 1);
    ck_assert_str_eq(pelvis->sites[0].name, "navel");
    ck_assert_int_eq(pelvis->ngeom, 3);
    ck_assert_int_eq(pelvis->geoms[1].shape, SALTO_GEOM_BOX);
    ck_assert(pelvis->geoms[1].b[0] == 0.13);
    ck_assert_int_eq(pelvis->geoms[2].shape, SALTO_GEOM_SPHERE);
    ck_assert(pelvis->geoms[2].a[0] == 0 && pelvis->geoms[2].radius == 0.1);
    ck_assert_int_eq(pelvis->parent_loc.line, 6);

    const salto_body_desc* thigh = &c->bodies[1];
    ck_assert_int_eq(thigh->parent, 0);
    ck_assert_int_eq(thigh->naxis, 3);
    ck_assert(thigh->axes[0].axis[1] == 1.0); // normalised
    ck_assert(thigh->axes[0].has_limits && thigh->axes[0].limits[0] == -2.4);
    const double pi = 3.14159265358979323846;
    ck_assert_double_eq_tol(thigh->axes[1].limits[0], -pi / 4, 1e-15);
    ck_assert_double_eq_tol(thigh->axes[1].limits[1], pi / 6, 1e-15);
    ck_assert_int_eq(thigh->axes[2].type, SALTO_AXIS_PRISMATIC);
    ck_assert_double_eq_tol(thigh->axes[2].axis[0], 0.6, 1e-15);
    ck_assert_double_eq_tol(thigh->inertia[0], 7.5 * 0.15 * 0.15, 1e-15);
    ck_assert(thigh->inertia[8] == 7.5 * 0.05 * 0.05);
    ck_assert(thigh->inertia[1] == 0 && thigh->inertia[5] == 0);

    const salto_body_desc* shin = &c->bodies[2];
    ck_assert(shin->inertia[1] == 0.0001 && shin->inertia[3] == 0.0001);
    ck_assert(shin->joint_pos[2] == -0.4);
    ck_assert_double_eq_tol(c->bodies[3].axes[0].axis[0], sqrt(0.5), 1e-15);
    ck_assert(!c->bodies[3].axes[0].has_limits);

    // every location points into the description, at the value
    ck_assert_ptr_eq(shin->mass_loc.file, c->path);
    ck_assert_int_eq(shin->mass_loc.line, 33);
    ck_assert_int_eq(shin->mass_loc.col, 11);
    ck_assert_int_eq(shin->inertia_loc.line, 35);
    ck_assert_int_eq(shin->parent_loc.line, 31);
    ck_assert_int_eq(shin->parent_loc.col, 13);
    ck_assert_int_eq(shin->loc.line, 30);
    ck_assert_int_eq(shin->loc.col, 5);
    ck_assert_int_eq(thigh->inertia_loc.line, 29);
    ck_assert_int_eq(thigh->axes[1].loc.line, 26);
    ck_assert_int_eq(thigh->axes[1].limits_loc.line, 26);
    ck_assert_int_eq(thigh->axes[2].axis_loc.line, 27);
    ck_assert_int_eq(pelvis->sites[0].loc.line, 15);
    ck_assert_int_eq(pelvis->geoms[2].loc.line, 19);
    ck_assert_ptr_eq(pelvis->geoms[2].loc.file, c->path);

    // an error found after loading still names file:line:col
    c->bodies[2].mass = -1;
    salto_error err = {0};
    ck_assert_int_eq(salto_character_validate(c, &err), SALTO_ERR_INVALID);
    char msg[1024];
    salto_error_format(&err, msg, sizeof msg);
    char want[600];
    snprintf(want, sizeof want, "%s:33:11: error: mass of body 'shin'", p);
    ck_assert_msg(strncmp(msg, want, strlen(want)) == 0, "%s", msg);
    c->bodies[2].mass = 3;

    // and it saves and reads back to the same description
    char q[512];
    snprintf(q, sizeof q, "%s", tmp_path("full_saved.yaml"));
    ck_assert_int_eq(salto_character_save(c, q, &err), SALTO_OK);
    salto_character_desc* d = load_ok(q);
    assert_desc_equal(c, d);
    unlink(q);
    salto_character_destroy(d);
    salto_character_destroy(c);
    remove_tmpdir();
}
END_TEST


START_TEST(defaults) {
    make_tmpdir();
    char p[512];
    snprintf(p, sizeof p, "%s", tmp_path("min.yaml"));
    write_file(p, "name: one\n"
                  "bodies:\n"
                  "  - {name: ball, joint: {type: planar}, mass: 1, inertia: [1, 1, 1]}\n");
    salto_character_desc* c = load_ok(p);
    unlink(p);
    remove_tmpdir();
    ck_assert_int_eq(c->root_type, SALTO_ROOT_PLANAR);
    ck_assert(c->gravity[0] == 0 && c->gravity[1] == 0 && c->gravity[2] == -9.81);
    ck_assert_int_eq(c->root_rot_order[0], 1);
    ck_assert_int_eq(c->root_rot_order[1], 0);
    ck_assert_int_eq(c->root_rot_order[2], 2);
    ck_assert(c->bodies[0].joint_pos[2] == 0 && c->bodies[0].com[2] == 0);
    ck_assert_int_eq(c->bodies[0].nsite, 0);
    ck_assert_int_eq(c->bodies[0].ngeom, 0);
    salto_character_destroy(c);
}
END_TEST

// ---- checks on descriptions built in code ----

// a valid two-body description: free root and one revolute child
static salto_character_desc* two_bodies(void) {
    salto_character_desc* c = salto_character_alloc(2);
    ck_assert_ptr_nonnull(c);
    c->name = salto_strdup("two");
    for (int b = 0; b < 2; b++) {
        c->bodies[b].name = salto_strdup(b ? "child" : "root");
        c->bodies[b].mass = 1;
        for (int i = 0; i < 3; i++) c->bodies[b].inertia[4 * i] = 0.1;
    }
    c->bodies[1].parent = 0;
    ck_assert_int_eq(salto_character_set_axes(c, 1, 1), SALTO_OK);
    c->bodies[1].axes[0].name = salto_strdup("q");
    c->bodies[1].axes[0].axis[0] = 1;
    salto_error err = {0};
    ck_assert_int_eq(salto_character_validate(c, &err), SALTO_OK);
    return c;
}


static void expect_invalid(salto_character_desc* c, const char* text) {
    salto_error err = {0};
    salto_status s = salto_character_validate(c, &err);
    char msg[1024];
    salto_error_format(&err, msg, sizeof msg);
    ck_assert_msg(s == SALTO_ERR_INVALID, "expected '%s', got status %d: %s", text, s, msg);
    ck_assert_msg(strstr(msg, text), "'%s' not in: %s", text, msg);
    ck_assert_msg(strncmp(msg, "error: ", 7) == 0, "no location expected: %s", msg);
    salto_character_destroy(c);
}


START_TEST(validate_in_code) {
    salto_character_desc* c = two_bodies();
    c->bodies[1].axes[0].axis[0] = 0;
    expect_invalid(c, "axis 'q' is zero");

    c = two_bodies();
    c->bodies[1].axes[0].axis[0] = 2;
    expect_invalid(c, "not a unit vector");

    c = two_bodies();
    c->bodies[1].inertia[1] = 0.01;
    expect_invalid(c, "not symmetric");

    c = two_bodies();
    c->bodies[1].inertia[1] = c->bodies[1].inertia[3] = 0.2; // eigenvalues -0.1, 0.1, 0.3
    expect_invalid(c, "not positive definite");

    c = two_bodies();
    c->bodies[1].inertia[8] = 0.3;
    expect_invalid(c, "triangle inequality");

    c = two_bodies();
    c->bodies[1].mass = NAN;
    expect_invalid(c, "mass of body 'child' must be positive and finite");

    c = two_bodies();
    c->bodies[0].parent = 1;
    expect_invalid(c, "no root body");

    c = two_bodies();
    c->bodies[1].parent = -1;
    expect_invalid(c, "more than one root body");

    c = two_bodies();
    c->bodies[1].parent = 7;
    expect_invalid(c, "invalid parent");

    c = two_bodies();
    salto_free(c->bodies[1].name);
    c->bodies[1].name = salto_strdup("root");
    expect_invalid(c, "duplicate body name 'root'");

    c = two_bodies();
    salto_free(c->bodies[1].axes[0].name);
    c->bodies[1].axes[0].name = salto_strdup("root_ry");
    expect_invalid(c, "duplicate DOF name 'root_ry'");

    c = two_bodies();
    c->bodies[1].axes[0].has_limits = 1;
    c->bodies[1].axes[0].limits[0] = 1;
    expect_invalid(c, "min (1) is above max (0)");

    c = two_bodies();
    ck_assert_int_eq(salto_character_set_axes(c, 1, 0), SALTO_OK);
    expect_invalid(c, "body 'child' has no joint axes");

    c = two_bodies();
    ck_assert_int_eq(salto_character_set_axes(c, 0, 1), SALTO_OK);
    c->bodies[0].axes[0].name = salto_strdup("extra");
    c->bodies[0].axes[0].axis[2] = 1;
    expect_invalid(c, "the root body 'root' has 1 axes");

    c = two_bodies();
    c->root_rot_order[2] = 1;
    expect_invalid(c, "not a permutation");

    c = two_bodies();
    c->bodies[1].geoms = salto_calloc(1, sizeof(salto_geom_desc));
    c->bodies[1].ngeom = 1;
    c->bodies[1].geoms[0].shape = SALTO_GEOM_SPHERE;
    expect_invalid(c, "needs a positive radius");

    c = two_bodies();
    salto_free(c->bodies[0].name);
    c->bodies[0].name = salto_strdup("world");
    expect_invalid(c, "'world' is reserved");

    salto_error err = {0};
    ck_assert_int_eq(salto_character_validate(NULL, &err), SALTO_ERR_INVALID);
    c = salto_character_alloc(0);
    expect_invalid(c, "no bodies");
}
END_TEST


// the triangle inequality holds with equality for a thin plate and in a rotated frame
START_TEST(inertia_checks) {
    salto_character_desc* c = two_bodies();
    double* I = c->bodies[1].inertia;
    I[0] = 0.1, I[4] = 0.2, I[8] = 0.3; // plate: 0.1 + 0.2 = 0.3
    salto_error err = {0};
    ck_assert_int_eq(salto_character_validate(c, &err), SALTO_OK);

    // R diag(0.1, 0.2, 0.3) R^T for a rotation by 30 degrees about z
    const double cs = cos(0.5235987755982988), sn = sin(0.5235987755982988);
    const double d[3] = {0.1, 0.2, 0.3};
    const double R[9] = {cs, -sn, 0, sn, cs, 0, 0, 0, 1};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += R[3 * i + k] * d[k] * R[3 * j + k];
            I[3 * i + j] = s;
        }
    }
    I[3] = I[1], I[6] = I[2], I[7] = I[5];
    ck_assert_int_eq(salto_character_validate(c, &err), SALTO_OK);
    I[8] = 0.3 * (1 + 1e-6); // now violated
    expect_invalid(c, "triangle inequality");
}
END_TEST


START_TEST(alloc_and_destroy) {
    salto_character_destroy(NULL);
    ck_assert_ptr_null(salto_character_alloc(-1));
    salto_character_desc* c = salto_character_alloc(3);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->path, "");
    ck_assert_ptr_null(c->name);
    ck_assert_int_eq(c->root_type, SALTO_ROOT_FREE);
    ck_assert_int_eq(c->root_rot_order[0], 1);
    ck_assert(c->gravity[2] == -9.81);
    for (int b = 0; b < 3; b++) {
        ck_assert_int_eq(c->bodies[b].parent, -1);
        ck_assert_ptr_null(c->bodies[b].name);
        ck_assert_int_eq(c->bodies[b].naxis, 0);
    }
    ck_assert_int_eq(salto_character_set_axes(c, 1, 4), SALTO_OK);
    ck_assert_int_eq(c->bodies[1].naxis, 4);
    ck_assert_ptr_null(c->bodies[1].axes[3].name);
    c->bodies[1].axes[0].name = salto_strdup("replaced");
    ck_assert_int_eq(salto_character_set_axes(c, 1, 2), SALTO_OK); // frees the old axes
    ck_assert_int_eq(c->bodies[1].naxis, 2);
    ck_assert_int_eq(salto_character_set_axes(c, 3, 1), SALTO_ERR_INVALID);
    ck_assert_int_eq(salto_character_set_axes(NULL, 0, 1), SALTO_ERR_INVALID);
    salto_character_destroy(c);
}
END_TEST

// ---- generators ----

START_TEST(chain) {
    const int n = 7;
    salto_character_desc* c = salto_character_chain(n, 0.3, 2.0);
    ck_assert_ptr_nonnull(c);
    salto_error err = {0};
    ck_assert_int_eq(salto_character_validate(c, &err), SALTO_OK);
    ck_assert_int_eq(c->nbody, n + 1);
    ck_assert_int_eq(c->root_type, SALTO_ROOT_FIXED);
    ck_assert_str_eq(c->bodies[0].name, "base");
    ck_assert_int_eq(c->bodies[0].naxis, 0);
    static const int axis_k[3] = {1, 0, 2}; // y, x, z
    for (int i = 1; i <= n; i++) {
        const salto_body_desc* b = &c->bodies[i];
        char name[32];
        snprintf(name, sizeof name, "link%d", i);
        ck_assert_str_eq(b->name, name);
        ck_assert_int_eq(b->parent, i - 1);
        ck_assert_int_eq(b->naxis, 1);
        snprintf(name, sizeof name, "q%d", i);
        ck_assert_str_eq(b->axes[0].name, name);
        ck_assert_int_eq(b->axes[0].type, SALTO_AXIS_REVOLUTE);
        ck_assert(b->axes[0].axis[axis_k[(i - 1) % 3]] == 1.0);
        ck_assert(b->joint_pos[2] == (i == 1 ? 0.0 : -0.3));
        ck_assert(b->mass == 2.0);
        ck_assert(b->com[2] == -0.15);
        ck_assert(b->inertia[0] == 2.0 * 0.3 * 0.3 / 12);
        ck_assert(b->inertia[8] == 2.0 * 0.05 * 0.05 / 2);
        ck_assert(b->inertia[0] == b->inertia[4]);
        ck_assert(b->inertia[8] > 0 && b->inertia[8] < b->inertia[0]);
    }
    salto_character_destroy(c);

    // short links still satisfy the triangle inequality
    c = salto_character_chain(3, 0.01, 0.5);
    ck_assert_ptr_nonnull(c);
    salto_character_destroy(c);
    ck_assert_ptr_null(salto_character_chain(-1, 0.3, 1));
    ck_assert_ptr_null(salto_character_chain(3, 0, 1));
    ck_assert_ptr_null(salto_character_chain(3, 0.3, -1));
}
END_TEST


START_TEST(random_tree) {
    const unsigned seed = 17u + (unsigned)_i;
    const salto_root_type root = (salto_root_type)(_i % 3);
    const int n = 2 + _i % 25;
    salto_character_desc* c = salto_character_random_tree(n, root, seed);
    ck_assert_msg(c != NULL, "seed %u", seed);
    salto_error err = {0};
    ck_assert_int_eq(salto_character_validate(c, &err), SALTO_OK);
    ck_assert_int_eq(c->nbody, n);
    ck_assert_int_eq(c->root_type, root);
    ck_assert_int_eq(c->bodies[0].parent, -1);
    for (int i = 1; i < n; i++) {
        const salto_body_desc* b = &c->bodies[i];
        ck_assert(b->parent >= 0 && b->parent < i);
        ck_assert(b->naxis >= 1 && b->naxis <= 3);
        ck_assert(b->mass >= 0.5 && b->mass <= 5);
        ck_assert(sqrt(b->com[0] * b->com[0] + b->com[1] * b->com[1] + b->com[2] * b->com[2]) <=
                  0.3);
        char name[32];
        snprintf(name, sizeof name, "b%d_a1", i);
        ck_assert_str_eq(b->axes[0].name, name);
    }

    // deterministic in the seed
    salto_character_desc* d = salto_character_random_tree(n, root, seed);
    assert_desc_equal(c, d);
    salto_character_destroy(d);
    salto_character_destroy(c);
}
END_TEST


// large trees branch and mix prismatic and revolute axes
START_TEST(random_tree_statistics) {
    salto_character_desc* c = salto_character_random_tree(200, SALTO_ROOT_FREE, 5u);
    ck_assert_ptr_nonnull(c);
    int branch = 0, nprism = 0, naxis = 0;
    for (int i = 1; i < c->nbody; i++) {
        if (c->bodies[i].parent != i - 1) branch++;
        for (int k = 0; k < c->bodies[i].naxis; k++) {
            naxis++;
            nprism += c->bodies[i].axes[k].type == SALTO_AXIS_PRISMATIC;
        }
    }
    ck_assert_int_gt(branch, 100);
    ck_assert_int_gt(nprism, naxis / 10);
    ck_assert_int_lt(nprism, naxis * 3 / 10);
    ck_assert_ptr_null(salto_character_random_tree(0, SALTO_ROOT_FREE, 1u));
    salto_character_destroy(c);
}
END_TEST

// ---- save and load ----

START_TEST(round_trip) {
    make_tmpdir();
    char p[512];
    snprintf(p, sizeof p, "%s", tmp_path("rt.yaml"));
    salto_character_desc* c = _i == 0 ? salto_character_chain(6, 0.25, 1.5)
                                      : salto_character_random_tree(1 + _i % 30,
                                                                    (salto_root_type)(_i % 3),
                                                                    300u + (unsigned)_i);
    ck_assert_ptr_nonnull(c);
    salto_error err = {0};
    ck_assert_int_eq(salto_character_save(c, p, &err), SALTO_OK);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    ck_assert_int_ne(access(tmp, F_OK), 0); // the temporary file is gone

    salto_character_desc* d = load_ok(p);
    assert_desc_equal(c, d);

    // saving the loaded description writes the same text
    char q[512];
    snprintf(q, sizeof q, "%s", tmp_path("rt2.yaml"));
    ck_assert_int_eq(salto_character_save(d, q, &err), SALTO_OK);
    salto_character_desc* e = load_ok(q);
    assert_desc_equal(d, e);
    unlink(p);
    unlink(q);
    salto_character_destroy(e);
    salto_character_destroy(d);
    salto_character_destroy(c);
    remove_tmpdir();
}
END_TEST


// names that need quoting, an inertia that is symmetric only to 1e-9, awkward numbers
START_TEST(round_trip_awkward) {
    make_tmpdir();
    char p[512];
    snprintf(p, sizeof p, "%s", tmp_path("awkward.yaml"));
    salto_character_desc* c = two_bodies();
    salto_free(c->name);
    c->name = salto_strdup("a: \"quoted\" name, with \\ and #");
    salto_free(c->bodies[1].name);
    c->bodies[1].name = salto_strdup("null");
    salto_free(c->bodies[1].axes[0].name);
    c->bodies[1].axes[0].name = salto_strdup("1.5");
    c->bodies[1].inertia[1] = 1e-12;
    c->bodies[1].inertia[3] = 1.0000001e-12;
    c->bodies[1].com[0] = -0.0;
    c->bodies[1].com[1] = 1e-300;
    c->bodies[1].com[2] = 0.1 + 0.2;
    c->bodies[1].mass = 1.0 / 3.0;
    c->root_type = SALTO_ROOT_PLANAR;
    salto_error err = {0};
    ck_assert_int_eq(salto_character_save(c, p, &err), SALTO_OK);
    salto_character_desc* d = load_ok(p);
    assert_desc_equal(c, d);
    unlink(p);
    salto_character_destroy(d);
    salto_character_destroy(c);
    remove_tmpdir();
}
END_TEST


START_TEST(save_errors) {
    salto_character_desc* c = salto_character_chain(2, 0.3, 1.0);
    salto_error err = {0};
    ck_assert_int_eq(salto_character_save(c, "/nonexistent/dir/c.yaml", &err), SALTO_ERR_IO);
    ck_assert_msg(strstr(err.msg, "/nonexistent/dir/c.yaml"), "%s", err.msg);

    // an invalid description is not written
    make_tmpdir();
    char p[512];
    snprintf(p, sizeof p, "%s", tmp_path("bad.yaml"));
    c->bodies[1].mass = 0;
    salto_error e2 = {0};
    ck_assert_int_eq(salto_character_save(c, p, &e2), SALTO_ERR_INVALID);
    ck_assert_int_ne(access(p, F_OK), 0);
    remove_tmpdir();
    salto_character_destroy(c);
}
END_TEST

// ---- allocation failure ----

// make the n-th allocation fail, n = 1, 2, ... until loading succeeds: every failure is a
// clean SALTO_ERR_NOMEM and nothing leaks
START_TEST(load_out_of_memory) {
    make_tmpdir();
    char p[512];
    snprintf(p, sizeof p, "%s", tmp_path("full.yaml"));
    write_file(p, full_text);
    int succeeded = 0;
    long n = 1;
    for (; n < 100000 && !succeeded; n++) {
        salto_test_counter cnt = {0, 0, n};
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
        salto_set_alloc_hooks(&h);
        salto_error err = {0};
        salto_character_desc* c = salto_character_load(p, &err);
        if (c) {
            ck_assert_msg(cnt.calls < n, "allocation %ld failed, but loading succeeded", n);
            succeeded = 1;
        } else {
            ck_assert_msg(err.status == SALTO_ERR_NOMEM, "allocation %ld: status %d: %s", n,
                          err.status, err.msg);
        }
        salto_character_destroy(c);
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(cnt.live == 0, "allocation %ld: %ld blocks leaked", n, cnt.live);
    }
    ck_assert(succeeded);
    ck_assert_int_gt(n, 50); // the loop did exercise many failure points
    unlink(p);
    remove_tmpdir();
}
END_TEST


// the generators and save fail cleanly too
START_TEST(generators_out_of_memory) {
    for (int which = 0; which < 2; which++) {
        int succeeded = 0;
        for (long n = 1; n < 100000 && !succeeded; n++) {
            salto_test_counter cnt = {0, 0, n};
            salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
            salto_set_alloc_hooks(&h);
            salto_character_desc* c = which == 0 ? salto_character_chain(4, 0.3, 1.0)
                                                 : salto_character_random_tree(9, SALTO_ROOT_PLANAR, 3u);
            succeeded = c != NULL;
            if (c) ck_assert(cnt.calls < n);
            salto_character_destroy(c);
            salto_set_alloc_hooks(NULL);
            ck_assert_msg(cnt.live == 0, "generator %d, allocation %ld: %ld leaked", which, n,
                          cnt.live);
        }
        ck_assert(succeeded);
    }
}
END_TEST


Suite* character_suite(void) {
    Suite* s = suite_create("character");
    TCase* tc = tcase_create("errors");
    tcase_add_loop_test(tc, bad_file, 0, NBAD);
    tcase_add_test(tc, extends);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, validate_in_code);
    tcase_add_test(tc, inertia_checks);
    tcase_add_test(tc, save_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("loading");
    tcase_add_test(tc, full_file);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, alloc_and_destroy);
    tcase_add_test(tc, load_out_of_memory);
    tcase_add_test(tc, generators_out_of_memory);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("generators");
    tcase_add_test(tc, chain);
    tcase_add_loop_test(tc, random_tree, 0, 60);
    tcase_add_test(tc, random_tree_statistics);
    tcase_add_loop_test(tc, round_trip, 0, 40);
    tcase_add_test(tc, round_trip_awkward);
    suite_add_tcase(s, tc);
    return s;
}
