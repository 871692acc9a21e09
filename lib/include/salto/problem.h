// problem.h: a spacetime-optimisation problem, as read from a problem file
//
// The description keeps what the user wrote, with every value's source location, so that
// errors found while building the NLP still point at the line that caused them. Times are
// resolved to seconds while parsing (a phase name with an offset, such as "flight.end" or
// "swing.start+0.1", becomes a number). The file format is in docs/problem-format.md.
#ifndef SALTO_PROBLEM_H
#define SALTO_PROBLEM_H

#include "salto/base.h"
#include "salto/checks.h"
#include "salto/model.h"

typedef enum salto_contact_type {
    SALTO_CONTACT_NONE = 0, // flight: f0 = 0
    SALTO_CONTACT_BAR,      // hands on a bar: bounded torque about the bar axis
    SALTO_CONTACT_GROUND    // feet on the ground: friction cone, normal force, centre of pressure
} salto_contact_type;

typedef struct salto_contact_desc {
    salto_contact_type type;
    int nsite;              // sites in contact (model site indices)
    int site[8];            //                                        (nsite)
    // bar
    double bar_point[3];    // a point on the bar axis, world, m
    double bar_axis[3];     // unit bar axis, world
    double torque_max;      // |torque about the bar axis| <= torque_max, N m (>= 0)
    // ground
    double normal[3];       // unit contact normal, world (default 0 0 1)
    double friction;        // Coulomb coefficient mu (> 0)
    double force_max;       // normal force <= force_max, N (> 0)
    double twist_max;       // |twist torque| <= twist_max * normal force, m (>= 0)
    double support_half[2]; // half sizes of the support rectangle around the contact sites'
                            //   centroid, along the tangents T_x, T_y, m (>= 0)
    double height;          // the ground plane: N . x = height, m (default 0)
    int box;                // the problem's box every site stands on (`on`: its top face is
                            //   the ground, normal +z, and each held site stays on it), or -1
    int site_box[8];        // the box each site stands on (`on` as a list: a box or `floor`,
                            //   -1: the contact's plane, normal . x = height), (nsite)
    int hold;               // 1 (default): the sites are held in place through the phase
                            //   (constraints added by the loader, hold_phase set)
    int impact;             // ground, not the first phase: 1 when the phase starts with an
                            //   impact: the velocity may jump at its start (a triple knot,
                            //   the spline C0 there) as an impulse at the contact sites would
                            //   make it (no impulsive joint torque; the impulse in the
                            //   friction cone, its centre of pressure inside the support);
                            //   0: the spline is C1 there and the sites land at rest. Not
                            //   given: 1 after a flight with knots by spacing (the default
                            //   spline) and sites on one link, else 0 (problem_read_spline)
    int effective_root;     // 1 (default on the ground, with hold): the root's translation
                            //   follows the first held site (Fang & Pollard's Appendix C), so
                            //   that it stays put between the knots too; 0 (default on a
                            //   bar): the holds alone
    salto_src_loc loc;
} salto_contact_desc;

// A box, axis-aligned but for a turn about +z: an obstacle the body keeps out of, and ground to
// stand on (a ground contact `on` it). A planar character's box spans every y.
// Plausible ranges of a problem's values, refused outside at file:line:col: a friction
// coefficient at most SALTO_FRICTION_MAX; every length, angle or speed a constraint or a box
// gives at most SALTO_VALUE_MAX in magnitude (metres, radians, per second: 10 km, 1600 turns)
#define SALTO_FRICTION_MAX 100.0
#define SALTO_VALUE_MAX 1e4

typedef struct salto_box_desc {
    char name[48];          // "" when not named
    double lo[3], hi[3];    // its corners, world, m (lo < hi), before the yaw turns it
    double yaw;             // turn about +z through its centre, rad (`yaw_deg`; 3-D only)
    double clearance;       // the NLP keeps every capsule at least this far out at the slices
                            //   (default SALTO_BOX_CLEARANCE), so that between them, where a
                            //   foot skimming an edge dips, it stays out too, m (>= 0)
    salto_src_loc loc;
} salto_box_desc;

// A box's default clearance, m: with none, a foot brushing a box's top edge at the slices of a
// step up dipped 1 cm into it between them (docs/problem-format.md, "Boxes")
#define SALTO_BOX_CLEARANCE 0.01
// Within this time of a phase holding a body on a box, the body's clearance from that box falls
// linearly to 0, s (nlp_layout.c, box_ramp)
#define SALTO_BOX_CLEARANCE_RAMP 0.1

typedef struct salto_phase_desc {
    char* name;
    double duration;        // s (> 0); a free duration's initial value (the NLP's nominal time)
    double start;           // s, sum of the previous durations
    int dur_free;           // 1: `duration: {min, max, initial}`: the optimiser chooses it in
    double dur_min;         //   [dur_min, dur_max] (min == max pins it, the knots and junction
    double dur_max;         //   rows kept: salto_solve_timed's second stage)
    salto_src_loc dur_loc;  //   where it is given
    double dur_lo, dur_hi;  //   pinned by salto_solve_timed: the range it was chosen in
    salto_contact_desc contact;
    int ballistic;          // flight with physics: 1 when the centre of mass follows its
                            //   parabola exactly, through place variables for its take-off
                            //   position and velocity (constraints added by the loader; the
                            //   default with knots by spacing); 0: the flight's rows alone
                            //   (the default with control points given)
    salto_src_loc loc;
} salto_phase_desc;

typedef enum salto_constraint_type {
    SALTO_CON_SITE_AT = 0,   // site position = point
    SALTO_CON_SITE_ON_LINE,  // site on the line through point along direction
    SALTO_CON_SITE_ON_PLANE, // site on the plane through point with normal
    SALTO_CON_SITE_STILL,    // site velocity = 0 through a phase
    SALTO_CON_POSE,          // q of the listed DOFs = values
    SALTO_CON_VELOCITY,      // qd of the listed DOFs = values
    SALTO_CON_COM_POSITION,  // centre of mass components = values
    SALTO_CON_COM_VELOCITY,  // centre-of-mass velocity components = values
    SALTO_CON_JOINT_LIMITS,  // every limited DOF within its limits at every slice
    SALTO_CON_ABOVE_GROUND,  // every geometry primitive above the plane z = height at every slice
    SALTO_CON_BODY_STILL,    // the angular velocity of a site's body = 0 through a phase
    SALTO_CON_SITE_ABOVE,    // site on the side of the plane through point that normal points to
    SALTO_CON_COM_ABOVE,     // the centre of mass likewise
    SALTO_CON_SITE_IN_BOX,   // site within the box lo .. hi (world axes; a bound may be open)
    SALTO_CON_COM_IN_BOX,    // the centre of mass likewise
    SALTO_CON_JOINT_RANGE,   // q of the listed DOFs within [lo, hi] (value: lo, hi pairs)
    SALTO_CON_CLEAR_BAR,     // every body's capsules (spheres, box corners) clear of the bar
                             //   through point along dir (unit), radius `height`, at every
                             //   slice; the links that hold a bar in some phase excepted
    SALTO_CON_BODY_HEADING,  // (added by the loader for a 3-D ground hold's second site) the
                             //   heading of the body on the ground (the angle about the normal of
                             //   the direction from site0 to site) equals a place variable
    SALTO_CON_SITE_HOLD,     // (added by the loader for a contact's hold) a site on a bar's axis
                             //   (point, dir) or on the ground plane (point, normal dir), at a
                             //   place along it that the NLP adds as variables
    SALTO_CON_COM_PARABOLA,  // (added by the loader for a ballistic flight phase) the centre of
                             //   mass on the parabola c0 + v0 tau + g tau^2 / 2 (tau from the
                             //   phase's start), c0 and v0 variables the NLP adds, at the knots
    SALTO_CON_COM_PARABOLA_VEL, // (likewise) its velocity v0 + g tau at the phase's two ends
    SALTO_CON_BODY_LEVEL,    // (added by the loader for a 3-D ground hold's second site) the
                             //   body not rolled about the line from site0 to site: its
                             //   zero-pose vertical (point, in the link's frame) has no
                             //   component across the line
    SALTO_CON_CLEAR_BOX,     // (added by the loader for each of the problem's boxes) every
                             //   body's capsules (spheres, box corners) outside box `box` (lo ..
                             //   hi) at every slice, save a body a phase holds on that box
    SALTO_CON_COUNT
} salto_constraint_type;

typedef struct salto_constraint_desc {
    salto_constraint_type type;
    char name[48];          // the file's name for it ("" for none): --set and sweeps address
                            //   it as constraints.NAME, and messages quote it
    // when: at one time, or at every slice of a phase (phase >= 0), or everywhere (both unset)
    int has_time;
    double time;            // s
    int phase;              // phase index, -1 when not through a phase
    int site;               // site constraints: model site index
    int site0;              // body_heading: the first site of the direction
    double point[3];        // site_at, on_line, on_plane: world point, m
    double dir[3];          // on_line: unit direction; on_plane: unit normal
    int ndof;               // pose, velocity: the DOFs constrained
    int* dof;               //   model DOF indices                      (ndof)
    double* value;          //   their values (rad, m, rad/s, m/s)      (ndof; joint_range:
                            //   a lo, hi pair each, +-INFINITY where open, 2 ndof)
    int mask[3];            // com_position, com_velocity, and the holds' site_still and
                            //   body_still (when any is set): which components are constrained
    double vec[3];          //   their values (m or m/s)
    double height;          // above_ground: plane height; clear_bar: the bar's radius;
                            //   clear_box: the box's clearance, m
    double lo[3], hi[3];    // site_in_box, com_in_box: the box, m (-/+INFINITY: open);
                            //   clear_box: the box's corners
    int box;                // clear_box: the problem's box (index into boxes)
    int at_knots;           // through a phase: 1 at the spline's knots in it rather than the
                            //   slices, 2 at its two ends only
    int skip_start;         //   and not at the phase's start (held there by the phase before)
    int hold_phase;         // 0: written by the user; i + 1: added to hold phase i's contact
    salto_src_loc loc;      //   (loc is then the contact's)
} salto_constraint_desc;

typedef enum salto_objective_type {
    SALTO_OBJ_ACCELERATION = 0, // Fang & Pollard eq. 20: mass-weighted squared joint accelerations
    SALTO_OBJ_REFERENCE,        // eq. 21: squared distance to a reference motion
    SALTO_OBJ_HEIGHT,           // a site's or the centre of mass's height (against gravity)
    SALTO_OBJ_TRAVEL,           // its coordinate along a direction
    SALTO_OBJ_TORQUE,           // eq. 19: weighted squared joint torques integrated over time
    SALTO_OBJ_CONTACT_FORCE,    // eq. 22: the squared contact force integrated over time
    SALTO_OBJ_CONTACT_JERK,     // eq. 23: the squared differences of the contact force between
                                //   consecutive slices of a contact phase, each over their time
                                //   apart (the integral of the squared force rate, to first order)
    SALTO_OBJ_DURATION          // a free phase's duration (the flight time), maximised or
                                //   minimised: weight x seconds
} salto_objective_type;

typedef struct salto_objective_desc {
    salto_objective_type type;
    char name[48];          // the file's name for it ("" for none): objective.NAME for --set
    double weight;          // >= 0
    char* motion;           // reference: path of a motion file (resolved against the problem)
    // height, travel: weight x (the value at a time, or its mean over the phase's slices),
    // maximised or minimised
    int site;               //   the site measured, -1 for the centre of mass
    double dir[3];          //   the unit direction it is measured along (height: against
                            //   gravity, +z without gravity)
    int has_time;           //   at time `time` (s), or over phase `phase` (then has_time 0;
                            //   contact_force, contact_jerk: phase -1 for every phase with a
                            //   contact)
    double time;
    int phase;
    int maximise;           //   1 (default): maximised; 0: minimised
    // torque: weight x integral of sum_j w_j tau_j^2 dt over the DOFs
    int ndof;               //   the joint DOFs (every DOF past the root's by default)
    int* dof;               //   (ndof, ascending)
    double* dofw;           //   and their weights w_j (ndof; 1 by default)
    salto_src_loc loc;
} salto_objective_desc;

typedef enum salto_guess_type {
    SALTO_GUESS_INTERPOLATE = 0, // linear interpolation between constrained poses from zero
    SALTO_GUESS_MOTION           // warm start from a motion file
} salto_guess_type;

typedef struct salto_guess_desc {
    salto_guess_type type;
    char* motion;           // warm start: path (resolved against the problem)
    int rot_phase;          // whole-body rotation over this phase, -1 for none
    int rot_dof;            //   the root DOF that turns
    double rot_angle;       //   by this angle, rad
    int ballistic;          // 1: in every flight phase the vertical root DOF follows (default 0)
                            //   a parabola under gravity on top of the interpolation
    salto_src_loc loc;
} salto_guess_desc;

typedef struct salto_solver_option {
    char* key;              // an IPOPT option name
    char* value;            // its value as written (the adapter tries integer, number, text)
    salto_src_loc loc;      // where the value is, for an option IPOPT rejects
} salto_solver_option;

enum { SALTO_FLIGHT_FORCE = 0, SALTO_FLIGHT_MOMENTUM = 1, SALTO_FLIGHT_MOMENTUM_ENDS = 2 }; // solver.flight_rows

enum { SALTO_LINEAR_SALTO = 0, SALTO_LINEAR_MUMPS = 1 };

typedef struct salto_solver_desc {
    double tolerance;       // IPOPT tol (default 1e-6)
    int max_iterations;     // IPOPT max_iter (default 1000)
    int hessian_exact;      // 0: limited-memory quasi-Newton, 1: exact (default)
    int derivatives;        // the aggregate force's Jacobian method, a salto_jac_method
                            //   (aggregate.h): linear (default), direct, fd-forward,
                            //   fd-central, richardson
    double max_cpu_time;    // s (default 600)
    int print_level;        // IPOPT's own print level (default 0: salto prints progress)
    int refine;             // slice refinement rounds after the first solve (default 0:
                            //   none): where salto_validate finds a physics or slice
                            //   constraint violated between the slices, a slice is added and
                            //   the solve resumed (salto_solve_refined, solver.h)
    double refine_fraction; // a violation is refined when above this fraction of its
                            //   validation threshold (default 0.5)
    int refine_max_iterations; // IPOPT max_iter of a refinement's re-solves (default 0: as
                            //   max_iterations); one that stops there is undone
    double refine_time;     // s: no refinement round starts once the solve has taken this
                            //   long, the first solve included (default 0: no limit)
    int linear_solver;      // the KKT factorisation inside IPOPT: SALTO_LINEAR_SALTO (default:
                            //   salto's own sparse LDL', the same rounding on every machine)
                            //   or SALTO_LINEAR_MUMPS (IPOPT's MUMPS)
    int flight_rows;        // a flight's physics rows at its slices (docs/problem-format.md):
                            //   SALTO_FLIGHT_FORCE: f0 = 0 at each slice (the default with
                            //   control points given);
                            //   SALTO_FLIGHT_MOMENTUM: the centroidal momentum against the
                            //   phase's constant (angular) or gravity's line (linear), the
                            //   constants variables;
                            //   SALTO_FLIGHT_MOMENTUM_ENDS: those, and f0 = 0 at the flight's
                            //   first and last slices (the default with knots by spacing)
    int nipopt;             // further IPOPT options, applied last (solver.ipopt)
    salto_solver_option* ipopt; //                                   (nipopt)
} salto_solver_desc;

// What salto validate uses unless its command line says otherwise (problem key `validation`).
typedef struct salto_validation_desc {
    int density;            // samples per slice interval (0: not given)
    int integrator;         // a salto_integrator (checks.h); -1: not given
    double step;            // the re-simulation's largest step, s (0: not given)
    double threshold[SALTO_CHECK_COUNT]; // by salto_check_kind; < 0: not given
    salto_src_loc loc;      // the `validation` key, if any
} salto_validation_desc;

// Where filmstrip.png looks at the poses from (output.filmstrip_view, salto solve and salto
// play's --view). Each view is right-handed: a photograph, not a mirror image.
typedef enum salto_filmstrip_view {
    SALTO_FILMSTRIP_SIDE = 0, // from -y towards +y: world x to the right, z up
    SALTO_FILMSTRIP_FRONT,    // from +x towards -x: world y to the right, z up
    SALTO_FILMSTRIP_TOP,      // from above, looking down: world x to the right, y up
    SALTO_FILMSTRIP_VIEW_COUNT
} salto_filmstrip_view;

typedef struct salto_output_desc {
    double frame_rate;      // CSV and BVH frames per second (default 60)
    int filmstrip_frames;   // poses drawn in filmstrip.png (default 8)
    int filmstrip_view;     // a salto_filmstrip_view (default SALTO_FILMSTRIP_SIDE)
} salto_output_desc;

// A reaction (de Heras 2002, chapter 4: a "dynamic situation"), for salto play --react: from
// `time` a force on a body (or an impulse at `time`), the simulated bodies' joints moving under
// it from the motion's state, their base and every other joint following the motion, pulled
// back toward it by joint torques; what they do is blended into the motion per body, the weight
// ramped in over blend_in, held until time + duration, ramped out over blend_out.
typedef struct salto_reaction_desc {
    double time;            // s: when the force starts, the impulse acts, the blend-in starts
    int body;               // the body pushed
    double point[3];        // where, in the body's frame, m (default: its centre of mass)
    double force[3];        // N, world frame, over `push` s; with impulse 1, N s at `time`
    int impulse;
    double push;            // s (a force's; default 0.05)
    unsigned char* simulated; // (nbody) 1 for the bodies whose joints are simulated (default:
                            //   the bodies from the root's child down to the pushed body, and
                            //   the pushed body's subtree)
    double* importance;     // (nbody) each simulated body's blend weight in [0, 1] (default 1;
                            //   0 for the others): de Heras's bone importance
    double duration;        // s from `time` until the blend-out starts (default 0.3)
    double blend_in;        // s, the attack (default 0.05, at most duration)
    double blend_out;       // s, the relaxation (default 0.5)
    double stiffness;       // 1/s^2 and 1/s: the pull back toward the motion, each simulated
    double damping;         //   joint's deviation e obeying e'' = -stiffness e - damping e'
                            //   besides the force (defaults 36, 12: critically damped, 6 rad/s)
    int line;               // where it was written (0: not from a file)
} salto_reaction_desc;

// A problem description. Owns its strings and arrays; path owns the file name every loc
// points at; the model is built from the character file.
typedef struct salto_problem_desc {
    char* path;             // the problem file
    int nset;               // the overrides it was loaded with (salto_problem_load_set),
    char** set;             //   "PATH=VALUE" each, in order (nset, owned; NULL when none)
    char* character;        // character file, resolved against the problem's folder
    salto_model* model;     // owned
    int physics;            // 1 (default): every slice obeys its phase's contact physics on
                            //   the aggregate force; 0: a purely kinematic problem
    double duration;        // s, sum of the phase durations
    int nphase;
    salto_phase_desc* phases;       // (nphase)
    int nbox;
    salto_box_desc* boxes;          // (nbox): obstacles and raised ground
    int ncp;                // control points per DOF (>= 4)
    int nslice;             // constraint time slices (default ncp), shared out among the phases
    int slices_per_segment; // > 0: each phase's slices are this many per knot interval,
                            //   aligned with its knots (nslice then only counts them); 0:
                            //   nslice shared out by duration
    double knot_spacing;    // s, > 0 when the loader chose the knots (spline.knot_spacing:
                            //   each phase cut into segments of at most this length), 0 else
    int knots_pinned;       // 1: phase_knots set apart from the spacing (salto_solve_timed's
                            //   second stage keeps the first's): a denser solve then records
                            //   its slices alone in the overrides; not from the file
    int skip_warmup;        // 1: salto_solve_refined starts from the x it is given, with no
                            //   first coarse solve (salto_solve_timed's second stage; not
                            //   from the file)
    salto_src_loc size_loc; // the key that set the spline's size (slices, slices_per_segment,
                            //   knot_spacing, control_points), else the phases: where a size
                            //   too large is reported (salto_problem_check_memory)
    int warmup;             // 1: salto_solve_refined first solves the problem on
                            //   SALTO_WARMUP_CONTROL_POINTS control points and as many slices
                            //   for the initial guess (spline.coarse_first; by default with
                            //   physics and knots by spacing, given or the default: a physics
                            //   problem whose file sets none of control_points, slices,
                            //   phase_knots, knot_spacing and slices_per_segment gets knots
                            //   every SALTO_DEFAULT_KNOT_SPACING s with
                            //   SALTO_DEFAULT_SLICES_PER_SEGMENT slices each)
    int nextra;             // slices added strictly inside phases (salto_problem_add_slices,
    double* extra_t;        //   by refinement), their times in increasing order (nextra)
    int* extra_ph;          //   and phases (nextra); owned
    int* phase_knots;       // interior knots inside each phase (nphase), or NULL (default):
                            //   shared out by duration (salto_problem_knots); owned
    int junction_c2;        // 0 (default): a double knot at every phase boundary (C1: the
                            //   acceleration may jump where a contact is made or released);
                            //   1: single knots (C2)
    int ncon;
    salto_constraint_desc* cons;    // (ncon)
    int nobj;
    salto_objective_desc* objs;     // (nobj)
    salto_guess_desc guess;
    salto_solver_desc solver;
    salto_output_desc output;
    salto_validation_desc validation;
    int nreaction;
    salto_reaction_desc* reactions; // (nreaction): the file's `reactions` (salto play --react)
    int root_turned;        // 1: the free root's angles are in a turned chart (salto_problem_
    double root_ref[9];     //   turn_root), its reference B (model built so, the root's poses
    double root_anchor[3];  //   and velocities converted) and the character chart's angles at
                            //   time 0 that its motion's frames start from; not from the file
} salto_problem_desc;

// Puts p's free root in the turned chart with reference B (orient.h): p->model's root set to it,
// and every pose and velocity constraint on the root's angles converted to that chart. path(ctx,
// t, q, qd) gives the root's angles and rates along a motion in that chart (the first solve's):
// a pose's orientation is the one its angles give, the angles it leaves out the path's at its
// time (a pose of one or two root angles then pins the others where the path has them), in the
// turned chart the set nearest the path's (so that its turns are kept); a velocity's angular
// velocity is the one its rates give at its time's orientation (its pose's when that gives all
// three angles, else the path's), the rates it leaves out the path's. Each such constraint then
// gives all three angles. anchor: the character chart's angles at time 0. SALTO_ERR_INVALID (p
// unchanged, err says why): a pose or velocity of root angles through a phase, a joint range on
// a root angle, a reference objective, limits on the root's angles, a root without a chart
// (salto_root_order); SALTO_ERR_NOMEM.
salto_status salto_problem_turn_root(salto_problem_desc* p, const double B[9], const double anchor[3],
                                     void (*path)(void* ctx, double t, double q[3], double qd[3]),
                                     void* ctx, salto_error* err);

// q, loaded from the same file and overrides as p (a stage's reload), in p's turned chart too:
// the model's reference and the converted values copied. Nothing when p is not turned. Returns
// 0, or -1 when memory runs out (q then unchanged, in the character's chart).
int salto_problem_inherit_turn(salto_problem_desc* q, const salto_problem_desc* p);

// Reads a problem file and the character it names. Returns a new description owned by the
// caller (release with salto_problem_destroy), or NULL with err filled, pointing at the
// offending value as file:line:col (SALTO_ERR_IO, SALTO_ERR_SYNTAX, SALTO_ERR_INVALID).
salto_problem_desc* salto_problem_load(const char* path, salto_error* err);

// The same with values replaced before reading: each set[i] is "PATH=VALUE", a dotted path
// into the file as for salto_cfg_set ("phases.flight.duration=0.66", "solver.hessian=exact").
salto_problem_desc* salto_problem_load_set(const char* path, int nset, const char* const* set,
                                           salto_error* err);

void salto_problem_destroy(salto_problem_desc* p); // accepts NULL

// "none", "bar" or "ground"
const char* salto_contact_name(salto_contact_type t);

// The name a problem file gives a constraint type ("site_at", ...; "site_hold" for the holds
// the loader adds)
const char* salto_constraint_name(salto_constraint_type t);

// The name a problem file gives solver.flight_rows' value: "force", "momentum" or
// "momentum_ends"
const char* salto_flight_rows_name(int rows);

// The name a problem file and --view give a filmstrip view: "side", "front" or "top" ("?"
// for others)
const char* salto_filmstrip_view_name(int view);

// The filmstrip view a name gives (salto_filmstrip_view_name's), or -1 for any other string
int salto_filmstrip_view_parse(const char* name);

// Phase i's formulation as an override (salto_problem_load_set): a flight's
// "phases.NAME.ballistic=true|false", a ground phase's "phases.NAME.contact.impact=true|false",
// as p has them (given, or the defaults its spline brought); nothing for a bar. Writes up to
// n bytes of buf and returns what snprintf returns (0 for a bar: nothing to say). Loading the
// problem again on another spline (the coarse first solve, a motion's control points) says
// these so that the defaults do not change with the spline.
int salto_problem_phase_formulation(const salto_problem_desc* p, int i, char* buf, size_t n);

// Box i's centre and half sizes, the axes its distances use (a planar character's y not) and its
// yaw, for salto_box_segment_distance_turned (obstacle.h)
// Whether a ground contact's plane (normal . x = height) is ground under some of its sites: it
// stands on no box as a whole, and a site is on the plane (site_box < 0) or it has none. The
// filmstrip and salto view draw that plane; 0 for other contacts.
int salto_contact_uses_plane(const salto_contact_desc* c);

void salto_problem_box_geometry(const salto_problem_desc* p, int i, double c[3], double h[3],
                                int use[3], double* yaw);

// 1 if phase `phase` holds the geometry of `body` on box i (the contact stands on it, with two
// held sites or more on the body; one held site: only the geometry with an end at that site, pt
// in the link's frame, NULL for any): its clearance from that box is the contact's
int salto_problem_box_holds(const salto_problem_desc* p, int phase, int i, int body,
                            const double* pt);

// The height of the ground site k of ground contact ct stands on: its box's top (`on`), else the
// contact's plane's (normal . x = height)
double salto_contact_site_height(const salto_problem_desc* p, const salto_contact_desc* ct, int k);

// The site phase i's effective root follows: the first of its held sites (each the first of its
// body, with a site_hold) that the phase before holds too, else its first site (-1: no contact)
int salto_problem_root_site(const salto_problem_desc* p, int i);

// 1 if link holds a bar in some phase (a bar contact's site is on it): clear_bar leaves it out
// (its grip)
int salto_problem_grips_bar(const salto_problem_desc* p, int link);

// The distinct moving links contact c's sites are on, in the order of their first sites, into
// link (up to 8; NULL: only counted), and how many of the sites each carries into count (may be
// NULL); sites on bodies welded to the world are left out
int salto_contact_links(const salto_model* m, const salto_contact_desc* c, int* link, int* count);

// The most links an impact may share its impulse among: 3 for a planar character, 2 in 3-D
// (every link after the first takes a variable impulse of 3 or 6 components, at most 6 in all)
int salto_impact_max_links(const salto_model* m);

// How many sites of body phase i holds on the ground (a ground contact with hold), the first
// of them into *site (-1 when none). Two or more hold the body flat, so its geometry is the
// contact's (no clearance rows, no penetration check); one lets it turn about that site, and
// only the geometry point at the site is (salto_problem_hold_point says which: the NLP's
// above_ground rows and salto_validate ask it alike).
int salto_problem_ground_hold(const salto_problem_desc* p, int i, int body, int* site);

// What a hold by the one site `site` makes of a geometry point pt of the site's link (pt in
// the link's frame, r the geometry's radius there; a planar model's y not compared):
// SALTO_HOLD_AT, the point is the site's (the hold's own: no clearance of its own);
// SALTO_HOLD_BALL, its ball (a capsule end's, a sphere's) holds the site strictly inside, so
// its surface reaches under the floor wherever the site is on it and only its centre is kept
// above (the gymnast's hands site, 3.7 cm past its arm capsule's end, 4.5 cm radius); 0, neither
enum { SALTO_HOLD_AT = 1, SALTO_HOLD_BALL = 2 };
int salto_problem_hold_point(const salto_model* m, int site, const double pt[3], double r);

// The poses (pose constraints) that give DOF dof a value: the latest at or before time ta into
// *c0 and *v0, the earliest at or after tb into *c1 and *v1 (any of the four may be NULL).
// Returns 1 for the first found, plus 2 for the second.
int salto_problem_pose_bracket(const salto_problem_desc* p, int dof, double ta, double tb,
                               const salto_constraint_desc** c0, double* v0,
                               const salto_constraint_desc** c1, double* v1);

// Phase index containing time t (the last phase for t = duration); -1 outside [0, duration].
int salto_problem_phase_at(const salto_problem_desc* p, double t);

// The constraint time slices, phase by phase: phase i gets m_i = slices_per_segment times its
// knot intervals when slices_per_segment > 0, else m_i = max(1, round((nslice - 1) d_i / T))
// intervals, so m_i + 1 slices spread evenly over [start_i, end_i], both ends
// included; a boundary between two phases is a slice of both (a single phase gives nslice
// slices over [0, T]). The extra slices (refinement's) are merged in, in time order. Fills
// times and phases (either may be NULL; room for salto_problem_slices(p, NULL, NULL)
// entries), in time order, and returns the count.
int salto_problem_slices(const salto_problem_desc* p, double* times, int* phases);

// Adds n slices at times t (strictly inside phase ph[k] each; others are ignored, as are times
// within 1e-9 s of a slice the problem already has). Returns the number added, or -1 when out
// of memory (p unchanged).
int salto_problem_add_slices(salto_problem_desc* p, int n, const double* t, const int* ph);

// m_i above: the slice intervals of phase i.
int salto_problem_phase_intervals(const salto_problem_desc* p, int i);

// The memory of the problem's NLP's physics rows alone (each slice's block, dense in the four
// control points of every DOF, sorted into the Hessian's pattern at 36 bytes an entry, and the
// evaluation scratch that grows as the DOFs squared): a lower bound of what salto_nlp_build
// estimates exactly and checks, made from the sizes alone so that a spline far too large is
// refused at its key (p->size_loc) before anything is allocated. SALTO_OK, or
// SALTO_ERR_INVALID over the limit (budget.h). salto_nlp_build calls it first.
salto_status salto_problem_check_memory(const salto_problem_desc* p, salto_error* err);

// The most slices a problem may have (the NLP indexes them with ints and holds their rows).
#define SALTO_MAX_SLICES 100000

// Slices aligned with the knots, sps intervals in every segment: the count they make (each
// phase's intervals and its start; a boundary is a slice of both phases); when it is at most
// SALTO_MAX_SLICES, p->slices_per_segment and p->nslice are set to them, else p is unchanged.
long salto_problem_align_slices(salto_problem_desc* p, int sps);

// The default spline (problem.warmup): docs/problem-format.md, "Spline"
#define SALTO_DEFAULT_KNOT_SPACING 0.05
#define SALTO_DEFAULT_SLICES_PER_SEGMENT 2
#define SALTO_WARMUP_CONTROL_POINTS 20

// The spline in words, for salto check and salto solve: "27 control points per DOF (a knot
// every 0.05 s at most), 69 slices (3 per segment, aligned with the knots)". Returns what
// snprintf returns.
int salto_problem_spline_summary(const salto_problem_desc* p, char* buf, size_t n);

// The frame of a contact (or of any unit direction) N: T_x is world x made normal to N (world
// y when N is near x), T_y = N x T_x; planar (the x-z plane): T_x = y x N, T_y = y. The ground
// contact's friction, centre-of-pressure and twist rows are written in it.
void salto_contact_frame(const double N[3], int planar, double Tx[3], double Ty[3]);

// The interior knots a boundary takes: 3 into a phase with an impact, else 1 with
// junction_c2, else 2. i: the phase the boundary starts (1 .. nphase - 1).
int salto_problem_junction_mult(const salto_problem_desc* p, int i);

// The spline's interior knots (ncp - 4 of them, into knots): each phase boundary is a knot,
// triple into a phase with an impact, else double unless junction_c2, and the remaining knots are shared out among the phases in
// proportion to their durations, evenly spaced within each. Returns 0 (knots untouched) when
// the spline is uniform (a single phase), else ncp - 4. The loader has checked that there are
// enough control points.
int salto_problem_knots(const salto_problem_desc* p, double* knots);

// How many interior knots fall strictly inside each phase (counts, nphase): phase_knots when
// given, else the share by duration salto_problem_knots uses. Giving a re-solve the counts of
// the problem it starts from (phase_knots) keeps its spline's layout when a duration changes,
// and the warm start can then take the control points as they are.
void salto_problem_knot_counts(const salto_problem_desc* p, int* counts);

// salto_problem_knots with the knots inside each phase given (counts, nphase, adding up to
// what phase_knots must; NULL: as salto_problem_knots).
int salto_problem_knots_from(const salto_problem_desc* p, const int* counts, double* knots);

// Reactions for p's motion (salto play --react): from a YAML file whose `reactions` list is
// read (a problem file's own, or a file holding that list; other top-level keys are left
// alone), or from spec: a YAML flow map ("{body: hand_r, force: [0, 200, 0], time: 0.5}") or
// the short form BODY:FX,FY,FZ@T[:PUSH] (every other setting its default). Errors name the
// file (or "--react"), line, column and field. *out (owned; salto_reactions_free) and *n.
salto_status salto_reactions_load(const salto_problem_desc* p, const char* path,
                                  salto_reaction_desc** out, int* n, salto_error* err);
salto_status salto_reactions_parse(const salto_problem_desc* p, const char* spec,
                                   salto_reaction_desc** out, int* n, salto_error* err);
void salto_reactions_free(salto_reaction_desc* r, int n); // accepts NULL

#endif
