// export.c: characters for other tools: MuJoCo's MJCF and URDF (export.h)
//
// MJCF: one MuJoCo body per salto body, its joints the body's chain of one-DOF links in order
// (MuJoCo composes a body's joints in the order listed, as salto's chain does), so that the
// exported model has salto's coordinates one for one: nq = nv = salto's nv, the root as three
// slides and three hinges (not a quaternion free joint), q and qd interchangeable. URDF: one
// joint per DOF, a massless link between the joints of a multi-DOF chain, the root's chain
// hung from a link "world".
#include "salto/export.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "linalg.h"
#include "salto/atomic.h"
#include "salto/spatial.h"

// roll, pitch, yaw (URDF: R = Rz(yaw) Ry(pitch) Rx(roll)) of R
static void rpy_of(const double R[9], double rpy[3]) {
    rpy[1] = atan2(-R[6], sqrt(R[0] * R[0] + R[3] * R[3]));
    if (fabs(cos(rpy[1])) < 1e-12) { // gimbal lock: yaw 0
        rpy[2] = 0.0;
        rpy[0] = atan2(-R[5], R[4]);
    } else {
        rpy[2] = atan2(R[3], R[0]);
        rpy[0] = atan2(R[7], R[8]);
    }
}


static int is_identity(const double R[9]) {
    for (int i = 0; i < 9; i++) {
        if (fabs(R[i] - (i % 4 == 0 ? 1.0 : 0.0)) > 1e-12) return 0;
    }
    return 1;
}


// a name safe inside an XML attribute (no quotes, angle brackets, ampersands: '_')
static void put_name(FILE* f, const char* s) {
    for (; *s; s++) fputc(strchr("\"'<>&", *s) || (unsigned char)*s < ' ' ? '_' : *s, f);
}


static void indent(FILE* f, int n) {
    for (int i = 0; i < n; i++) fputs("  ", f);
}


// the first and last link of body k's chain (-1 for a welded body)
static void chain(const salto_model* m, int k, int* first, int* last) {
    *first = *last = -1;
    for (int l = 0; l < m->nv; l++) {
        if (m->link_body[l] != k) continue;
        if (*first < 0) *first = l;
        *last = l;
    }
}


salto_status salto_export_check(const salto_model* m, salto_error* err) {
    for (int k = 0; k < m->nbody; k++) {
        int first, last;
        chain(m, k, &first, &last);
        for (int l = first + 1; first >= 0 && l <= last; l++) {
            if (m->link_tree_rot[l] || m->link_offset[l]) {
                return SALTO_FAIL(err, SALTO_ERR_INVALID, salto_loc_none(),
                                  "body '%s': its DOF '%s' is not at the joint centre of the "
                                  "DOF before it; MJCF's joints of one body share its frame",
                                  m->body_name[k], m->link_name[l]);
            }
        }
    }
    return SALTO_OK;
}


// Link l's frame at q = 0 relative to its parent's frame: its tree transform, except for the
// first link of a body hanging from a body welded to the world (its tree transform is then in
// world coordinates, the welded body's frame at body_world): R_w' (r - p_w), R_w' R_tree
static void link_frame(const salto_model* m, int l, double r[3], double R[9]) {
    const double* rt = m->link_rtree + 3 * l;
    const double* Rt = m->link_Rtree + 9 * l;
    const int k = m->link_body[l], pb = m->body_parent[k];
    if (m->link_parent[l] >= 0 || pb < 0 || m->body_link[pb] >= 0) {
        memcpy(r, rt, 3 * sizeof(double)), memcpy(R, Rt, 9 * sizeof(double));
        return;
    }
    const double* Rw = m->body_world + 12 * pb;
    const double* pw = Rw + 9;
    const double d[3] = {rt[0] - pw[0], rt[1] - pw[1], rt[2] - pw[2]};
    salto_m3t_mul_v3(r, Rw, d);
    salto_m3t_mul(R, Rw, Rt);
}


// the principal axes of a link's inertia about its centre (the 6 of link_inertia: xx yy zz xy
// xz yz): the quaternion of the axes in the link's frame and the moments (MJCF's inertial
// quat and diaginertia, exact to rounding: MuJoCo's own diagonalisation of a fullinertia is
// good to about 1e-6 rad)
static void principal(const double* I6, double q[4], double e[3]) {
    if (I6[3] == 0.0 && I6[4] == 0.0 && I6[5] == 0.0) { // principal already
        q[0] = 1.0, q[1] = q[2] = q[3] = 0.0;
        e[0] = I6[0], e[1] = I6[1], e[2] = I6[2];
        return;
    }
    const double S[9] = {I6[0], I6[3], I6[4], I6[3], I6[1], I6[5], I6[4], I6[5], I6[2]};
    double V[9];
    salto_sym3_eigen(S, e, V);
    salto_m3_to_quat(q, V);
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= n;
}


// ---- MJCF ----

static void mjcf_body(FILE* f, const salto_model* m, int k, int depth) {
    int first, last;
    chain(m, k, &first, &last);
    indent(f, depth);
    fputs("<body name=\"", f);
    put_name(f, m->body_name[k]);
    // the body's frame in its parent's: its first link's at q = 0, or for a body welded to the
    // world its place there (its geometry and sites are in its own frame)
    double r[3], R[9], q[4];
    if (first >= 0) {
        link_frame(m, first, r, R);
    } else {
        memcpy(R, m->body_world + 12 * k, 9 * sizeof(double));
        memcpy(r, m->body_world + 12 * k + 9, 3 * sizeof(double));
    }
    salto_m3_to_quat(q, R);
    fprintf(f, "\" pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\">\n", r[0], r[1], r[2],
            q[0], q[1], q[2], q[3]);
    for (int l = first; first >= 0 && l <= last; l++) {
        const double* a = m->link_axis + 3 * l;
        indent(f, depth + 1);
        fprintf(f, "<joint name=\"");
        put_name(f, m->link_name[l]);
        fprintf(f, "\" type=\"%s\" axis=\"%.17g %.17g %.17g\"",
                m->link_type[l] == SALTO_AXIS_PRISMATIC ? "slide" : "hinge", a[0], a[1], a[2]);
        if (m->link_has_limits[l]) {
            fprintf(f, " limited=\"true\" range=\"%.17g %.17g\"", m->link_limits[2 * l],
                    m->link_limits[2 * l + 1]);
        } else {
            fputs(" limited=\"false\"", f);
        }
        fputs("/>\n", f);
    }
    if (last >= 0 && m->link_massive[last]) {
        const double* I = m->link_inertia + 10 * last;
        double iq[4], ie[3];
        principal(I + 4, iq, ie);
        indent(f, depth + 1);
        fprintf(f, "<inertial pos=\"%.17g %.17g %.17g\" mass=\"%.17g\" quat=\"%.17g %.17g %.17g %.17g\" "
                   "diaginertia=\"%.17g %.17g %.17g\"/>\n",
                I[1], I[2], I[3], I[0], iq[0], iq[1], iq[2], iq[3], ie[0], ie[1], ie[2]);
    }
    for (int g = 0; g < m->ngeom; g++) {
        if (m->geom_body[g] != k) continue;
        const double* gd = m->geom_data + 7 * g;
        indent(f, depth + 1);
        switch (m->geom_shape[g]) {
        case SALTO_GEOM_CAPSULE:
            fprintf(f, "<geom type=\"capsule\" fromto=\"%.17g %.17g %.17g %.17g %.17g %.17g\" "
                       "size=\"%.17g\"/>\n",
                    gd[0], gd[1], gd[2], gd[3], gd[4], gd[5], gd[6]);
            break;
        case SALTO_GEOM_SPHERE:
            fprintf(f, "<geom type=\"sphere\" pos=\"%.17g %.17g %.17g\" size=\"%.17g\"/>\n", gd[0],
                    gd[1], gd[2], gd[6]);
            break;
        default:
            fprintf(f, "<geom type=\"box\" pos=\"%.17g %.17g %.17g\" size=\"%.17g %.17g %.17g\"/>\n",
                    gd[0], gd[1], gd[2], gd[3], gd[4], gd[5]);
        }
    }
    for (int s = 0; s < m->nsite; s++) {
        if (m->site_body[s] != k) continue;
        const double* x = m->site_pos + 3 * s;
        indent(f, depth + 1);
        fputs("<site name=\"", f);
        put_name(f, m->site_name[s]);
        fprintf(f, "\" pos=\"%.17g %.17g %.17g\" size=\"0.01\"/>\n", x[0], x[1], x[2]);
    }
    for (int c = k + 1; c < m->nbody; c++) {
        if (m->body_parent[c] == k) mjcf_body(f, m, c, depth + 1);
    }
    indent(f, depth);
    fputs("</body>\n", f);
}


salto_status salto_export_mjcf(const salto_model* m, const char* path, salto_error* err) {
    salto_status s = salto_export_check(m, err);
    if (s) return s;
    salto_atomic a;
    if ((s = salto_atomic_open(&a, path, 1, err))) return s;
    FILE* f = a.f;
    fputs("<!-- written by salto export: one body per salto body, its joints the body's DOFs in\n"
          "     order (q and qd are salto's, one for one); a floor plane at z = 0 -->\n", f);
    fputs("<mujoco model=\"", f);
    put_name(f, m->name);
    fputs("\">\n  <compiler angle=\"radian\" inertiafromgeom=\"false\" autolimits=\"false\"/>\n", f);
    fprintf(f, "  <option timestep=\"0.001\" gravity=\"%.17g %.17g %.17g\" integrator=\"Euler\"/>\n",
            m->gravity[0], m->gravity[1], m->gravity[2]);
    fputs("  <worldbody>\n    <geom name=\"floor\" type=\"plane\" size=\"20 20 0.1\"/>\n", f);
    for (int k = 0; k < m->nbody; k++) {
        if (m->body_parent[k] < 0) mjcf_body(f, m, k, 2);
    }
    fputs("  </worldbody>\n</mujoco>\n", f);
    return salto_atomic_commit(&a, err);
}


// ---- URDF ----

// the links between the DOFs of a multi-DOF joint carry this much (salto's are massless)
static const double urdf_token_mass = 1e-6, urdf_token_inertia = 1e-9;

// the URDF link that link l's joint moves: the body's name for its last link, else a massless
// link between two DOFs of a chain
static void urdf_link_name(FILE* f, const salto_model* m, int l) {
    int first, last;
    chain(m, m->link_body[l], &first, &last);
    put_name(f, m->body_name[m->link_body[l]]);
    if (l != last) {
        fputs("__", f);
        put_name(f, m->link_name[l]);
    }
}

static void urdf_parent_name(FILE* f, const salto_model* m, int l) {
    const int p = m->link_parent[l];
    if (p < 0) {
        // the root's parent: the world, or a welded root body
        const int k = m->link_body[l];
        const int pb = m->body_parent[k];
        if (pb >= 0 && m->body_link[pb] < 0) {
            put_name(f, m->body_name[pb]);
        } else {
            fputs("world", f);
        }
        return;
    }
    urdf_link_name(f, m, p);
}


static void urdf_geometry(FILE* f, const salto_model* m, int g, const char* tag) {
    const double* gd = m->geom_data + 7 * g;
    if (m->geom_shape[g] == SALTO_GEOM_SPHERE || m->geom_shape[g] == SALTO_GEOM_BOX) {
        fprintf(f, "    <%s><origin xyz=\"%.17g %.17g %.17g\"/><geometry>", tag, gd[0], gd[1], gd[2]);
        if (m->geom_shape[g] == SALTO_GEOM_SPHERE) {
            fprintf(f, "<sphere radius=\"%.17g\"/>", gd[6]);
        } else {
            fprintf(f, "<box size=\"%.17g %.17g %.17g\"/>", 2 * gd[3], 2 * gd[4], 2 * gd[5]);
        }
        fprintf(f, "</geometry></%s>\n", tag);
        return;
    }
    // a capsule: URDF has none; a cylinder between the ends and a sphere on each
    const double d[3] = {gd[3] - gd[0], gd[4] - gd[1], gd[5] - gd[2]};
    const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const double c[3] = {0.5 * (gd[0] + gd[3]), 0.5 * (gd[1] + gd[4]), 0.5 * (gd[2] + gd[5])};
    // the rotation taking z to d: about z x d (x when they are parallel) by the angle between
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (len > 0.0) {
        const double sn = sqrt(d[0] * d[0] + d[1] * d[1]) / len, cs = d[2] / len;
        const double ax[3] = {sn > 1e-12 ? -d[1] / (sn * len) : 1.0, sn > 1e-12 ? d[0] / (sn * len) : 0.0, 0.0};
        salto_m3_axis_angle(R, ax, atan2(sn, cs));
    }
    double rpy[3];
    rpy_of(R, rpy);
    fprintf(f, "    <%s><origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/><geometry>"
               "<cylinder radius=\"%.17g\" length=\"%.17g\"/></geometry></%s>\n",
            tag, c[0], c[1], c[2], rpy[0], rpy[1], rpy[2], gd[6], len, tag);
    for (int e = 0; e < 2; e++) {
        fprintf(f, "    <%s><origin xyz=\"%.17g %.17g %.17g\"/><geometry><sphere radius=\"%.17g\"/>"
                   "</geometry></%s>\n", tag, gd[3 * e], gd[3 * e + 1], gd[3 * e + 2], gd[6], tag);
    }
}


salto_status salto_export_urdf(const salto_model* m, const char* path, salto_error* err) {
    salto_status s = salto_export_check(m, err);
    if (s) return s;
    salto_atomic a;
    if ((s = salto_atomic_open(&a, path, 1, err))) return s;
    FILE* f = a.f;
    fputs("<?xml version=\"1.0\"?>\n<!-- written by salto export: one joint per salto DOF, a "
          "massless link between the\n     DOFs of a multi-DOF joint, the root's DOFs from the "
          "link \"world\"; capsules as a\n     cylinder and two spheres -->\n<robot name=\"", f);
    put_name(f, m->name);
    fputs("\">\n", f);
    fputs("  <link name=\"world\"/>\n", f);
    for (int k = 0; k < m->nbody; k++) { // welded bodies: links fixed to the world at their place
        if (m->body_link[k] >= 0) continue;
        fputs("  <link name=\"", f);
        put_name(f, m->body_name[k]);
        fputs("\">\n", f);
        for (int g = 0; g < m->ngeom; g++) {
            if (m->geom_body[g] != k) continue;
            urdf_geometry(f, m, g, "visual");
            urdf_geometry(f, m, g, "collision");
        }
        fputs("  </link>\n  <joint name=\"", f);
        put_name(f, m->body_name[k]);
        fputs("__weld\" type=\"fixed\">\n    <parent link=\"world\"/>\n    <child link=\"", f);
        put_name(f, m->body_name[k]);
        const double* bw = m->body_world + 12 * k;
        double rpy[3] = {0, 0, 0};
        if (!is_identity(bw)) rpy_of(bw, rpy);
        fprintf(f, "\"/>\n    <origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>\n  </joint>\n",
                bw[9], bw[10], bw[11], rpy[0], rpy[1], rpy[2]);
    }
    for (int l = 0; l < m->nv; l++) {
        const int k = m->link_body[l];
        fputs("  <link name=\"", f);
        urdf_link_name(f, m, l);
        fputs("\">\n", f);
        if (m->link_massive[l]) {
            const double* I = m->link_inertia + 10 * l;
            fprintf(f, "    <inertial><origin xyz=\"%.17g %.17g %.17g\"/><mass value=\"%.17g\"/>"
                       "<inertia ixx=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" iyy=\"%.17g\" iyz=\"%.17g\" "
                       "izz=\"%.17g\"/></inertial>\n",
                    I[1], I[2], I[3], I[0], I[4], I[7], I[8], I[5], I[9], I[6]);
            for (int g = 0; g < m->ngeom; g++) {
                if (m->geom_body[g] != k) continue;
                urdf_geometry(f, m, g, "visual");
                urdf_geometry(f, m, g, "collision");
            }
        } else { // a link between two DOFs: a token inertia (MuJoCo and others refuse none)
            fprintf(f, "    <inertial><mass value=\"%g\"/><inertia ixx=\"%g\" ixy=\"0\" ixz=\"0\" "
                       "iyy=\"%g\" iyz=\"0\" izz=\"%g\"/></inertial>\n",
                    urdf_token_mass, urdf_token_inertia, urdf_token_inertia, urdf_token_inertia);
        }
        fputs("  </link>\n  <joint name=\"", f);
        put_name(f, m->link_name[l]);
        const int prism = m->link_type[l] == SALTO_AXIS_PRISMATIC;
        fprintf(f, "\" type=\"%s\">\n    <parent link=\"",
                prism ? "prismatic" : m->link_has_limits[l] ? "revolute" : "continuous");
        urdf_parent_name(f, m, l);
        fputs("\"/>\n    <child link=\"", f);
        urdf_link_name(f, m, l);
        double r[3], Rl[9], rpy[3] = {0, 0, 0};
        link_frame(m, l, r, Rl);
        if (!is_identity(Rl)) rpy_of(Rl, rpy);
        const double* ax = m->link_axis + 3 * l;
        fprintf(f, "\"/>\n    <origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>\n"
                   "    <axis xyz=\"%.17g %.17g %.17g\"/>\n",
                r[0], r[1], r[2], rpy[0], rpy[1], rpy[2], ax[0], ax[1], ax[2]);
        if (prism || m->link_has_limits[l]) {
            const double lo = m->link_has_limits[l] ? m->link_limits[2 * l] : -1e3;
            const double hi = m->link_has_limits[l] ? m->link_limits[2 * l + 1] : 1e3;
            fprintf(f, "    <limit lower=\"%.17g\" upper=\"%.17g\" effort=\"1e6\" velocity=\"1e3\"/>\n", lo, hi);
        }
        fputs("  </joint>\n", f);
    }
    fputs("</robot>\n", f);
    return salto_atomic_commit(&a, err);
}
