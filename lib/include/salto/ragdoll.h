// ragdoll.h: a particle ragdoll with angular constraints (Rosen 2007), built from any character
//
// Each body becomes points: four that carry its mass (placed so that with the others it has the
// body's mass, centre of mass and inertia), the centres of its joints, shared with the
// neighbouring bodies, for a one-DOF revolute joint a second point on the hinge's axis, also
// shared (Rosen's two triangles sharing an edge; a joint of more DOFs shares its centre alone),
// and its geometry's points (a capsule's ends, a sphere's centre, a box's corners; the four mass
// points when it has no geometry), which meet the ground. Points move by Verlet integration and
// constraint passes (ragdoll.c says which); angular constraints keep each joint within the
// character's limits and, for a joint of two axes, on its axes; rotational friction takes back
// a share of each joint's turn in a step; the level ground with friction. Each body's
// orientation is the rotation that fits its rest shape to its points (all of them, not only a
// triangle), and the results are read back on the character's own DOFs (each joint's
// coordinates from its two bodies), so that a ragdoll's fall is a motion like any other.
#ifndef SALTO_RAGDOLL_H
#define SALTO_RAGDOLL_H

#include "salto/base.h"
#include "salto/data.h"
#include "salto/model.h"

typedef struct salto_ragdoll salto_ragdoll;

typedef struct salto_ragdoll_opts {
    int iterations;         // constraint passes a step (>= 1; default 10)
    double joint_friction;  // share of a joint's turn in a step taken back, in [0, 1) (0.02)
    double static_friction; // a joint turning less than this in a step is held, rad (0: none)
    double ground_friction; // share of a grounded point's sliding in a step taken back, [0, 1]
                            //   (default 0.8)
    int ground;             // a ground plane, level (default 1)
    double ground_height;   // its height z, m (default 0)
    int nbar;               // bars: cylinders of infinite length, any direction (default 0; at
                            //   most SALTO_RAGDOLL_MAX_BARS); the bodies' geometry kept out of
                            //   them (a capsule's segment, a sphere's centre, a box's corners
                            //   and the segments between them) with ground_friction's share of
                            //   the sliding on them taken back
    double bar_point[4][3]; // a point on each bar's axis, world, m
    double bar_axis[4][3];  // its direction (any length > 0)
    double bar_radius;      // m (default 0.02, the simulator's)
} salto_ragdoll_opts;

enum { SALTO_RAGDOLL_MAX_BARS = 4 };

void salto_ragdoll_default_opts(salto_ragdoll_opts* o);

// The ragdoll of m (which must outlive it). NULL with err filled: SALTO_ERR_INVALID when o is
// out of range (iterations < 1, joint friction outside [0, 1), static friction < 0, ground
// friction outside [0, 1], a ground height not finite, more than 4 bars, a bar's point not
// finite or its axis zero, a bar radius not positive), when m has a prismatic joint below the
// root, a joint chain with an offset after its first link, a planar root, a body before its
// parent, or a body whose inertia its points cannot carry (much flatter than its joints'
// spread: the four mass points need the rest of its second moment positive); SALTO_ERR_NOMEM
// when out of memory.
salto_ragdoll* salto_ragdoll_create(const salto_model* m, const salto_ragdoll_opts* o,
                                    salto_error* err);
void salto_ragdoll_destroy(salto_ragdoll* r); // accepts NULL

// Places the points at d's q and gives them d's velocities (the previous positions at q - h qd,
// Verlet's velocity; h the step to be taken). d is left after salto_fk at SALTO_FK_VEL.
salto_status salto_ragdoll_set_state(salto_ragdoll* r, salto_data* d, double h);

// One step of h (the h of salto_ragdoll_set_state).
salto_status salto_ragdoll_step(salto_ragdoll* r);

// The character's q as the last step read it from the points (each joint's coordinates from its
// two bodies' orientations, by damped Gauss-Newton from the step before's, so that angles stay
// continuous; a floating root's Euler angles near their singularity, a roll of 90 degrees, may
// still turn fast there) and qd, the change of q over the step. SALTO_ERR_NUMERIC when they are
// not finite.
salto_status salto_ragdoll_get_state(salto_ragdoll* r, salto_data* d);

// Every joint's coordinates as the points have them now (each body's fit to its rest shape,
// each joint by Gauss-Newton from q's values, which it replaces: nv); returns the largest error
// left (rad, m): how far the bodies are from a pose of the character. (salto_ragdoll_step reads
// them so from the last step's, for continuous angles; salto_ragdoll_get_state returns those.)
double salto_ragdoll_read(salto_ragdoll* r, double* q);

// The points: how many, their world positions (3 each) and masses; the pairs of points within
// a body: how many, their points (2 each) and rest distances (how rigid the bodies stay).
int salto_ragdoll_npoints(const salto_ragdoll* r);
const double* salto_ragdoll_positions(const salto_ragdoll* r);
const double* salto_ragdoll_masses(const salto_ragdoll* r);
// each point's radius on the body's surface (its geometry's), negative for a point inside
const double* salto_ragdoll_radii(const salto_ragdoll* r);
int salto_ragdoll_nlinks(const salto_ragdoll* r);
const int* salto_ragdoll_link_points(const salto_ragdoll* r);
const double* salto_ragdoll_link_lengths(const salto_ragdoll* r);

#endif
