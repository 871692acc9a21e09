// orient.h: the free root's orientation charts, and turned charts for the optimiser
//
// A free root turns through three revolute DOFs about coordinate axes in the character's
// rotation_order o = (i, j, k): its world orientation is R = B E(q), E(q) = Rot(e_i, q0)
// Rot(e_j, q1) Rot(e_k, q2), B the chart's reference (the identity for the character's own
// chart; a turned chart's otherwise: salto_model_set_root_reference). The middle angle's
// +-90 deg is singular: there e_i and E e_k align (|(B e_i) . (R e_k)| = 1) and the angles
// cannot follow a turn about the third direction. A turned chart puts the singular direction
// B e_i where the motion's e_k does not go. Matrices are row-major double[9].
#ifndef SALTO_ORIENT_H
#define SALTO_ORIENT_H

#include "salto/model.h"

// The order of m's free root (its links 3, 4, 5 about coordinate axes) into o: 1, or 0 when
// m has no such root.
int salto_root_order(const salto_model* m, int o[3]);

// E(q) for order o.
void salto_euler_matrix(const int o[3], const double q[3], double E[9]);

// The angles q of E = E(q): the set nearest prev (of the two sets and their 2 pi shifts) when
// prev is given, else the one with the middle angle in [-90, 90] deg.
void salto_euler_angles(const int o[3], const double E[9], const double* prev, double q[3]);

// The angles q of the world orientation R in the chart with reference B (NULL: the identity):
// those of B' R, as salto_euler_angles takes them.
void salto_euler_chart_angles(const int o[3], const double* B, const double R[9], const double* prev,
                              double q[3]);

// The world axes of the three DOFs at q (the columns of J: w = B J(q) qd, w the angular
// velocity in the world), and J's rate at (q, qd) (alpha = B (J qdd + Jdot qd)).
void salto_euler_axes(const int o[3], const double q[3], double J[9]);
void salto_euler_axes_rate(const int o[3], const double q[3], const double qd[3], double Jd[9]);

// The root's angles (rates, accelerations) in the chart with reference Bb for the same
// orientation (angular velocity, acceleration) as qa (qda, qdda) in the chart with reference
// Ba (each NULL for the identity): the angles nearest prev when given; qdb and qddb may be
// NULL (then qda, qdda are not read). On the singular set the rates are the damped
// least-squares ones (finite).
void salto_euler_rechart(const int o[3], const double* Ba, const double* Bb, const double qa[3],
                         const double* qda, const double* qdda, const double* prev, double qb[3],
                         double* qdb, double* qddb);

// Rows of frames moved from the chart with reference Ba to the one with Bb (each NULL for the
// identity), in place: n rows of stride doubles, the root's angles at columns 3 to 5 of each;
// each row's angles the set nearest the last row's, the first row's nearest prev0 (NULL: the
// principal set). Motions' frames through full turns stay continuous.
void salto_euler_frames_rechart(const int o[3], const double* Ba, const double* Bb,
                                const double* prev0, double* q, int n, int stride);

// |sin| of the middle angle of the orientation R (world) in the chart with reference B (NULL:
// identity): 1 on the singular set.
double salto_euler_tilt(const int o[3], const double* B, const double R[9]);

// A chart reference B for a motion whose root takes the orientations R (n of them, 9 n
// doubles, world): the rotation nearest the identity that turns e_i (o[0]) to the direction
// farthest from every R e_k (and its opposite), searched over 4000 directions; returns the
// largest tilt (salto_euler_tilt) of the motion in that chart.
double salto_euler_reference(const int o[3], const double* R, int n, double B[9]);

// Sets the reference B of m's free root chart in place (NULL or the identity: the character's
// own chart, exactly as built): R = B E(q), the translations unchanged. m must have a free root
// (salto_root_order) built in the identity world frame. Every kinematic and dynamic routine then
// works in that chart, exactly (B is a fixed rotation of the root's first rotation link).
void salto_model_set_root_reference(salto_model* m, const double* B);

#endif
