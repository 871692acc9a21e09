// model.h: the immutable, flat description of an articulated character
//
// Every degree of freedom is one link: a revolute or prismatic one-DOF joint and the body it
// moves. A multi-DOF joint is a chain of such links through massless bodies (Fang & Pollard
// 2003, Appendix A); only the last link of a chain carries the user's body and its inertia.
// Links are stored in depth-first preorder (link_parent[i] < i), so the subtree of link i is
// the contiguous range [i, link_subtree_end[i]). DOF index = link index.
#ifndef SALTO_MODEL_H
#define SALTO_MODEL_H

#include "salto/base.h"
#include "salto/character.h"

typedef struct salto_model {
    // sizes
    int nv;                   // degrees of freedom = links
    int nbody;                // user bodies (the root included)
    int nsite;                // named sites
    int ngeom;                // geometry primitives
    int root_type;            // salto_root_type
    int nroot;                // DOFs added by the root type (6 free, 3 planar, 0 fixed)

    // links                                                             (dimensions)
    int* link_parent;         // parent link, -1 for the world                   (nv)
    int* link_subtree_end;    // one past the last link of the subtree           (nv)
    int* link_type;           // salto_axis_type                                 (nv)
    int* link_body;           // body whose joint chain holds the link            (nv)
    int* link_massive;        // 1 if the link carries its body's inertia         (nv)
    int* link_axis_k;         // 0, 1, 2 if the axis is +x, +y, +z; -1 otherwise  (nv)
    int* link_tree_rot;       // 1 if link_Rtree is not the identity              (nv)
    int* link_offset;         // 1 if link_rtree is not zero                      (nv)
    double* link_Rtree;       // link frame at q = 0 in the parent frame (columns) (nv x 9)
    double* link_rtree;       // link origin in the parent link frame, m          (nv x 3)
    double* link_axis;        // unit joint axis in the link frame                (nv x 3)
    double* link_inertia;     // m, com (3, link frame), I_com (6: xx yy zz xy xz yz)
                              //   zero for massless links                      (nv x 10)
    double* link_Iorigin;     // the same inertia about the link origin, link frame,
                              //   in the (m, h, Ibar) form of spatial.h           (nv x 10)
    int* link_has_limits;     //                                                  (nv)
    double* link_limits;      // [min, max], rad or m                             (nv x 2)
    int* link_has_torque;     // 1: the joint torque tau + slope qd stays within   (nv)
    double* link_torque;      //   [lo, hi], N m or N                              (nv x 2)
    double* link_torque_slope; //  slope, N m s/rad or N s/m                        (nv)
    int ntorque;              // DOFs with a torque limit
    char** link_name;         // DOF names                                        (nv)

    // bodies
    char** body_name;         //                                                  (nbody)
    int* body_parent;         // parent body, -1 for the root                     (nbody)
    int* body_link;           // link whose frame is the body frame; -1 if welded
                              //   to the world (fixed root)                      (nbody)
    double* body_mass;        // kg                                               (nbody)
    double* body_world;       // welded bodies: R (9), p (3) of the body frame     (nbody x 12)

    // sites: points on bodies
    char** site_name;         //                                                  (nsite)
    int* site_body;           //                                                  (nsite)
    int* site_link;           // link frame the position is in; -1: welded body   (nsite)
    double* site_pos;         // in the link frame (-1: the welded body's, body_world), m (nsite x 3)

    // geometry for drawing and contact, in the frame of geom_link
    int* geom_shape;          // salto_geom_shape                                 (ngeom)
    int* geom_body;           //                                                  (ngeom)
    int* geom_link;           // -1: the welded body's frame (body_world)         (ngeom)
    double* geom_data;        // a (3), b (3), radius                             (ngeom x 7)

    double gravity[3];        // world frame, m/s^2
    double mass;              // total mass of the moving bodies, kg
    char* name;               // character name
    void* buffer;             // single allocation owning the arrays above
} salto_model;

// Options for building: a change of world frame (for tests of equivariance). The character
// is placed as if the world were rotated by R and shifted by p: positions x become R x + p,
// gravity g becomes R g.
typedef struct salto_model_options {
    double world_R[9];
    double world_p[3];
} salto_model_options;

// Builds a model from a (validated) description. Returns a new model owned by the caller
// (release with salto_model_destroy), or NULL with err filled (SALTO_ERR_INVALID pointing at
// the description, SALTO_ERR_NOMEM). opt may be NULL (identity world frame).
salto_model* salto_model_build(const salto_character_desc* c, const salto_model_options* opt,
                               salto_error* err);

// Loads a character file and builds its model in one step.
salto_model* salto_model_load(const char* path, salto_error* err);

void salto_model_destroy(salto_model* m); // accepts NULL

// Name lookup: index, or -1 when absent.
int salto_model_dof(const salto_model* m, const char* name);
int salto_model_body(const salto_model* m, const char* name);
int salto_model_site(const salto_model* m, const char* name);

// The character's weight, N: its mass times gravity's magnitude (9.81 m/s^2 when the model
// has none), the scale of the contact rows and of the force checks' thresholds.
double salto_model_weight(const salto_model* m);

// True if the model moves in the x-z plane only (planar root and every axis along y for
// revolute links and in the x-z plane for prismatic links).
int salto_model_is_planar(const salto_model* m);

// The root's world translation: its DOFs at the head of the root chain that are prismatic
// (before any revolute one, so that their axes are fixed in the world) into tdof, their world
// axes (the chain's fixed rotations applied) into axes; returns how many (at most 3).
int salto_model_root_translation(const salto_model* m, int tdof[3], double axes[3][3]);

#endif
