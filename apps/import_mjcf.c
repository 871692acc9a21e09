// import_mjcf.c: a character from an MJCF or URDF model, through MuJoCo's own parser and
// compiler (salto import; import.h)
//
// The compiled model (mjModel) is read at its reference configuration (qpos0): salto's q = 0 is
// MuJoCo's qpos0, each hinge's and slide's q its qpos less its reference. salto's body frames are
// parallel to the world's at q = 0 with their origins at their joints' centre, so every vector
// of the model is turned into the world's axes and measured from the joint's centre; relative
// placements are composed without passing through world positions, so that a model whose frames
// are not turned (as salto's own exports) comes back to the last bit.
#include "import.h"

#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/spatial.h"

// a name of MuJoCo's (adr into names), or "<kind><id>" when it has none, as a new string
static char* name_of(const mjModel* mm, int adr, const char* kind, int id) {
    const char* s = mm->names + adr;
    char buf[64];
    if (!*s) {
        snprintf(buf, sizeof buf, "%s%d", kind, id);
        s = buf;
    }
    return salto_strdup(s);
}


static void quat_to_m3(double* R, const mjtNum* q) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double u[4] = {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
    salto_quat_to_m3(R, u);
}


// a rotation that is a signed permutation (axes along axes), within 1e-12
static int axis_aligned(const double* R) {
    for (int i = 0; i < 9; i++) {
        const double a = fabs(R[i]);
        if (a > 1e-12 && fabs(a - 1.0) > 1e-12) return 0;
    }
    return 1;
}


typedef struct importer {
    const mjModel* mm;
    salto_import_report* rep;
    salto_error* err;
    double* R;     // each MuJoCo body's frame at qpos0 in the world's axes (nbody x 9)
    int* sbody;    // the salto body each MuJoCo body is part of (-1: the world's, welded base)
    double* org;   // each MuJoCo body's origin relative to its salto body's origin, world axes
                   //   (nbody x 3)
} importer;


static void note(salto_import_report* rep, const char* fmt, const char* a, const char* b) {
    if (rep->nnote >= SALTO_IMPORT_MAX_NOTES) {
        rep->more++;
        return;
    }
    snprintf(rep->note[rep->nnote++], sizeof rep->note[0], fmt, a, b);
}


// what salto cannot represent: tendons, equality constraints, mocap bodies
static int refuse(importer* I) {
    const mjModel* mm = I->mm;
    if (mm->ntendon > 0) {
        SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "tendon '%s': salto has no "
                   "tendons (a character is a tree of rigid bodies and joints)",
                   mm->names + mm->name_tendonadr[0]);
        return 0;
    }
    if (mm->neq > 0) {
        SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "equality constraint '%s': salto "
                   "has none (closed loops and welds between bodies cannot be represented)",
                   mm->names + mm->name_eqadr[0]);
        return 0;
    }
    if (mm->nmocap > 0) {
        for (int b = 0; b < mm->nbody; b++) {
            if (mm->body_mocapid[b] >= 0) {
                SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "body '%s' is a mocap "
                           "body: salto has none", mm->names + mm->name_bodyadr[b]);
                return 0;
            }
        }
    }
    for (int j = 0; j < mm->njnt; j++) {
        const int b = mm->jnt_bodyid[j];
        if (mm->jnt_type[j] == mjJNT_FREE && mm->body_parentid[b] != 0) {
            SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "joint '%s' is free but its "
                       "body '%s' is not a child of the world: salto's only free joint is the root's",
                       mm->names + mm->name_jntadr[j], mm->names + mm->name_bodyadr[b]);
            return 0;
        }
        if (mm->jnt_type[j] == mjJNT_FREE && mm->body_jntnum[b] > 1) {
            SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "body '%s' has a free joint "
                       "and others", mm->names + mm->name_bodyadr[b]);
            return 0;
        }
    }
    return 1;
}


// the root's kind from the world's jointed children: a free root (one child, a free joint, or
// three slides along x, y, z then three hinges along distinct axes, all at one centre, as salto
// exports a free root), planar (slides along x and z, a hinge along y), else fixed (a welded
// base, the world's own bodies, carrying every jointed child). *top: the root's MuJoCo body.
static salto_root_type root_kind(const importer* I, int* top, int order[3]) {
    const mjModel* mm = I->mm;
    int n = 0, child = -1;
    for (int b = 1; b < mm->nbody; b++) {
        if (mm->body_parentid[b] == 0 && mm->body_jntnum[b] > 0) n++, child = b;
    }
    *top = -1;
    if (n != 1) return SALTO_ROOT_FIXED;
    const int j0 = mm->body_jntadr[child], nj = mm->body_jntnum[child];
    if (nj == 1 && mm->jnt_type[j0] == mjJNT_FREE) {
        *top = child;
        order[0] = 1, order[1] = 0, order[2] = 2; // salto's default, y x z
        return SALTO_ROOT_FREE;
    }
    const double* R = I->R + 9 * child;
    double ax[6][3];
    for (int k = 0; k < nj && k < 6; k++) {
        salto_m3_mul_v3(ax[k], R, mm->jnt_axis + 3 * (j0 + k));
        // all at the body's origin
        const mjtNum* p = mm->jnt_pos + 3 * (j0 + k);
        if (p[0] != 0.0 || p[1] != 0.0 || p[2] != 0.0) return SALTO_ROOT_FIXED;
    }
    // which coordinate axis a unit vector is (exactly), or -1
    int which[6];
    for (int k = 0; k < nj && k < 6; k++) {
        which[k] = -1;
        for (int a = 0; a < 3; a++) {
            if (ax[k][a] == 1.0 && ax[k][(a + 1) % 3] == 0.0 && ax[k][(a + 2) % 3] == 0.0) which[k] = a;
        }
    }
    if (nj == 6) {
        int ok = 1;
        for (int k = 0; k < 3; k++) ok &= mm->jnt_type[j0 + k] == mjJNT_SLIDE && which[k] == k;
        for (int k = 3; k < 6; k++) ok &= mm->jnt_type[j0 + k] == mjJNT_HINGE && which[k] >= 0;
        ok &= nj == 6 && which[3] != which[4] && which[3] != which[5] && which[4] != which[5];
        if (ok) {
            *top = child;
            for (int k = 0; k < 3; k++) order[k] = which[3 + k];
            return SALTO_ROOT_FREE;
        }
    }
    if (nj == 3 && mm->jnt_type[j0] == mjJNT_SLIDE && which[0] == 0 &&
        mm->jnt_type[j0 + 1] == mjJNT_SLIDE && which[1] == 2 && mm->jnt_type[j0 + 2] == mjJNT_HINGE &&
        which[2] == 1) {
        *top = child;
        return SALTO_ROOT_PLANAR;
    }
    return SALTO_ROOT_FIXED;
}


// the place of body b's joints' centre relative to its own origin, in its frame (the joints of
// one body must share it); 0 with err filled when they do not
static int joint_centre(importer* I, int b, double c[3]) {
    const mjModel* mm = I->mm;
    const int j0 = mm->body_jntadr[b], nj = mm->body_jntnum[b];
    c[0] = c[1] = c[2] = 0.0;
    if (nj <= 0) return 1;
    int have = 0, first = -1; // the first turning joint sets the centre, the others must share it
    for (int k = 0; k < nj; k++) {
        const mjtNum* p = mm->jnt_pos + 3 * (j0 + k);
        if (mm->jnt_type[j0 + k] == mjJNT_SLIDE) continue; // (a slide's place does not matter)
        if (!have) {
            memcpy(c, p, 3 * sizeof(double));
            have = 1, first = j0 + k;
            continue;
        }
        if (fabs(p[0] - c[0]) + fabs(p[1] - c[1]) + fabs(p[2] - c[2]) > 1e-12) {
            SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "body '%s': its joints '%s' "
                       "and '%s' turn about different centres; salto's joints of one body share "
                       "one (nest a body for each)", mm->names + mm->name_bodyadr[b],
                       mm->names + mm->name_jntadr[first], mm->names + mm->name_jntadr[j0 + k]);
            return 0;
        }
    }
    return 1;
}


// adds MuJoCo body b's mass, inertia, geometry and sites to salto body s at offset o (b's
// origin from s's, world axes) and rotation R (b's frame)
static int add_parts(importer* I, salto_body_desc* s, int b, const double* o, const double* R) {
    const mjModel* mm = I->mm;
    // mass: lumped about the common centre (parallel axes)
    const double mb = mm->body_mass[b];
    if (mb > 0.0) {
        double Ri[9], Rq[9], c[3], Ib[9], tmp[9];
        quat_to_m3(Rq, mm->body_iquat + 4 * b);
        salto_m3_mul(Ri, R, Rq);
        salto_m3_mul_v3(c, R, mm->body_ipos + 3 * b);
        for (int k = 0; k < 3; k++) c[k] += o[k];
        const mjtNum* d = mm->body_inertia + 3 * b;
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) tmp[3 * i + j] = Ri[3 * i + j] * d[j];
        }
        salto_m3_mul_t(Ib, tmp, Ri); // Ri diag Ri'
        if (Ri[1] == 0.0 && Ri[2] == 0.0 && Ri[3] == 0.0 && Ri[5] == 0.0 && Ri[6] == 0.0 && Ri[7] == 0.0) {
            for (int i = 0; i < 9; i++) Ib[i] = i % 4 == 0 ? d[i / 4] * Ri[i] * Ri[i] : 0.0;
        }
        if (s->mass == 0.0) {
            s->mass = mb;
            memcpy(s->com, c, sizeof s->com);
            memcpy(s->inertia, Ib, sizeof s->inertia);
        } else { // both about the new centre
            const double M = s->mass + mb;
            double cn[3];
            for (int k = 0; k < 3; k++) cn[k] = (s->mass * s->com[k] + mb * c[k]) / M;
            const double* cs[2] = {s->com, c};
            const double ms[2] = {s->mass, mb};
            double* Is[2] = {s->inertia, Ib};
            double In[9] = {0};
            for (int t = 0; t < 2; t++) {
                const double dv[3] = {cs[t][0] - cn[0], cs[t][1] - cn[1], cs[t][2] - cn[2]};
                const double dd = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        In[3 * i + j] += Is[t][3 * i + j] + ms[t] * ((i == j ? dd : 0.0) - dv[i] * dv[j]);
                    }
                }
            }
            s->mass = M;
            memcpy(s->com, cn, sizeof cn);
            memcpy(s->inertia, In, sizeof In);
        }
    }
    // geometry
    for (int g = mm->body_geomadr[b]; g >= 0 && g < mm->body_geomadr[b] + mm->body_geomnum[b]; g++) {
        const int type = mm->geom_type[g];
        char* gname = name_of(mm, mm->name_geomadr[g], "geom", g);
        if (!gname) return 0;
        if (type == mjGEOM_PLANE) {
            note(I->rep, "geom '%s' is a plane: left out (a problem's ground is its own)%s", gname, "");
            salto_free(gname);
            continue;
        }
        double Rg[9], Rq[9], x[3];
        quat_to_m3(Rq, mm->geom_quat + 4 * g);
        salto_m3_mul(Rg, R, Rq);
        salto_m3_mul_v3(x, R, mm->geom_pos + 3 * g);
        for (int k = 0; k < 3; k++) x[k] += o[k];
        const mjtNum* sz = mm->geom_size + 3 * g;
        salto_geom_desc gd;
        memset(&gd, 0, sizeof gd);
        int keep = 1;
        if (type == mjGEOM_SPHERE) {
            gd.shape = SALTO_GEOM_SPHERE, gd.radius = sz[0];
            memcpy(gd.a, x, sizeof gd.a);
        } else if (type == mjGEOM_CAPSULE) {
            // MuJoCo's fromto: the geom's z axis from "to" to "from", sz[1] the half length; the
            // rounding its quaternion leaves across the axis (below 1e-15 of the capsule's
            // scale) taken off
            gd.shape = SALTO_GEOM_CAPSULE, gd.radius = sz[0];
            const double scale = sz[1] + fabs(x[0]) + fabs(x[1]) + fabs(x[2]);
            for (int k = 0; k < 3; k++) {
                gd.a[k] = x[k] + sz[1] * Rg[3 * k + 2], gd.b[k] = x[k] - sz[1] * Rg[3 * k + 2];
                if (fabs(gd.a[k]) < 1e-15 * scale) gd.a[k] = 0.0;
                if (fabs(gd.b[k]) < 1e-15 * scale) gd.b[k] = 0.0;
            }
        } else if (type == mjGEOM_BOX && axis_aligned(Rg)) {
            gd.shape = SALTO_GEOM_BOX;
            memcpy(gd.a, x, sizeof gd.a);
            for (int k = 0; k < 3; k++) { // the world axis k lies along the box's axis j
                for (int j = 0; j < 3; j++) {
                    if (fabs(Rg[3 * k + j]) > 0.5) gd.b[k] = sz[j];
                }
            }
        } else {
            static const char* const kinds[] = {"a plane", "a height field", "a sphere", "a capsule",
                                                "an ellipsoid", "a cylinder", "a turned box", "a mesh"};
            note(I->rep, "geom '%s' is %s: left out (salto's shapes are spheres, capsules and "
                         "boxes along the body's axes)", gname, type >= 0 && type < 8 ? kinds[type] : "?");
            keep = 0;
        }
        salto_free(gname);
        if (!keep) continue;
        size_t cap = (size_t)s->ngeom; // (the room is at least the count: grown as needed)
        if (salto_grow((void**)&s->geoms, &cap, (size_t)s->ngeom + 1, sizeof gd) != 0) return 0;
        s->geoms[s->ngeom++] = gd;
    }
    // sites
    for (int st = 0; st < mm->nsite; st++) {
        if (mm->site_bodyid[st] != b) continue;
        salto_site_desc sd;
        memset(&sd, 0, sizeof sd);
        salto_m3_mul_v3(sd.pos, R, mm->site_pos + 3 * st);
        for (int k = 0; k < 3; k++) sd.pos[k] += o[k];
        sd.name = name_of(mm, mm->name_siteadr[st], "site", st);
        size_t cap = (size_t)s->nsite;
        if (!sd.name || salto_grow((void**)&s->sites, &cap, (size_t)s->nsite + 1, sizeof sd) != 0) {
            salto_free(sd.name);
            return 0;
        }
        s->sites[s->nsite++] = sd;
    }
    return 1;
}


// body b's joints as salto axes of salto body s (R: b's frame)
static int add_axes(importer* I, salto_body_desc* s, int b, const double* R) {
    const mjModel* mm = I->mm;
    const int j0 = mm->body_jntadr[b], nj = mm->body_jntnum[b];
    int na = 0;
    for (int k = 0; k < nj; k++) na += mm->jnt_type[j0 + k] == mjJNT_BALL ? 3 : 1;
    s->axes = salto_calloc((size_t)na, sizeof *s->axes);
    if (!s->axes) return 0;
    s->naxis = na;
    int a = 0;
    for (int k = 0; k < nj; k++) {
        const int j = j0 + k, type = mm->jnt_type[j];
        char* jname = name_of(mm, mm->name_jntadr[j], "joint", j);
        if (!jname) return 0;
        const int d = mm->jnt_dofadr[j];
        for (int t = 0; t < (type == mjJNT_BALL ? 3 : 1); t++) {
            if (mm->dof_armature[d + t] != 0.0 || mm->dof_damping[d + t] != 0.0 ||
                mm->dof_frictionloss[d + t] != 0.0) {
                note(I->rep, "joint '%s': its armature, damping and friction loss are left out "
                             "(salto's joints have none)%s", jname, "");
                break;
            }
        }
        if (mm->jnt_stiffness[j] != 0.0) {
            note(I->rep, "joint '%s': its stiffness is left out (salto's joints have no springs)%s", jname, "");
        }
        salto_axis_desc* ax = s->axes + a;
        if (type == mjJNT_FREE) { // (the root's is the root's own: this one is beside it)
            SALTO_FAIL(I->err, SALTO_ERR_INVALID, salto_loc_none(), "joint '%s' is free but its body "
                       "'%s' is not the character's root (the world holds more than one moving "
                       "body: salto's character is one tree with one free root)", jname,
                       mm->names + mm->name_bodyadr[b]);
            salto_free(jname);
            return -1;
        }
        if (type == mjJNT_BALL) {
            static const char* const sfx[3] = {"_x", "_y", "_z"};
            for (int t = 0; t < 3; t++) {
                char buf[300];
                snprintf(buf, sizeof buf, "%s%s", jname, sfx[t]);
                ax[t].name = salto_strdup(buf);
                ax[t].type = SALTO_AXIS_REVOLUTE;
                for (int c = 0; c < 3; c++) ax[t].axis[c] = R[3 * c + t]; // the body's axis t
                if (!ax[t].name) {
                    salto_free(jname);
                    return 0;
                }
            }
            note(I->rep, "joint '%s' is a ball: three hinges about the body's x, y and z axes "
                         "(%s_x, _y, _z; the same dynamics, angles for a quaternion)", jname, jname);
            if (mm->jnt_limited[j]) {
                note(I->rep, "joint '%s': its cone limit is left out (salto's limits are per "
                             "axis)%s", jname, "");
            }
            a += 3;
            salto_free(jname);
            continue;
        }
        ax->name = jname;
        ax->type = type == mjJNT_SLIDE ? SALTO_AXIS_PRISMATIC : SALTO_AXIS_REVOLUTE;
        salto_m3_mul_v3(ax->axis, R, mm->jnt_axis + 3 * j);
        const double q0 = mm->qpos0[mm->jnt_qposadr[j]];
        if (mm->jnt_limited[j]) {
            ax->has_limits = 1;
            ax->limits[0] = mm->jnt_range[2 * j] - q0, ax->limits[1] = mm->jnt_range[2 * j + 1] - q0;
        }
        if (q0 != 0.0) {
            char v[40];
            snprintf(v, sizeof v, "%.9g", q0);
            note(I->rep, "joint '%s': its reference (qpos0 %s) is salto's q = 0; salto's q is "
                         "MuJoCo's less it", jname, v);
        }
        a++;
    }
    return 1;
}


// a name made unique among the n names so far (*name replaced by "NAME_2", "NAME_3", ...);
// 0 when memory runs out
static int make_unique(char** name, char* const* names, int n) {
    int taken = 0;
    for (int i = 0; i < n && !taken; i++) taken = names[i] && strcmp(names[i], *name) == 0;
    for (int k = 2; taken; k++) {
        char buf[320];
        snprintf(buf, sizeof buf, "%s_%d", *name, k);
        taken = 0;
        for (int i = 0; i < n && !taken; i++) taken = names[i] && strcmp(names[i], buf) == 0;
        if (!taken) {
            char* nn = salto_strdup(buf);
            if (!nn) return 0;
            salto_free(*name);
            *name = nn;
        }
    }
    return 1;
}


// the bodies', DOFs' and sites' names unique, each kind among itself (names made up for unnamed
// elements, and a ball's NAME_x, can meet the model's own); 0 when memory runs out
static int unique_names(salto_character_desc* c) {
    int nd = 0, nsi = 0;
    for (int b = 0; b < c->nbody; b++) nd += c->bodies[b].naxis, nsi += c->bodies[b].nsite;
    char** bodies = salto_calloc((size_t)c->nbody + 1, sizeof(char*));
    char** dofs = salto_calloc((size_t)nd + 1, sizeof(char*));
    char** sites = salto_calloc((size_t)nsi + 1, sizeof(char*));
    int ok = bodies && dofs && sites, kd = 0, ks = 0;
    for (int b = 0; ok && b < c->nbody; b++) {
        salto_body_desc* bd = c->bodies + b;
        ok = make_unique(&bd->name, bodies, b);
        bodies[b] = bd->name;
        for (int a = 0; ok && a < bd->naxis; a++) {
            ok = make_unique(&bd->axes[a].name, dofs, kd);
            dofs[kd++] = bd->axes[a].name;
        }
        for (int t = 0; ok && t < bd->nsite; t++) {
            ok = make_unique(&bd->sites[t].name, sites, ks);
            sites[ks++] = bd->sites[t].name;
        }
    }
    salto_free(bodies), salto_free(dofs), salto_free(sites);
    return ok;
}


salto_character_desc* salto_import_model(const char* path, salto_import_report* rep,
                                         salto_error* err) {
    memset(rep, 0, sizeof *rep);
    char mjerr[1000] = "";
    mjModel* mm = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
    if (!mm) {
        const salto_src_loc l = {path, 0, 0};
        for (char* c = mjerr; *c; c++) {
            if (*c == '\n') *c = ' ';
        }
        SALTO_FAIL(err, SALTO_ERR_INVALID, l, "MuJoCo cannot read it: %s", mjerr);
        return NULL;
    }
    importer I = {mm, rep, err, NULL, NULL, NULL};
    salto_character_desc* c = NULL;
    I.R = salto_calloc((size_t)mm->nbody * 9, sizeof(double));
    I.sbody = salto_calloc((size_t)mm->nbody, sizeof(int));
    I.org = salto_calloc((size_t)mm->nbody * 3, sizeof(double));
    if (!I.R || !I.sbody || !I.org) goto nomem;
    if (!refuse(&I)) goto fail;
    // every body's frame at qpos0 in the world's axes
    I.R[0] = I.R[4] = I.R[8] = 1.0;
    for (int b = 1; b < mm->nbody; b++) {
        double Rq[9];
        quat_to_m3(Rq, mm->body_quat + 4 * b);
        salto_m3_mul(I.R + 9 * b, I.R + 9 * mm->body_parentid[b], Rq);
    }
    int top = -1, order[3] = {1, 0, 2};
    const salto_root_type rt = root_kind(&I, &top, order);
    // the welded base of a fixed root: the world's one child when it has no joints (as salto
    // exports a fixed root), else the world itself with its jointless bodies
    int base = 0;
    if (rt == SALTO_ROOT_FIXED) {
        int nchild = 0, only = -1;
        for (int b = 1; b < mm->nbody; b++) {
            if (mm->body_parentid[b] == 0) nchild++, only = b;
        }
        if (nchild == 1 && mm->body_jntnum[only] == 0) base = only;
        top = base;
    }
    // the salto bodies: the root, then each jointed MuJoCo body; jointless ones join their
    // parent's (the world's left out with a free or planar root)
    int ns = 1;
    for (int b = 1; b < mm->nbody; b++) ns += b != top && mm->body_jntnum[b] > 0;
    c = salto_character_alloc(ns);
    if (!c) goto nomem;
    c->root_type = rt;
    memcpy(c->root_rot_order, order, sizeof order);
    for (int k = 0; k < 3; k++) c->gravity[k] = mm->opt.gravity[k];
    c->name = salto_strdup(mm->names[0] ? mm->names : "imported");
    if (!c->name) goto nomem;
    for (int b = 0; b < mm->nbody; b++) I.sbody[b] = -1;
    I.sbody[top] = 0;
    {
        salto_body_desc* r = c->bodies;
        r->parent = -1;
        // (MuJoCo's world body as the welded base: "base", or "base2", ... when a body has that
        // name; salto reserves "world")
        if (top == 0) {
            char nm[32] = "base";
            for (int k = 2; mj_name2id(mm, mjOBJ_BODY, nm) >= 0; k++) snprintf(nm, sizeof nm, "base%d", k);
            r->name = salto_strdup(nm);
        } else {
            r->name = name_of(mm, mm->name_bodyadr[top], "body", top);
        }
        if (!r->name) goto nomem;
        if (top > 0) { // its place in the world (the root's joints at its origin)
            salto_m3_mul_v3(r->joint_pos, I.R + 9 * mm->body_parentid[top], mm->body_pos + 3 * top);
        }
    }
    int next = 1;
    for (int b = 1; b < mm->nbody; b++) {
        if (b == top) continue;
        const int p = mm->body_parentid[b];
        const double* R = I.R + 9 * b;
        const double* Rp = I.R + 9 * p;
        double x[3]; // b's origin from its parent salto body's origin, world axes
        salto_m3_mul_v3(x, Rp, mm->body_pos + 3 * b);
        for (int k = 0; k < 3; k++) x[k] += I.org[3 * p + k];
        if (mm->body_jntnum[b] == 0) {
            I.sbody[b] = I.sbody[p];
            memcpy(I.org + 3 * b, x, sizeof x);
            if (I.sbody[b] < 0 || (p == 0 && rt != SALTO_ROOT_FIXED)) {
                I.sbody[b] = -1;
                char* bn = name_of(mm, mm->name_bodyadr[b], "body", b);
                note(rep, "body '%s' is fixed to the world: left out (a problem's boxes and bars "
                          "are its own)%s", bn ? bn : "?", "");
                salto_free(bn);
            }
            continue;
        }
        if (p != top && I.sbody[p] < 0 && p != 0) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "body '%s' moves on a body fixed "
                       "to the world beside the character: salto's character is one tree",
                       mm->names + mm->name_bodyadr[b]);
            goto fail;
        }
        double cb[3], rc[3];
        if (!joint_centre(&I, b, cb)) goto fail;
        salto_m3_mul_v3(rc, R, cb);
        salto_body_desc* s = c->bodies + next;
        I.sbody[b] = next;
        s->parent = p == 0 ? 0 : I.sbody[p];
        for (int k = 0; k < 3; k++) s->joint_pos[k] = x[k] + rc[k], I.org[3 * b + k] = -rc[k];
        s->name = name_of(mm, mm->name_bodyadr[b], "body", b);
        if (!s->name) goto nomem;
        const int ax = add_axes(&I, s, b, R);
        if (ax < 0) goto fail;
        if (ax == 0) goto nomem;
        next++;
    }
    // masses, geometry and sites: each MuJoCo body's into its salto body
    if (!(rt == SALTO_ROOT_FIXED && base == 0)) { // the world's own shapes: not the character's
        for (int g = mm->body_geomadr[0]; g >= 0 && g < mm->body_geomadr[0] + mm->body_geomnum[0]; g++) {
            if (mm->geom_type[g] == mjGEOM_PLANE) continue;
            char* gname = name_of(mm, mm->name_geomadr[g], "geom", g);
            note(rep, "geom '%s' belongs to the world: left out (a problem's boxes and bars are "
                      "its own)%s", gname ? gname : "?", "");
            salto_free(gname);
        }
    }
    for (int b = (rt == SALTO_ROOT_FIXED && base == 0) ? 0 : 1; b < mm->nbody; b++) {
        if (I.sbody[b] < 0) continue;
        if (!add_parts(&I, c->bodies + I.sbody[b], b, I.org + 3 * b, I.R + 9 * b)) goto nomem;
    }
    if (rt == SALTO_ROOT_FIXED && !(c->bodies[0].mass > 0.0)) {
        // a welded base's mass moves nothing: one kilogram, for the character file
        c->bodies[0].mass = 1.0;
        for (int k = 0; k < 9; k++) c->bodies[0].inertia[k] = k % 4 == 0 ? 0.01 : 0.0;
        note(rep, "the welded base '%s' has no mass in the model: given 1 kg (a body fixed to "
                  "the world does not move, so it changes nothing)%s", c->bodies[0].name, "");
    }
    for (int s = 0; s < c->nbody; s++) {
        if (!(c->bodies[s].mass > 0.0)) {
            SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(), "body '%s' has no mass in the "
                       "model: salto's moving bodies need mass (give it an <inertial>)",
                       c->bodies[s].name);
            goto fail;
        }
    }
    if (!unique_names(c)) goto nomem;
    if (salto_character_validate(c, err) != SALTO_OK) {
        // (the description has no file: the model's named instead)
        snprintf(err->file_buf, sizeof err->file_buf, "%s", path);
        err->where.file = err->file_buf, err->where.line = 0, err->where.col = 0;
        goto fail;
    }
    salto_free(I.R), salto_free(I.sbody), salto_free(I.org);
    mj_deleteModel(mm);
    return c;
nomem:
    SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory");
fail:
    salto_character_destroy(c);
    salto_free(I.R), salto_free(I.sbody), salto_free(I.org);
    mj_deleteModel(mm);
    return NULL;
}
