// kinematics.h: forward kinematics, sites, centre of mass, momentum and energy
#ifndef SALTO_KINEMATICS_H
#define SALTO_KINEMATICS_H

#include "salto/data.h"

typedef enum salto_fk_level {
    SALTO_FK_POS = 0, // R, p, S from q
    SALTO_FK_VEL = 1, // and V, c from qd
    SALTO_FK_ACC = 2  // and A from qdd, with the base accelerating at -g
} salto_fk_level;

// Forward kinematics in the world frame (RBDA 4.1, world-frame form). Reads d->q (and d->qd,
// d->qdd by level); writes d->R, d->p, d->S (and d->V, d->c, d->A).
void salto_fk(const salto_model* m, salto_data* d, salto_fk_level level);

// World-frame rigid-body inertias of the links, d->I, from d->R and d->p (after salto_fk).
void salto_link_inertias(const salto_model* m, salto_data* d);

// World rotation R (3x3, row-major) and origin p of body k's frame after salto_fk (a body
// welded to the world: its fixed frame). Both point into d or the model.
void salto_body_frame(const salto_model* m, const salto_data* d, int k, const double** R,
                      const double** p);

// Body k's frame relative to its parent body's (the world for the root) after salto_fk: the
// rotation R_rel = R_parent' R and the origin t = R_parent' (p - p_parent).
void salto_body_relative(const salto_model* m, const salto_data* d, int k, double R[9],
                         double t[3]);

// Site position, linear velocity and linear acceleration (gravity excluded) in the world,
// after salto_fk at the matching level.
void salto_site_pos(const salto_model* m, const salto_data* d, int site, double pos[3]);
void salto_site_vel(const salto_model* m, const salto_data* d, int site, double vel[3]);
void salto_site_acc(const salto_model* m, const salto_data* d, int site, double acc[3]);

// Jacobian of a site's position with respect to q, 3 x nv row-major (zero outside the
// site's path to the root), after salto_fk(SALTO_FK_POS).
void salto_site_jac(const salto_model* m, const salto_data* d, int site, double* J);

// Same for any point x (world coordinates) moving with link (-1: the world, J = 0).
void salto_point_jac(const salto_model* m, const salto_data* d, int link, const double x[3],
                     double* J);

// Derivative of a site's linear velocity (salto_site_vel) with respect to q, 3 x nv row-major
// (zero outside the site's path), after salto_fk(SALTO_FK_VEL); with respect to qd it is the
// site Jacobian.
void salto_site_vel_deriv(const salto_model* m, const salto_data* d, int site, double* dq);

// Derivatives of a site's linear acceleration (salto_site_acc) with respect to q and qd, each
// 3 x nv row-major (zero outside the site's path), after salto_fk(SALTO_FK_ACC); with respect
// to qdd it is the site Jacobian. O(path length). For Fang & Pollard's effective root, whose
// translation follows a held site (docs/design.md).
void salto_site_acc_deriv(const salto_model* m, const salto_data* d, int site, double* dq,
                          double* dqd);

// Both in one pass over the path: dv/dq, da/dq, da/dqd (each 3 x nv, any may be NULL), after
// salto_fk(SALTO_FK_ACC) (SALTO_FK_VEL suffices for dv/dq alone).
void salto_site_motion_deriv(const salto_model* m, const salto_data* d, int site, double* dv_dq,
                             double* da_dq, double* da_dqd);

// The same for any point x (world coordinates) moving with link (-1: the world, all zero), and
// its velocity (after salto_fk(SALTO_FK_VEL)).
void salto_point_motion_deriv(const salto_model* m, const salto_data* d, int link,
                              const double x[3], double* dv_dq, double* da_dq, double* da_dqd);
void salto_point_vel(const salto_data* d, int link, const double x[3], double v[3]);

// Centre of mass and its velocity (either may be NULL), after salto_link_inertias and
// salto_fk(SALTO_FK_POS), or SALTO_FK_VEL for the velocity; the momentum pass only for it.
void salto_com(const salto_model* m, const salto_data* d, double com[3], double comvel[3]);

// Total spatial momentum about the world origin, [angular; linear], after
// salto_fk(SALTO_FK_VEL) and salto_link_inertias.
void salto_momentum(const salto_model* m, const salto_data* d, double h[6]);

// Kinetic and potential energy (potential zero at the world origin), J.
void salto_energy(const salto_model* m, const salto_data* d, double* kinetic,
                  double* potential);

// The points that outline geometry primitive g in the world, after salto_fk (capsule: its two
// ends, sphere: its centre, box: its 8 corners) and the radius around them (0 for boxes);
// returns the point count. The filmstrip draws them; the validator finds the lowest.
// The same points in the frame of the geometry's link (its data's frame), no kinematics needed.
int salto_geom_local_points(const salto_model* m, int g, double pts[8][3], double* radius);

int salto_geom_points(const salto_model* m, const salto_data* d, int g, double pts[8][3],
                      double* radius);

#endif
