// sim_priv.h: what the stepping simulator's files share: the constraint rows, struct
// salto_sim, the row keys, and the functions one file defines for the others
//
// The files (each begins with what it holds):
//   sim.c           options, creation, state, inputs (torques, forces, tracking, holds, grips)
//                   and the step
//   sim_contacts.c  finding contacts: geometry points against the ground and the bars
//   sim_adaptive.c  adaptive dynamics: the character stepped as a hybrid body, its locked
//                   joints' model simulated by a simulator of its own
//   sim_solve.c     the constraint rows, their matrix K by test forces or the delta method,
//                   projected Gauss-Seidel, impacts, and the accelerations (tracked or free)
#ifndef SALTO_SIM_PRIV_H
#define SALTO_SIM_PRIV_H

#include "salto/sim.h"

enum { row_normal = 0, row_tangent, row_limit, row_track, row_hold, row_grip };
enum { max_holds = SALTO_SIM_MAX_HOLDS };

typedef struct row {
    int kind;
    long key;         // the same constraint in the next step has the same key (warm start)
    int link;         // contact rows: the link; limit rows: the DOF
    int contact;      // contact rows: the contact; tangent rows' normal row: normal
    int normal;       // tangent rows: their normal row
    double dir[3];    // contact and hold rows: the direction
    double pt[3];     // contact and hold rows: the point the force acts at, world
    double sign;      // limit rows: +1 at the lower limit, -1 at the upper
    double gap;       // penetration along the row (> 0: inside), m or rad
    double bound;     // grip rows: the largest torque, N m (the row: a torque about dir on link)
    double u[6];      // contact, hold and grip rows: the spatial force of a unit multiplier
                      //   (the point force dir at pt, or the couple dir), filled by collect
} row;

struct salto_sim {
    const salto_model* m;
    salto_sim_opts o;
    salto_data* d;
    double t;
    double *q, *qd, *tau, *fext, *fuser, *qdd;
    double *q0, *qd0;                 // a substep's start, for backtracking
    double* dA;                       // delta pass scratch (nv x 6)
    int planar;
    // constraints
    int nrow, cap;
    row* rows;
    double *K, *resp, *lambda, *target, *now, *vel; // K (cap x cap), responses (cap x nv)
    int ncontact, ccap;
    salto_sim_contact* contacts;
    // tracking
    int tracking;
    double kp, kd;
    double *tq, *tqd, *tqdd, *ttau;
    int* at_limit;                    // per DOF: at a limit at the end of the last step
    int* no_bars;                     // per link: 1 if it does not collide with the bars
    long bars_version;                //   (counts salto_sim_ignore_bars calls)
    const unsigned char* no_bars_geom; // per geometry instead, when set (adaptive dynamics'
                                      //   locked character: a part's geometries differ)
    int synced;                       // d holds (q, qd) at the velocity level, depth is its
    double depth;                     //   deepest penetration
    int ttau_stale;                   // the reduced solve's tracking torques wait for a reader:
    double *tt_q, *tt_qd, *tt_qdd;    //   its state and accelerations
    salto_data* d2;                   //   and their inverse dynamics' data
    double *work, *work2;             // the solver's scratch
    int* iwork;
    double* sm_work;                  // the subspace step's and the exact solve's scratch
                                      //   (pgs_core): 2 cap x cap + 8 cap
    int* sm_free;                     //   and its free rows, their places, pivots (3 cap)
    int nprev;                        // the last acceleration solve's rows: keys, multipliers
    long* prev_key;
    double* prev_lambda;
    // holds: sites kept at points
    int nhold;
    int hold_site[max_holds];
    double hold_point[max_holds][3];
    // grips: a bounded torque about a world axis on a link, following the tracked rotation
    int ngrip;
    int grip_link[max_holds];
    double grip_axis[max_holds][3];
    double grip_max[max_holds];
    salto_sim_stats stats;
    struct sim_adaptive* ad;          // adaptive dynamics while no joint is tracked (NULL: off)
};

// Row keys: the contacts' first (the ground and the bars), then from row_key_base two per DOF
// for its limits, three per hold, one per DOF for its tracking, one per grip
static inline long row_key_base(const salto_model* m) { return 24L * m->ngeom * (1 + SALTO_SIM_MAX_BARS); }
static inline long hold_key(const salto_model* m, int k, int a) { return row_key_base(m) + 2L * m->nv + 3L * k + a; }
static inline long track_key(const salto_model* m, int j) { return row_key_base(m) + 2L * m->nv + 3L * max_holds + j; }
static inline long grip_key(const salto_model* m, int k) { return row_key_base(m) + 3L * m->nv + 3L * max_holds + k; }


// ---- defined in one file for the others (each documented at its definition) ----

// sim_contacts.c: finding contacts
void sim_point_vel(const salto_data* d, int link, const double x[3], double v[3]);
void sim_point_acc(const salto_model* m, const salto_data* d, int link, const double x[3],
                   double a[3]);
int sim_bar_touch(const salto_sim* s, int b, const double c[3], double r, double n[3], double x[3],
                  double* depth);
int sim_nearest_inside(const salto_sim* s, int b, const double p0[3], const double p1[3],
                       double c[3]);
// the least signed distance of the segment p0-p1 (a point when equal) from box b, and the
// segment's parameter there into *u (may be NULL)
double sim_box_distance(const salto_sim* s, int b, const double p0[3], const double p1[3],
                        double* u);
void sim_collect(salto_sim* s, double h);

// sim_adaptive.c: the hybrid body's step (salto_sim_set_adaptive), and its release
salto_status sim_adaptive_step(salto_sim* s, salto_error* err);
void sim_adaptive_free(struct sim_adaptive* ad);
void sim_adaptive_reset(struct sim_adaptive* ad);
// sim.c: the joints arriving at a limit since the last step, counted
void sim_count_limit_events(salto_sim* s);

// sim_solve.c: the constraint rows, K, projected Gauss-Seidel, impacts and accelerations
double sim_last_multiplier(const salto_sim* s, long key);
salto_status sim_impacts(salto_sim* s, int* any);
salto_status sim_accelerations(salto_sim* s, double h);

#endif
