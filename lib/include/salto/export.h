// export.h: a character for other tools: MuJoCo's MJCF and URDF (robotics stacks)
//
// The same bodies, joints (salto's DOFs one for one, in order), inertias, limits, geometry
// and sites, so that the character can be simulated elsewhere and compared (a test loads the
// MJCF into MuJoCo and finds the articulated-body algorithm's accelerations there). Files are
// written atomically.
#ifndef SALTO_EXPORT_H
#define SALTO_EXPORT_H

#include "salto/model.h"

// SALTO_ERR_INVALID when a body's DOFs do not share the body's joint centre (MJCF gives a body
// one frame for all its joints); every character salto ships passes.
salto_status salto_export_check(const salto_model* m, salto_error* err);

// MJCF: a MuJoCo body per body, its DOFs as slide and hinge joints in salto's order (the
// root too: three slides and three hinges, not a quaternion free joint, so that q and qd are
// salto's), inertia from the model (inertiafromgeom false; a body welded to the world, which
// never moves, without its inertia), limits in radians, capsules,
// spheres and boxes, sites; a floor plane at z = 0; timestep 1 ms, Euler.
salto_status salto_export_mjcf(const salto_model* m, const char* path, salto_error* err);

// URDF: a joint per DOF (revolute, continuous without limits, prismatic), a link between the
// DOFs of a multi-DOF joint (with a token 1e-6 kg and 1e-9 kg m^2, since MuJoCo and other
// readers refuse massless moving links; salto's are massless), the root's chain from a link "world" (or from the
// welded root body), inertias, limits; capsules as a cylinder and two spheres (URDF has no
// capsule).
salto_status salto_export_urdf(const salto_model* m, const char* path, salto_error* err);

#endif
