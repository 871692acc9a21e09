// obstacle.h: signed distances from axis-aligned boxes (a problem's `boxes`: obstacles to keep
// out of, and raised ground to stand on), for the NLP's clearance rows, the validator and the
// stepping simulator
//
// A box is its centre c and half sizes h (world axes). The signed distance of a point x is its
// Euclidean distance from the box when outside, and minus its depth (the distance to the
// nearest face) when inside: sd(x) = |max(e, 0)| when some e_k > 0, else max_k e_k, with
// e_k = |x_k - c_k| - h_k. It is convex, so along a segment a + u (b - a), u in [0, 1], its
// least value D has one minimum, found exactly (the pieces are quadratic outside, linear
// inside). An axis with use[k] = 0 is left out (a planar character's y: the box is a prism
// across the plane).
#ifndef SALTO_OBSTACLE_H
#define SALTO_OBSTACLE_H

// The signed distance of x from the box, and its gradient (the outward unit normal of the
// nearest face or edge, or from the nearest point) into n (may be NULL).
double salto_box_point_distance(const double c[3], const double h[3], const int use[3],
                                const double x[3], double n[3]);

// The least signed distance D of the segment from a to b from the box, the segment's parameter
// where it is reached into *u (may be NULL), D's gradient in a and b into ga and gb (may be
// NULL), and when H6 is not NULL its 6 x 6 Hessian in (a, b) (row-major). The derivatives are
// exact wherever D is twice differentiable: everywhere but where the nearest point changes its
// face, edge or corner, or the segment is parallel to a face it is nearest (a set of measure
// zero). Outside, D = sqrt(Q) with Q the least squared distance, whose Hessian is
// Q_xx - Q_xu Q_ux / Q_uu at an interior minimum; inside, D is the value of a small linear
// program in u, a ratio of bilinear forms at a vertex where two faces' depths meet.
double salto_box_segment_distance(const double c[3], const double h[3], const int use[3],
                                  const double a[3], const double b[3], double* u, double ga[3],
                                  double gb[3], double* H6);

// The same for a box turned by yaw (rad) about +z through its centre c (h its half sizes in its
// own axes): the points turned into the box's frame, the gradients and the Hessian turned back.
double salto_box_point_distance_turned(const double c[3], const double h[3], const int use[3],
                                       double yaw, const double x[3], double n[3]);
double salto_box_segment_distance_turned(const double c[3], const double h[3], const int use[3],
                                         double yaw, const double a[3], const double b[3],
                                         double* u, double ga[3], double gb[3], double* H6);

#endif
