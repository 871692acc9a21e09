// dca.h: forward dynamics by Featherstone's divide-and-conquer algorithm (DCA), the base of
// Redon et al.'s adaptive dynamics
//
// The character is cut into an assembly tree: each leaf is a body (or the world), each
// internal node joins two subassemblies through one joint, its principal joint (a body's
// whole joint chain, 1 to 6 DOFs). The tree is balanced: every node is cut at the joint that
// best halves its bodies (Redon et al. 2005, section 7.3), so a chain of N bodies has depth
// about log2 N. A subassembly's handles are the joints that join it to the rest; its
// articulated-body equations give its handles' accelerations as affine functions of the
// forces on them (a = Phi f + b). In salto's world-frame form, about the world origin, every
// body's acceleration is the same spatial vector wherever a force acts on it, so a handle is
// just the body a joint pulls on, and a rigid body's coefficients are I^-1 for every pair of
// its handles. The main pass assembles the coefficients from the leaves up (Featherstone
// 1999; Redon et al. eq. 2, 3); the back-substitution gives each joint's accelerations and
// constraint force from the root down (eq. 4, 5). Gravity enters as the world's acceleration
// (-g), as in salto_aba.
#ifndef SALTO_DCA_H
#define SALTO_DCA_H

#include "salto/data.h"

typedef struct salto_dca salto_dca;

// The assembly tree of m and the workspace of a pass (release with salto_dca_destroy); NULL
// when out of memory. The model must outlive it; one per thread.
salto_dca* salto_dca_create(const salto_model* m);
void salto_dca_destroy(salto_dca* a); // accepts NULL

// Forward dynamics: reads d->q, d->qd, d->tau and optional external forces fext (nv x 6,
// world-frame spatial forces about the origin; those on a body's link, body_link, act on the
// body; entries of the massless links inside a joint chain must be zero), writes d->qdd, the
// same as salto_aba's (with rigid joints: the accelerations of the character with those joints
// locked, zero on them). SALTO_ERR_NUMERIC when an inverse inertia is not positive definite or a
// result is not finite.
salto_status salto_dca_forward(salto_dca* a, salto_data* d, const double* fext);

// Armature: arm[j] >= 0 added to DOF j's inertia (M + diag(arm)) qdd = tau - h: a rotor's
// inertia, or implicit joint damping c (tau = -c qd_next = -c qd - c h qdd: arm = c h, tau =
// -c qd). NULL: none (the default). Returns 0, or -1 (nothing changed) for a negative or
// non-finite entry.
int salto_dca_set_armature(salto_dca* a, const double* arm);

// ---- hybrid bodies (Redon et al. 2005, section 4) ----
//
// A joint (the chain that moves a body) is active when it is simulated, rigid when it is held:
// its accelerations are zero and its velocity is taken as zero (it should be: rigidifying a
// moving joint is an impulse's job). The active joints are those of a top part of the
// assembly tree: a node's joint is active only if the joint of the node above it is. A rigid
// node's coefficients are those of a joint with no motion subspace (S = 0, section 4.2), so
// that a subassembly whose joints are all rigid moves as one rigid body. Every joint is active
// after salto_dca_create.

// active[b] (one per body, for the joint that moves body b; bodies welded to the world are not
// read): 1 active, 0 rigid; NULL: every joint active. Returns 0, or -1 (nothing changed) when
// an active joint's node lies under a rigid one's.
int salto_dca_set_active(salto_dca* a, const unsigned char* active);
// The first n joints of the assembly tree, breadth-first from its root, active, the rest
// rigid; returns the active DOFs.
int salto_dca_activate_top(salto_dca* a, int n);
int salto_dca_active_dofs(const salto_dca* a);
// Whether each DOF (link) is active, into active (nv).
void salto_dca_active_links(const salto_dca* a, unsigned char* active);

// ---- the acceleration metric (Redon et al. 2005, section 5.2) ----
//
// A node's acceleration metric is the sum over the joints under it of qdd' A_i qdd (A_i: the
// joint's SPD weight, identity unless set). Its coefficients are assembled from the leaves up
// with the inverse inertias (Theorems 1 and 2), so that a node's value is known from the forces
// on its handles alone, before any joint under it is solved.

// Whether salto_dca_forward assembles the metric's coefficients and each node's value (off
// after salto_dca_create: it costs more than the dynamics).
void salto_dca_track_metric(salto_dca* a, int on);
// After a forward pass with the metric tracked: the value of the node whose principal joint
// moves body (body < 0: the whole character's); NAN for a body no joint moves.
double salto_dca_metric(const salto_dca* a, int body);
// The weight of the joint that moves body: w (nd x nd, row-major) symmetric positive definite.
// Returns 0, or -1 (nothing changed) when it is not, or no joint moves body.
int salto_dca_set_weight(salto_dca* a, int body, const double* w);
// Marks in in (nv) the DOFs of the joints under the node of the joint that moves body (body <
// 0: every joint); returns their count, or -1 when no joint moves body.
int salto_dca_subtree_links(const salto_dca* a, int body, unsigned char* in);

// ---- adaptive dynamics (Redon et al. 2005, sections 5.3, 5.4) ----

// The acceleration update region: from the fully articulated state, the back-substitution
// visits the nodes by a priority queue on their acceleration metric, the largest first, and
// stops once the metric left (the whole character's less the visited joints' qdd' A qdd) is at
// most eps (eps > 0; else the budget alone decides) or budget joints are visited. region (nv) marks the visited joints' DOFs, whose
// accelerations are in d->qdd (zero elsewhere); *error (may be NULL) receives the metric left.
// The activity of the joints is kept. The nodes' metrics are summed from every joint's
// acceleration by salto_aba (O(N) at about ABA's cost; with armature set, by the coefficients).
salto_status salto_dca_accel_region(salto_dca* a, salto_data* d, const double* fext, double eps,
                                    int budget, unsigned char* region, double* error);
// The same region by the paper's search: the metric's coefficients assembled with the DCA pass
// (Theorems 1 and 2), and only the visited joints solved. The same region, error and
// accelerations up to rounding, at many times the cost (the coefficients cost more than the
// dynamics); kept as the method's reference.
salto_status salto_dca_accel_region_coef(salto_dca* a, salto_data* d, const double* fext,
                                         double eps, int budget, unsigned char* region,
                                         double* error);

// Stops the active joints of the bodies marked in rigid (nbody) by impulses on those joints
// (K^R Q^R = -qd^R, K^R from a unit impulse on each, section 5.4.2): their velocities become
// zero, the other active joints' change, the kinetic energy does not rise; then they are rigid.
// The active joints left must stay a top part of the assembly tree (the caller's choice).
salto_status salto_dca_rigidify(salto_dca* a, salto_data* d, const unsigned char* rigid);

typedef struct salto_adaptive_opts {
    int budget;          // joints active at most (and visited by each region's search)
    double accel_eps;    // the acceleration metric left that is small enough (0: the budget)
    double vel_eps;      // the velocity metric left that is small enough (0: the budget)
    int period;          // steps from one update of the active region to the next (1/f; 0 or
                         // 1: every step); the steps between are the hybrid body's alone
} salto_adaptive_opts;

typedef struct salto_adaptive_stats {
    int active_joints, active_dofs; // after the step
    int transient_joints;           // active during it (the last ones and the region's)
    double accel_error;             // the acceleration metric left out
    double vel_error;               // the velocity metric left out
    double rigidified_energy;       // the kinetic energy's change by the rigidification (<= 0)
    int updated;                    // 1 if the active region was updated in this step
} salto_adaptive_stats;

// The hybrid body's accelerations into d->qdd (active DOFs; the rigid ones' entries are not
// written): the character's with the rigid joints locked, as salto_dca_forward's, but by the
// articulated-body algorithm over the hybrid body as a model of its own (one link per active
// DOF, each rigid part's bodies one inertia, the rigid joints' transforms folded into the tree;
// Redon et al. 4.3 and 6: only the active region is touched). The model is built at d's
// positions when the active joints have changed since the last call (O(N)); after that a call
// costs O(N_A) without fext (O(N) with it, for the sum over the links). The rigid joints'
// positions must not change in between (change the activity, even to the same set, to rebuild
// it). With armature on an active DOF it is salto_dca_forward.
salto_status salto_dca_hybrid_forward(salto_dca* a, salto_data* d, const double* fext);

// The character with the joints outside active (nv) locked at d's positions (d after
// salto_fk at SALTO_FK_POS), as a complete model of its own, for the simulator: one link per
// active DOF (its limits, torque bounds and name kept), each rigid part one body on the link
// that carries it (its inertia the sum of its bodies'; body 0 the world's part, welded), the
// rigid joints' transforms folded into the tree, sites on their part's link (on the world's
// part: at their place in the world), geometry re-expressed in its part's frame (a box as its
// eight corners, zero-radius spheres; the world's part's left out). The root keeps its type
// when its DOFs are all active, else it is fixed. map (its nv, may be NULL) receives each of
// its links' link in m, part (m's nv, may be NULL) each of m's links' link in it (-1: the
// world's part), geom (its ngeom, at most m's ngeom + 7 boxes; may be NULL) each of its
// geometries' in m. m must outlive it (the names are m's); release with salto_model_destroy.
// NULL when out of memory.
salto_model* salto_model_locked(const salto_model* m, const salto_data* d,
                                const unsigned char* active, int* map, int* part, int* geom);

// One step of h of adaptive dynamics (semi-implicit Euler), section 5.1: the acceleration
// update region (budget, accel_eps); the transient active region (the last active joints and
// that region) solved as a hybrid body; its velocities updated and the velocity metric (the same
// weights) summed up the tree; the new active region chosen from the root by it (budget,
// vel_eps); the transient joints outside it stopped by impulses and made rigid; positions
// updated. Every o->period-th step does that (the first after a change of activity always);
// the steps between are the hybrid body's (salto_dca_hybrid_forward, its DOFs integrated
// alone): O(N_A) each. With a budget of every joint and zero thresholds there is nothing to
// choose: every joint is made active and the step is the full one. out may be NULL.
salto_status salto_dca_adaptive_step(salto_dca* a, salto_data* d, const double* fext, double h,
                                     const salto_adaptive_opts* o, salto_adaptive_stats* out);
int salto_dca_active_joints(const salto_dca* a);

// The active region's update alone, for a simulator that steps the hybrid body itself (with
// contacts): the acceleration update region (o's budget and accel_eps, fext: the external
// forces, the contacts' of the last step among them), the transient hybrid body's
// accelerations, the new active region by the velocities a step of h would reach (budget,
// vel_eps), and the transient joints left out stopped by impulses at d's velocities (d->qd
// changes; d->q does not). The active joints are then a top part of the assembly tree.
salto_status salto_dca_adaptive_select(salto_dca* a, salto_data* d, const double* fext, double h,
                                       const salto_adaptive_opts* o, salto_adaptive_stats* out);

// The tree's shape: its height (a leaf's is 0) and node count (2 x leaves - 1).
int salto_dca_height(const salto_dca* a);
int salto_dca_nodes(const salto_dca* a);

#endif
