// nlp_priv.h: what the NLP's files share inside libsalto: the blocks, the effective root's
// description, struct salto_nlp, and the functions one file defines for another
//
// Each constraint expands into blocks, one per evaluation time (its time, or every slice of
// its phase, or every slice). A block's rows depend on the q (and qd) of a set of DOFs at that
// time; with the four non-zero B-spline basis functions N_k (dN_k for qd) at the time, the
// derivative of a row with respect to control point first + k of DOF j is
//   dr/dq_j N_k + dr/dqd_j dN_k,
// so the Jacobian pattern is (row) x (dep DOFs) x (4 control points), built once. Blocks are
// sorted by time, and the kinematics are computed once per distinct time.
//
// The files, by concern (each begins with what it holds):
//   nlp_layout.c   the blocks, their dependencies, the Jacobian's pattern and the bounds
//                  (salto_nlp_build)
//   nlp_state.c    the state at a time: the splines, the effective root of held phases, the
//                  ballistic flights' derived translation, the kinematics and centre of mass
//   nlp_eval.c     evaluations: the kinematic constraint blocks, dispatch to the physics ones,
//                  the constraints, their Jacobian and the objective
//   nlp_physics.c  physics blocks: the aggregate force's rows, a flight's momentum rows, the
//                  impact at a phase's start; a contact_force objective's rows
//   nlp_torque.c   joint torque rows (the character's torque_limits, a torque objective) and
//                  their exact Hessian
//   nlp_hess.c     the Lagrangian Hessian: its pattern and its values block by block
//   nlp_guess.c    the initial guess and warm starts from motions and solutions
//   nlp_rows.c     rows by name and time, the rows' map between refinements, contact drift
//   nlp_motion.c   the variables as a motion (salto_motion_from_nlp, salto_validate)
//
// Who owns what of struct salto_nlp: the layout (salto_nlp_build) writes its top-level fields
// once, and every file reads them; the parts each concern owns are sub-structs: `obj`, the
// objective's constants (nlp_eval.c, nlp_hess.c read them), `root`, the derived root
// translations (nlp_state.c), `hess`, the Hessian's pattern and scratch (nlp_hess.c), and `ev`,
// the evaluation scratch with the cache of the kinematics in ev.d (whichever evaluation runs).
#ifndef SALTO_NLP_PRIV_H
#define SALTO_NLP_PRIV_H

#include "salto/nlp.h"

#include "salto/bspline.h"
#include "salto/data.h"
#include "salto/kinematics.h"

#define NLP_INF 1e20
#define NXAUX 6 // place variables a block's rows may all depend on (a 3-D flight's c0, v0)

typedef struct block {
    int con;             // constraint index in the problem; -1 for a physics block
    int phase;           // physics block: the phase whose contact it enforces; else -1
    double t;            // evaluation time, s
    int side;            // -1: the limit from the left at t (a phase's last slice), else +1
    int first;           // first control point of the four non-zero basis functions at t
    double N[4], dN[4], ddN[4]; // basis values and first and second time derivatives at t
    int row0, nrows;     // rows [row0, row0 + nrows)
    int diag;            // 1: row r depends on dep[r] only; 0: every row on all deps
    int ndep;            // DOFs the rows depend on
    int dep0;            // first entry in nlp->dep
    int jac0;            // first Jacobian entry
    int comp[3];         // component of each row (0, 1, 2), for names and site rows
    double e[3][3];      // projection direction of each row (on_line, on_plane)
    int link;            // above_ground, clear_bar: link of the point (-1: world); site rows:
                         //   unused
    double point[3];     // above_ground: the point in the link frame; clear_bar: the segment's
                         //   first end (its other in e[0])
    double offset;       // above_ground: radius below the point
    int chord;           // clear_box: 1 for a chord row: the path of the point (in the link
    double sweep[2];     //   frame) from P - sweep[0] v to P + sweep[1] v (v its velocity; the
                         //   half intervals to the slices either side, s), its first-order path
                         //   between the slices; 0: the segment point .. e[0] at t
    int aux[6];          // site_hold, a flight's momentum rows: the variable each row's place
                         //   or constant is, entering with -1 (-1: a fixed target, none)
    double target[3];    //   and the fixed targets
    int er;              // phase whose effective root the rows see (-1: the splines as they are)
    int nxaux;           //   and its place variables, on which every row then depends
    int xaux[NXAUX];
    int nnz;             // Jacobian entries
    int seq;             // the order the blocks were made in (the sort's last tie-break)
    int torque;          // 1: joint torque rows (a physics block by con = -1, nlp_torque.c):
    const int* tdof;     //   the DOF of each row (nrows): the limited DOFs (nlp->tq_dof),
    const double* rw;    //   or a torque objective's with their weights (obj)
    int slope;           //   1: the rows are tau + slope qd (the limits'), else tau
    int fobj;            // 1: a contact_force objective's rows, f0's force (planar: x, z)
    int quad;            // an objective block's term: 1 ow sum_r rw_r row_r^2 (rw NULL: 1),
                         //   0 ow sum_r row_r, 2 a contact_jerk's (its pairs, nlp->jk_*)
    int force;           // 1: f0's rows in a flight whose other rows are its momentum (its
                         //   first and last slices with flight_rows momentum_ends)
    int obj;             // 1: an objective term's block (con is then p->ncon + the objective's
                         //   index, nlp_cd): its rows are not constraints but enter the
                         //   objective as ow x row, and it follows every constraint block
    double ow;           //   the rows' weight in the objective (signed: -w / n to maximise)
    int oi;              //   the objective term's index in the problem (p->objs)
    int impact;          // 1: the impact at the start of phase `phase` (a physics block by
                         //   con = -1): N picks q (the control point the C0 spline passes
                         //   through), ddN the velocity's jump u = qd+ - qd- (impact_rows)
    // free phase timing (nlp_time.c): the block's time is nominal, at its place in phase tph
    // (-1: a fixed phase's, or none); with that phase's duration d (nominal D) its basis is
    // dN = r dN0 and ddN = r^2 ddN0, r = D / d, and a chord's sweep = sweep0 / r
    int tph;
    double r;            //   the scale applied now (1 for a fixed phase)
    double dN0[4], ddN0[4], sweep0[2];
    double ow0;          //   a torque or contact_force objective's weight ow at the nominal
                         //   duration (ow = ow0 d / D: the trapezoid rule's time steps)
    int ntc;             // duration variables every row depends on (0, 1, or 2 for a junction)
    int tc[2];
    int junc;            // 1: a free boundary's junction rows (a physics block by con = -1,
                         //   phase the one it starts, diag, one row per DOF): qd_j from the
                         //   left (r_L jL . c) less qd_j from the right (r_R jR . c), the
                         //   nominal weights jL, jR on control points first .. first + 3
                         //   (an impact's jump, ddN, is r_R jR . c - r_L jL . c likewise)
    double jL[4], jR[4];
} block;

// Fang & Pollard's effective root (Appendix C) in a phase whose contact holds its sites: the
// root's world translation is not read from its splines but follows the first held site, so
// that the site stays exactly at its place P: q_T = a . (P - g), qd_T = -a . g', qdd_T =
// -a . g'', with g, g', g'' the site's position, velocity and acceleration with the
// translation at zero (a translation moves every point alike), a the translation DOFs' world
// axes and P from the hold's rows (place variables and fixed targets).
typedef struct eroot {
    int site;            // the held site, -1 when the phase has no effective root
    int nt;              // translation DOFs (the root's first, prismatic, world-fixed axes)
    int tdof[3];
    double a[3][3];      //   their world axes
    int nr;              // the hold's rows: a_j . P = sum_r c[j][r] place_r
    double c[3][3];
    int aux[3];          //   row r's place variable, or -1 for its fixed target
    double target[3];
    int naux;            // the distinct place variables, ascending
    int auxv[3];
} eroot;

// The objective's constant parts: the layout computes them once; nlp_eval.c evaluates the
// objective and nlp_hess.c copies its band into the Hessian
typedef struct nlp_objective {
    double* G;               // banded Gram matrix of second derivatives (7 ncp)
    double* G0;              // banded Gram matrix of values (7 ncp)
    double* w;               // per-DOF objective weight w omega_j^2 (nv)
    double rho;              // weight of the regularisation int q^2 dt (every DOF)
    double ref_w;            // weight of the reference term int (q - q_R)^2 dt (eq. 21)
    double* ref_b;           // its linear part int N_a q_R,j dt                (nv x ncp)
    double ref_c;            // and its constant part sum_j int q_R,j^2 dt
    int dofs;                // DOFs with a non-zero objective weight (0 or nv)
} nlp_objective;

// The Lagrangian Hessian's pattern and scratch (nlp_hess.c; the layout sizes and allocates
// them)
typedef struct nlp_hessian {
    int* row;                // the pattern, lower triangle (nnz_hess)
    int* col;                //                             (nnz_hess)
    int* obj;                // pattern index of each objective band entry
    int* blk;                // pattern indices of the blocks' dense lower triangles
    int* blk0;               // first entry of each block in blk, -1 if linear (nblock)
    int* jk;                 // pattern indices of each contact_jerk pair's cross block (its
    long* jk0;               //   first block's variables by its second's, row-major), and the
                             //   first entry of each pair in it (njk)
    double* xs;              // a copy of x for differences (nx)
    double* Jp;              // a block's Jacobian rows at x + h and x - h (2 x 3 x 4 nv)
    double* Sacc;            // the point rows' state Hessian at one time, summed into the
                             //   physics block's there (acc) when one reads every DOF (ns^2)
    int acc;                 //   that block, or -1
    int acc_used;            //   whether Sacc holds anything
    double* Sl;              // its Hessian in the state (3 nv)^2
    double* Tl;              // and that times the state map (3 nv x 4 nv)
    double* Ql;              // the friction cone's qdd-qdd part (nv x nv)
    double* fw;              // salto_f0_hess's work (72 nv)
    int* map;                // a block's local index of each DOF (nv)
    int* map2;               //   another (nv)
    int* path;               // a link's path, root first (3 nv + NXAUX: also a list of slots)
    double* pv;              //   per-link vectors along it (6 nv)
    double* Hf;              // a physics block's Hessian in the full state ((3 nv)^2)
    double* Er;              // the effective root's chain rows and their products with it
                             //   (18 (3 nv + NXAUX) + 18 nv)
    double* tw;              // the torque rows' Hessian: salto_torques_hess's work (72 nv + nv^2),
    double* H2;              //   a second full-state Hessian (9 nv^2) and gradients (24 nv),
    double* tg;              //   nlp_torque.c
    double* Jb;              // a physics block's f0 and support-centre Jacobians at x (6 x 3 nv,
                             //   3 x nv) and M (nv x nv): hess_physics
    int* grp;                // the blocks of one time and side whose Hessians are taken together
    size_t* grp_at;          //   and where each one's gradient and state Hessian start in arena
    double* arena;           //   (grp_cap doubles: the largest such group's sum of 3 nd + 9 nd^2)
    size_t grp_cap;
    int linear;              // 1 while the Hessian differences Jacobians: physics rows by the
                             //   linear-time method whatever solver.derivatives says
} nlp_hessian;

// Evaluation scratch, shared by whichever evaluation runs (nothing is allocated while
// evaluating), and the cache of the kinematics in d
typedef struct nlp_scratch {
    salto_data* d;
    double* J3;              // a point Jacobian, 3 x nv
    double* dq;              // row derivatives of one block (3 x nv)
    double* dqd;             // (8 x nv)
    double* dqdd;            // (8 x nv), physics rows only
    double* Jf;              // the aggregate force's Jacobian, 6 x 3 nv
    double* sums;            // com helper: m, h (3), Hf (3) per link (nv x 7)
    double last_t;           // time of the kinematics in d
    int last_side;           //   and the side of it they were taken from (block.side)
    const double* last_x;    // and the x they were computed from
    int have_state;
    int last_er;             // the effective root (phase) of the kinematics in d, -1 for none
    double* daux;            // a block's row derivatives in its place variables (8 x NXAUX)
    double* fq;              // full-width rows for the chain rule                (3 x nv)
    double* Jt;              // the torque rows' Jacobian (nv x 3 nv), their values (tq, nv),
    double* tq;              //   the contact links under each (tq_under, nv) and the contact
    int* tq_under;           //   shares' Jacobians and centroids' (wjac: 8 x 6 x 3 nv + 8 x 3 nv)
    double* wjac;
    double* og;              // an objective block's rows and their weights (2 nv)
    double* imp;             // an impact's scratch: q, u, rows (nv + 8), a unit jump, the
                             //   shared impulses and a unit share (NXAUX each) (5 nv + 32)
} nlp_scratch;

// The root translations derived rather than read from their splines (nlp_state.c; the layout
// fills them): the effective root of each held phase, and the ballistic flights' axes
typedef struct nlp_roots {
    eroot* er;               // per phase                                          (nphase)
    double* J;               // at the last effective-root state: the held site's Jacobian
                             //                                                    (3 x nv)
    double* Dv;              //   its velocity's derivative in q                   (3 x nv)
    double* Daq;             //   its acceleration's in q and qd                   (3 x nv)
    double* Daqd;            //                                                    (3 x nv)
    double* aJ;              //   each translation's axis dotted with them (nt x nv each, zero
    double* aV;              //   at the translation's own DOFs): what nlp_er_chain takes off
    double* aAq;             //   every row's derivatives
    double* aAqd;
    int bal_nt;              // the root's translation DOFs and their world axes (ballistic)
    int bal_tdof[3];
    double bal_a[3][3];
} nlp_roots;

struct salto_nlp {
    const salto_problem_desc* p;
    const salto_model* m;
    salto_bspline spline;
    int nv, ncp, nx, ng, nnz_jac, nnz_hess;
    double mem_build;        // the build's peak memory, estimated before the Hessian's pattern
    double mem_steady;       //   (its largest part) and the built NLP's (bytes; nlp_hess.c)
    int planar;              // salto_model_is_planar, once
    int ncpv;                // control-point variables, nv ncp; the contact places follow
    int naux;                //   (site_hold), nx = ncpv + naux
    int* con_aux;            // first place variable of each constraint, -1 for none (ncon)
    int* bal;                // per phase: first place variable (c0 then v0, nt each) of a
                             //   ballistic flight's parabola, -1 for none            (nphase)
    int* mom;                // per phase: first place variable of a flight's momentum
                             //   constants (solver.flight_rows: momentum), -1 for none (nphase)
    int* impv;               // per phase: first variable of the impulses an impact at its start
                             //   gives its contact's second and later links (nlp_impact_links),
                             //   -1 for none                                         (nphase)
    int ntq;                 // the DOFs with a torque limit (the character's torque_limits),
    int* tq_dof;             //   each a row of every torque block, ascending (ntq)
    int nblock;
    block* blocks;           // (nblock), sorted by time, then the objective terms' blocks
    int nobjblk;             //   (nobjblk, at blocks + nblock, sorted by time): a height or
                             //   travel objective's, rows ng.. after the constraints' (nobjrow)
    int nobjrow;
    salto_constraint_desc* ocons; // per objective, the constraint whose rows its blocks have
                             //   (site_above or com_above through the origin; nobj)
    double* lam_ext;         // the Hessian's multipliers and the objective rows' weights
                             //   (ng + nobjrow)
    int njk;                 // contact_jerk objectives (eq. 23): pairs of their blocks (quad 2)
    int* jk_a;               //   at consecutive slices of one phase, a before b (block indices),
    int* jk_b;               //   the term sum_p jk_w[p] |rows(b) - rows(a)|^2,
    double* jk_w;            //   jk_w = weight / (t_b - t_a)                         (njk each)
    double* jk_f;            // scratch: each objective block's rows and, for a contact_jerk's,
    double* jk_c;            //   the term's derivative in them (3 per objective block)
    double* jk_J;            //   and a contact_jerk block's rows' Jacobian in its variables (3 x
                             //   (4 nv + NXAUX) per objective block; the Hessian's cross terms)
    int* dep;                // dependency lists of the blocks
    int* jac_row;            // (nnz_jac)
    int* jac_col;            // (nnz_jac)
    double* g_lo;            // (ng)
    double* g_hi;            // (ng)
    double* x_lo;            // (nx)
    double* x_hi;            // (nx)
    int nslice;              // (phase, time) slices, salto_problem_slices
    double* slice_t;         //   their times (nslice)
    int* slice_ph;           //   and phases (nslice)
    salto_motion* warm;      // the warm-start motion, or NULL
    double* msub;            // mass of each link's subtree, kg (nv)
    // free phase timing (nlp_time.c): the durations are the last ntv variables
    int ntv;
    int* tvar;               // per phase: its duration's variable, -1 when fixed (nphase)
    double* tnom;            // per phase: the nominal duration D, the layout's (nphase)
    double* tcur;            // per phase: the duration the blocks are scaled to now (nphase)
    double* Gk;              // per phase: the objective's Gram matrices over that phase alone,
    double* G0k;             //   second derivatives and values (nphase x 7 ncp; NULL when
                             //   ntv is 0); obj.G = sum_k r_k^3 Gk, obj.G0 = sum_k G0k / r_k
    int* tband0;             // per phase: first of its duration's band Hessian slots in tslot
                             //   (nphase + 1): (d, c_ja) for every DOF j and a in the phase's
                             //   support, then (d, d)
    int* tb0;                // per block: first of its duration rows' slots in tslot, -1 for
                             //   none (nblock + nobjblk): (d_t, u) for u the block's variables, then its
                             //   durations, per duration column t
    int* tslot;              // the durations' Hessian slots (nlp_time_hess_pairs' order)
    double* tscr;            // scratch: a block's gradient at d + h and d - h (2 (4 nv + NXAUX +
                             //   2)), its deps' qd and qdd (2 nv), its rows' d-derivatives (8 + nv)
    nlp_objective obj;       // the objective's constants
    nlp_roots root;          // the derived root translations
    nlp_hessian hess;        // the Hessian's pattern and scratch
    nlp_scratch ev;          // evaluation scratch
};


// the physics rows of flight phase ph: f0 (planar n_y, f_x, f_z) or its momentum, a ballistic
// flight's torque or angular momentum about the centre of mass alone (planar: about y)
static inline int flight_nrows(const salto_nlp* nlp, int ph) {
    return nlp->bal[ph] >= 0 ? (nlp->planar ? 1 : 3) : (nlp->planar ? 3 : 6);
}


// constraint c of the problem, or past its constraints an objective term's (block.obj)
static inline const salto_constraint_desc* nlp_cd(const salto_nlp* nlp, int c) {
    return c < nlp->p->ncon ? &nlp->p->cons[c] : &nlp->ocons[c - nlp->p->ncon];
}


// the place variable of row r of block b (site_hold rows only), -1 for none
static inline int row_aux(const block* b, int r) { return r < 6 ? b->aux[r] : -1; }


// the builder of the blocks (nlp_layout.c; the effective root's assignment adds to it)
typedef struct builder {
    salto_nlp* nlp;
    int cap_block;
    int ndep, cap_dep;
    int* dep;
} builder;


// a row as a linear function of f0 and c: value and gradients
typedef struct frow {
    double v;
    double df0[6];
    double dc[3];
} frow;


// ---- defined in one file for the others (each documented at its definition) ----

// nlp_layout.c: the layout
int nlp_hold_rows(const salto_problem_desc* p, const salto_constraint_desc* cd, int planar,
                  double e[3][3], int* is_aux, double* target, int* naux);
int nlp_cmp_block(const void* a, const void* b);
// a clear_bar block's segment ends in the world at the kinematics in nlp->ev.d
void nlp_bar_segment(const salto_nlp* nlp, const block* b, double xa[3], double xb[3]);
// a chord block's point P (world), its velocity v and the chord's ends xa, xb, at the kinematics
// in nlp->ev.d (velocities included)
void nlp_chord(const salto_nlp* nlp, const block* b, double P[3], double v[3], double xa[3],
               double xb[3]);
// A clear_bar row at the kinematics in d: the distance of the segment a-b (world, on one link)
// from the bar's axis less the radii (b->offset), its gradients in a and b (3 each) and unless
// NULL its Hessian in (a, b) (6 x 6), exact (nlp_eval.c)
double nlp_bar_distance(const salto_constraint_desc* cd, const double a[3], const double bw[3],
                        double offset, double ga[3], double gb[3], double* H6);

// a clear_bar's or clear_box's row: nlp_bar_distance, or the segment's signed distance from the
// box (salto_box_segment_distance) less offset, with the same derivatives
double nlp_clear_distance(const salto_nlp* nlp, const salto_constraint_desc* cd, const double a[3],
                          const double bw[3], double offset, double ga[3], double gb[3], double* H6);

// nlp_state.c: the state at a time, the effective root, ballistic flights, the centre of mass
int nlp_is_parabola(salto_constraint_type t);
void nlp_setup_eroots(salto_nlp* nlp);
salto_status nlp_assign_eroots(salto_nlp* nlp, builder* B);
void nlp_er_state(const salto_nlp* nlp, const double* x, int ph, salto_fk_level level, int derivs);
void nlp_er_chain(const salto_nlp* nlp, int ph, double* rq, double* rqd, double* rqdd,
                  double* raux);
void nlp_state_raw(const salto_nlp* nlp, const double* x, double t, double* q, double* qd,
                   double* qdd);
void nlp_block_state(salto_nlp* nlp, const double* x, const block* b, int acc);
void nlp_kinematics_at(salto_nlp* nlp, const double* x, const block* b);
void nlp_com_sums(salto_nlp* nlp);
void nlp_com_from_sums(const salto_nlp* nlp, double* c, double* cdot);
void nlp_com_jac(const salto_nlp* nlp, double* J);
// the same kind of block in two NLPs (constraint, phase, side, impact, rows, place on the
// body), whatever their times (nlp_rows.c)
int nlp_same_kind(const block* a, const block* b);

// nlp_physics.c: physics, momentum and impact blocks
// The rows' curvature in (f0, c) weighted by the multipliers lam (b->nrows): Pff (6 x 6,
// d2/df0 df0) and Pfc (6 x 3, d2/df0 dc); the rows are linear in c alone
void nlp_physics_curvature(const salto_nlp* nlp, const block* b, const double* lam,
                           double Pff[6][6], double Pfc[6][3]);
void nlp_physics_rows(const salto_nlp* nlp, const block* b, const double* f0, const double* c,
                      frow* rows);
// The rows' weights on f0 and the support centre, mu = sum_r lam_r df0_r and nu = sum_r lam_r
// dc_r, over n rows (nu may be NULL)
void nlp_rows_weights(const frow* rows, int n, const double* lam, double mu[6], double nu[3]);
// A ground contact's support centre, its sites' centroid, at the kinematics in nlp->ev.d, and
// its Jacobian into J3 (3 x nv, unless NULL; nlp->ev.sums is the scratch)
void nlp_support_centre(salto_nlp* nlp, const salto_contact_desc* ct, double c[3], double* J3);
// how far a held sole may roll off level: the sine of one degree (nlp_layout.c)
#define NLP_LEVEL_BAND 0.0174524064372835
int nlp_momentum_comp(const salto_nlp* nlp, int r);
double nlp_momentum_part(const salto_model* m, const double* p0, const double* c, int k,
                         double tau);
void nlp_eval_momentum(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac);
void nlp_eval_physics(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac);
void nlp_impact_basis(const salto_nlp* nlp, block* b);
// the links an impact at phase ph's start shares its impulse among (link[0] takes the rest of
// the aggregate), into link (8); the variables of the others' impulses: (n - 1) x
// nlp_impulse_width, from nlp->impv[ph]
int nlp_impact_links(const salto_nlp* nlp, int ph, int* link);
// the components of one link's impulse variable: 3 for a planar character (n_y, f_x, f_z), 6
int nlp_impulse_width(const salto_nlp* nlp);
void nlp_impact_rows(salto_nlp* nlp, const block* b, const double* u, const double* xi, double* g,
                     double iota_out[6], frow* rows_out);
void nlp_eval_impact(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac);

// nlp_physics.c: a contact_force objective's rows (f0's force) and their Hessian as
// nlp_torque_obj_hess's
void nlp_eval_force_rows(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac);
void nlp_force_obj_hess(salto_nlp* nlp, const block* b, double obj_factor, double* H, double wq[3],
                        double wv[3], double wa[3]);
// the same for sum_r mu_r row_r + (gn / 2) |rows|^2: the rows' curvature weighted by mu
// (nrows) and gn J' J
void nlp_force_rows_hess(salto_nlp* nlp, const block* b, const double* mu_r, double gn, double* H,
                         double wq[3], double wv[3], double wa[3]);
// nlp_eval.c: the contact_jerk terms' rows into nlp->jk_f and (want_c) their derivative in the
// rows into nlp->jk_c, at x (k >= 0: objective k's alone); returns the terms' value
double nlp_jerk_rows(salto_nlp* nlp, const double* x, int k, int want_c);

// nlp_torque.c: the joint torque rows, tau_j + slope_j qd_j for each limited DOF j
void nlp_eval_torque(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac);
// their Hessian sum_r lam_r d2 row_r in the full state (3 nv x 3 nv) at nlp->hess.xs, and where
// b sees an effective root the full-state gradient's weights at its translation (wq, wv, wa),
// from the rows' full-state Jacobian J (K x 3 nv) at that state, or computed when J is NULL
void nlp_torque_hess(salto_nlp* nlp, const block* b, const double* lam, const double* J, double* H,
                     double wq[3], double wv[3], double wa[3]);
// a torque objective's block: the full-state Hessian of obj_factor ow sum_r rw_r row_r^2
void nlp_torque_obj_hess(salto_nlp* nlp, const block* b, double obj_factor, double* H, double wq[3],
                         double wv[3], double wa[3]);

// nlp_time.c: free phase timing
salto_status nlp_time_setup(salto_nlp* nlp);
salto_status nlp_time_layout(salto_nlp* nlp);
void nlp_time_block(salto_nlp* nlp, block* b);
void nlp_time_update(salto_nlp* nlp, const double* x);
void nlp_block_scale(const salto_nlp* nlp, block* b, double d);
void nlp_time_dcol(salto_nlp* nlp, const double* x, const block* b, double* dcol);
double* nlp_time_dscratch(const salto_nlp* nlp);
void nlp_eval_junction(salto_nlp* nlp, const double* x, const block* b, double* g, double* jac);
double nlp_time_objective(const salto_nlp* nlp, const double* x, double* grad);
long nlp_time_hess_pairs(const salto_nlp* nlp, long* pairs);
salto_status nlp_time_hess_slots(salto_nlp* nlp, const int* slot);
void nlp_time_hess(salto_nlp* nlp, const double* x, double obj_factor, const double* lambda,
                   double* values);

// nlp_eval.c: constraint and objective evaluations
void nlp_eval_block(salto_nlp* nlp, const double* x, const block* b, double* g, int want_jac);
int nlp_finite_n(const double* v, int n);
double nlp_band(const salto_nlp* nlp, int j, int a, int o);

// nlp_hess.c: the Lagrangian Hessian
salto_status nlp_build_hessian_pattern(salto_nlp* nlp, salto_error* err);
// sign x w . d2x/dq dq into the q-q block of S (ns x ns, row-major; map: DOF -> local index, -1
// where not read) for a point x fixed on link l, at the kinematics in nlp->ev.d
void nlp_point_hess_add(const salto_nlp* nlp, double* S, int ns, const int* map, int l,
                        const double* x, const double* w, double sign);

// nlp_guess.c: initial guesses and warm starts
void nlp_knots_per_phase(const salto_nlp* nlp, int* n);

#endif
