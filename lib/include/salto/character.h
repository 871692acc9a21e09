// character.h: description of an articulated character, as read from a YAML character file
//
// A description is what the user wrote, with the source location of every value kept, so
// that errors found while building the model (salto_model_build) still point at the line
// that caused them. It is turned into a flat, immutable salto_model by salto_model_build().
// The file format is documented in docs/character-format.md.
#ifndef SALTO_CHARACTER_H
#define SALTO_CHARACTER_H

#include "salto/base.h"

typedef enum salto_axis_type {
    SALTO_AXIS_REVOLUTE = 0, // rotation about the axis, q in radians
    SALTO_AXIS_PRISMATIC     // translation along the axis, q in metres
} salto_axis_type;

typedef enum salto_root_type {
    SALTO_ROOT_FREE = 0, // 3 translations + 3 rotations (6 one-DOF axes)
    SALTO_ROOT_PLANAR,   // x and z translation + rotation about y (x-z plane)
    SALTO_ROOT_FIXED     // root body welded to the world
} salto_root_type;

typedef enum salto_geom_shape {
    SALTO_GEOM_CAPSULE = 0, // segment from -> to, radius
    SALTO_GEOM_BOX,         // centre, half extents along the body axes
    SALTO_GEOM_SPHERE       // centre, radius
} salto_geom_shape;

// One degree of freedom: a revolute or prismatic axis. A joint with several axes is a chain
// of one-DOF joints through massless bodies (Fang & Pollard 2003, Appendix A): axis k is
// expressed in the frame left by axes 0..k-1, which at q = 0 is the parent body's frame.
typedef struct salto_axis_desc {
    char* name;            // DOF name, unique in the character
    salto_axis_type type;
    double axis[3];        // unit vector (normalised by the loader), parent frame at q = 0
    int has_limits;        // 0: unlimited
    double limits[2];      // [min, max], rad or m
    salto_src_loc loc;     // where the axis was written
    salto_src_loc axis_loc;
    salto_src_loc limits_loc;
    int has_torque;        // 0: its joint torque is unbounded (the file's torque_limits)
    double torque[2];      // [lo, hi] that tau + torque_slope x qd stays within, N m or N
    double torque_slope;   // the torque-velocity line's slope, N m s/rad or N s/m (0: none)
    salto_src_loc torque_loc;
} salto_axis_desc;

typedef struct salto_site_desc {
    char* name;            // unique in the character
    double pos[3];         // in the body frame, m
    salto_src_loc loc;
} salto_site_desc;

typedef struct salto_geom_desc {
    salto_geom_shape shape;
    double a[3];           // capsule: from; box and sphere: centre (body frame, m)
    double b[3];           // capsule: to; box: half extents; sphere: unused
    double radius;         // capsule and sphere, m
    salto_src_loc loc;
} salto_geom_desc;

// A rigid body. Its frame is parallel to its parent's frame when all its joint's q are zero;
// its origin is the joint centre.
typedef struct salto_body_desc {
    char* name;              // unique in the character
    int parent;              // index into salto_character_desc.bodies; -1 for the root
    double joint_pos[3];     // joint centre in the parent body frame, m (root: in the world)
    int naxis;               // non-root bodies: >= 1; the root: 0 (its axes come from root_type)
    salto_axis_desc* axes;   // (naxis)
    double mass;             // kg, > 0
    double com[3];           // centre of mass in the body frame, m
    double inertia[9];       // rotational inertia about the com, body frame, kg m^2 (3x3 row-major)
    int nsite;
    salto_site_desc* sites;  // (nsite)
    int ngeom;
    salto_geom_desc* geoms;  // (ngeom)
    salto_src_loc loc;           // the body's entry
    salto_src_loc parent_loc;    // the 'parent' value
    salto_src_loc mass_loc;      // the 'mass' value
    salto_src_loc inertia_loc;   // the 'inertia' (or 'radii_of_gyration') value
} salto_body_desc;

// A whole character. Bodies are in file order; body 0 need not be the root.
typedef struct salto_character_desc {
    char* name;              // character name
    char* path;              // file it was read from ("" when built in code); owns loc.file strings
    char* ext_path;          // a file that `extends` another: that file's own path (path is then
                             //   the base's), owning the loc.file strings of what it sets (its
                             //   torque limits); NULL otherwise
    salto_root_type root_type;
    int root_rot_order[3];   // free root: rotation axes in order (0 = x, 1 = y, 2 = z)
    double gravity[3];       // world frame, m/s^2; default (0, 0, -9.81)
    int nbody;
    salto_body_desc* bodies; // (nbody)
    salto_src_loc root_loc;  // the root's 'joint' entry
} salto_character_desc;

// Reads and checks a character file. Returns a new description owned by the caller (release
// with salto_character_destroy), or NULL with err filled: SALTO_ERR_IO when the file cannot be
// read, SALTO_ERR_SYNTAX when it is not YAML, SALTO_ERR_INVALID for wrong types, unknown keys
// (with a did-you-mean note), non-positive mass, inertia not symmetric positive definite or
// violating the triangle inequality, duplicate names, unknown parents, cycles, zero axes,
// limit min > max. Every error names file:line:col.
salto_character_desc* salto_character_load(const char* path, salto_error* err);

// The plausible ranges (issue 28): a body's mass from a milligram to a thousand tonnes, gravity
// at most a hundred g, a joint centre, centre of mass or site at most 10 km from its frame's
// origin; outside them a value is refused at its file:line:col (a mass of 1e308 or 1e-308 had
// solved into IPOPT's "invalid number" or "successfully")
#define SALTO_MASS_MIN 1e-6
#define SALTO_MASS_MAX 1e6
#define SALTO_GRAVITY_MAX 1e3
#define SALTO_LENGTH_MAX 1e4

// Structural and physical checks shared by the loader and by descriptions built in code
// (see above); errors point at the description's source locations.
salto_status salto_character_validate(const salto_character_desc* c, salto_error* err);

// Writes a description as a character file that salto_character_load reads back to the
// same description. Returns SALTO_ERR_IO on failure. The file is written atomically.
salto_status salto_character_save(const salto_character_desc* c, const char* path,
                                  salto_error* err);

// Empty description with nbody bodies (zeroed, parent -1, names NULL), gravity (0, 0, -9.81),
// root type free with rotation order y, x, z. NULL if allocation fails.
salto_character_desc* salto_character_alloc(int nbody);

// Sets body b's joint to naxis axes (zeroed, names NULL). Returns SALTO_ERR_NOMEM on failure.
salto_status salto_character_set_axes(salto_character_desc* c, int b, int naxis);

void salto_character_destroy(salto_character_desc* c); // accepts NULL

// A serial chain of n links hanging from a fixed base, each a uniform capsule of length len
// and mass mass, joined by revolute joints whose axes alternate y, x, z (so that the chain
// is fully 3-D); used by tests and benchmarks (Fang & Pollard 2003, Figure 5).
salto_character_desc* salto_character_chain(int n, double len, double mass);
// The same with the joints' axes cycling through axes, a string of 'x', 'y', 'z' ("yxz" is
// salto_character_chain's; "y" a planar pendulum swinging in the x-z plane); NULL when axes is
// empty or holds anything else, or as salto_character_chain.
salto_character_desc* salto_character_chain_axes(int n, double len, double mass, const char* axes);

// A random tree of n bodies with branches, random axes (revolute and prismatic), random
// masses, inertias and offsets, and the given root type; deterministic in seed.
salto_character_desc* salto_character_random_tree(int n, salto_root_type root, unsigned seed);

#endif
