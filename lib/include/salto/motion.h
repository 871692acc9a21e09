// motion.h: motions as data: frames of q on a character, read from and written to files
//
// A salto_motion is what salto solve writes (motion.json, motion.csv, motion.bvh) and what
// warm starts, reference motions, validation and playback read back; salto_frames are frames
// from elsewhere (CSV, BVH) fitted with splines; a salto_state_fn is any motion given by its
// state at a time. motion.json's writer, which records the solve, is the solver's (solver.h).
#ifndef SALTO_MOTION_H
#define SALTO_MOTION_H

#include "salto/bspline.h"
#include "salto/data.h"
#include "salto/problem.h"

typedef struct salto_motion salto_motion;

// frame values below this magnitude are rounding noise about zero and are written as 0
#define SALTO_MOTION_ZERO 1e-12

// A motion by its state at any time t inside its problem's span: q, qd, qdd (each nv; qd and
// qdd may be NULL when not wanted). Validation calls it with t in increasing order within
// each phase, each phase's times just inside it, so that a motion with a jump in acceleration
// at a phase boundary gives each side's.
typedef void (*salto_state_fn)(void* ctx, double t, double* q, double* qd, double* qdd);

// motion.csv: a header "t,<dof names>" and one row per frame.
salto_status salto_motion_write_csv(const salto_motion* mo, const char* path, salto_error* err);


// The spline of problem p's DOFs as salto solve builds it, into s: knots at the phase boundaries
// (salto_problem_knots_from: counts knots inside each phase, p->phase_knots when counts is
// NULL), or the uniform spline for a single phase. SALTO_ERR_INVALID when p's control points
// do not make a cubic B-spline over its duration, SALTO_ERR_NOMEM. Release with
// salto_bspline_release.
salto_status salto_problem_spline(const salto_problem_desc* p, const int* counts,
                                  salto_bspline* s);


// ---- motions as data: frames of q on a model ----

// A motion sampled at a fixed frame rate: nframe frames of the model's nv DOFs. Written by
// salto solve, read back for warm starts, reference motions and validation.
struct salto_motion {
    int nv;              // DOFs per frame
    int nframe;          // frames (>= 1)
    double frame_rate;   // frames per second (> 0); frame k is at t = k / frame_rate
    double duration;     // s
    char** dof_name;     // DOF names (nv), owned
    double* q;           // frames, row-major (nframe x nv), owned
    // the spline the motion came from, when it came from salto solve (ncp 0 otherwise)
    int ncp;             // control points per DOF
    double* control;     // (nv x ncp), owned, NULL when ncp is 0
    double* knot;        // the spline's whole knot vector (ncp + 4), owned; NULL when not given
    char* problem;       // problem file the motion solved ("" when unknown; an absolute path
                         //   from salto_motion_from_nlp when the file resolves), owned
    int nset;            // the overrides the problem was solved with ("PATH=VALUE", as
    char** set;          //   `salto solve --set` takes them; motion.json's "set"; the
                         //   problem's own, from salto_motion_from_nlp), owned
    char* character;     // character file ("" when unknown), owned
    int converged;       // 1, 0, or -1 when unknown
    int nballistic;      // the flight phases solved with the centre of mass on its parabola
    char** ballistic;    //   (phase names, owned; a motion.json's "ballistic" list)
    int nphase;          // the phases' durations as solved (a motion.json's "phases", each
    double* phase_duration; // one's "duration", s; owned; 0 and NULL when not given): a warm
                         //   start maps its time phase by phase (salto_nlp_guess_from_motion)
    int root_turned;     // 1: solved in a turned root chart (salto_problem_turn_root): q and
    double root_ref[9];  //   control hold the root's angles in the chart with this reference,
    double root_anchor[3]; // the files the character's own (salto_motion_character_q), from
                         //   these angles at time 0 on (motion.json's "root_chart")
};

// The frames with the root's angles in the character's own chart (a turned motion's converted,
// each frame's angles the set nearest the last's, from root_anchor: continuous through full
// turns), as a new array (nframe x nv) to release with salto_free; NULL when memory runs out.
double* salto_motion_character_q(const salto_motion* mo);

// p (the motion's problem, loaded as it was solved) in a turned motion's root chart
// (salto_problem_turn_root, its poses' turns read off the motion's frames); nothing for a motion
// in the character's chart. SALTO_ERR_INVALID as salto_problem_turn_root.
salto_status salto_motion_turn_problem(const salto_motion* mo, salto_problem_desc* p, salto_error* err);

// Reads a motion.json written by salto_motion_write_json (JSON is read through the YAML
// reader, every value located). Returns a new motion owned by the caller (release with
// salto_motion_destroy) or NULL with err filled (file:line:col for bad content).
salto_motion* salto_motion_load_json(const char* path, salto_error* err);
void salto_motion_destroy(salto_motion* mo); // accepts NULL

// CSV frames evenly spaced in time (a motion.csv, a capture from salto retarget) on model m as a
// motion at their own rate (played from their first frame; times to 1e-4 of a frame and their
// own rounding). NULL with err filled: unreadable, not m's DOFs (salto_frames_bind), uneven.
salto_motion* salto_motion_load_csv(const char* path, const salto_model* m, salto_error* err);

// The overrides of mo->set that make the problem the motion is on, to apply again when it is
// validated or played: all but the initial guess's (initial_guess.*: the motion is what the
// solve made of it, and a warm start's file may be gone). Into out (room for mo->nset, not
// copied); returns how many.
int salto_motion_problem_overrides(const salto_motion* mo, const char** out);

// The interior knots of the motion's spline inside each of nphase phases (counts, nphase), read
// off its knot vector: single knots inside a phase, phases split by double knots (the C1
// junctions salto solve makes). Returns 0 if the motion has no knots or not nphase phases so.
int salto_motion_knot_counts(const salto_motion* mo, int nphase, int* counts);

// Time of frame k, s: min(k / frame_rate, duration).
double salto_motion_frame_time(const salto_motion* mo, int k);

// The motion's q at time t, linearly interpolated between frames (clamped to [0, duration]).
void salto_motion_sample(const salto_motion* mo, double t, double* q);

// A motion on p's character sampled from state at p's frame rate (frame k at
// min(k / rate, duration), floor(duration rate) + 1 frames; state's q only), with p's paths
// (made absolute when they resolve) and overrides, and the spline it came from: p->ncp
// control points per DOF from control (nv x ncp) and spline's knots. NULL when memory runs
// out. (salto_motion_from_nlp samples an NLP's variables so.) A frame value below
// SALTO_MOTION_ZERO in magnitude (1e-12 rad or m: rounding noise about zero, such as 1e-31 m
// left by an effective root's translation) is stored as 0; the control points are kept as
// they are.
salto_motion* salto_motion_from_state(const salto_problem_desc* p, salto_state_fn state,
                                      void* ctx, const salto_bspline* spline,
                                      const double* control);

// ---- motions from elsewhere: frames read from CSV ----

// A motion as rows of frames at increasing (not necessarily even) times: salto's own
// motion.csv, or keyframed or captured animation exported the same way: a header naming a time
// column ("t" or "time") and DOF columns (the character's DOF names, radians or metres), then
// one row per frame; blank lines and lines starting with '#' are skipped.
typedef struct salto_frames {
    char* path;          // the file (owned)
    int ncol;            // header columns (the time's included)
    char** name;         // their names (ncol), owned
    int* col_pos;        // their columns in the header line, 1-based (ncol)
    int header_line;     // the header's line in the file
    int tcol;            // the time column
    int nv;              // DOF columns (ncol - 1)
    int nframe;          // rows (>= 4)
    double* t;           // times, strictly increasing (nframe)
    double* q;           // values (nframe x nv), in the file's column order
    // after salto_frames_bind: model DOF j is column map[j]; the motion cut into npiece pieces
    // (salto_frames_fit), piece p ending at time pend[p], its rows piece[3p] .. piece[3p+1],
    // its second derivatives of the not-a-knot cubic spline through each column at m2 +
    // piece[3p+2] nv
    int* map;
    int npiece;
    int* piece;
    double* pend;
    double* m2;
    // after salto_frames_fit_problem, where the frames lie on the problem's own spline (a
    // motion salto solve wrote, read back from CSV: its DOFs are that spline, but for the root
    // translations it derives in held phases and ballistic flights): DOF j of piece p is then
    // the spline itself, q, qd and qdd exact, not the interpolation. spl: each piece's spline
    // on the problem's knots inside its phase (npiece; NULL when none was fitted); exact
    // (npiece x nv, model DOF order); ctrl: its control points, piece p's DOF j at
    // ctrl + (p nv + j) ctrl_stride
    salto_bspline* spl;
    int* exact;
    double* ctrl;
    int ctrl_stride;
    // and where salto solve derives the root's translation rather than reading its spline (a
    // held site's effective root, a ballistic flight's parabola) and every other DOF of the
    // piece is exact, the translation derived the same way from those DOFs: derive (npiece):
    // 0 none, 1 the held site derive_site[p] at its place derive_P + 6 p, 2 the centre of mass
    // on the parabola c0 = derive_P + 6 p, v0 = derive_P + 6 p + 3 under gravity
    int* derive;
    int* derive_site;
    double* derive_P;
    const salto_model* model;        // p's model, and scratch for its kinematics (owned)
    salto_data* d;
    int nt, tdof[3];                 // the root's translation DOFs and their world axes
    double tax[3][3];
} salto_frames;

// Reads a CSV motion. NULL with err filled (file:line:col: an empty file, no time column, a
// duplicate column, a row with too few or too many cells, a cell not a finite number, a time
// not after the previous, fewer than 4 rows).
salto_frames* salto_frames_load_csv(const char* path, salto_error* err);
void salto_frames_destroy(salto_frames* f); // accepts NULL

// Reads a BVH motion on character m (bvh_read.c: the hierarchy must be m's skeleton, each
// joint named by its body; any channels in any order), the DOFs of each frame found from its
// rotations and positions. Returns frames of m's DOFs in m's order at times k * frame time,
// to bind (salto_frames_bind) and fit like a CSV's; NULL with err filled (file:line:col: a
// syntax error, a joint that is not a body of m or hangs from another parent, a body without
// a joint, an OFFSET not m's, a frame its DOFs cannot make, frames missing or extra).
salto_frames* salto_frames_load_bvh(const char* path, const salto_model* m, salto_error* err);

// What salto_frames_retarget_bvh did: the root translation's scale (given, or auto_scale: the
// character's bones over the capture's, summed over the mapped pairs), the frame time, and the
// worst fit (a body's rotation the character's DOFs cannot make: rad, or m for the root's place)
// with its frame and body (-1: none).
typedef struct salto_retarget_info {
    double scale, auto_scale, dt;
    int npair;           // the mapped bones auto_scale came from (0: none, auto_scale 1)
    double worst;
    int worst_frame, worst_body;
} salto_retarget_info;

// A BVH capture of another skeleton retargeted onto model m (salto retarget): joint[b] names
// the BVH joint body b follows (NULL: none; the root's is required; joint_loc[b], when given,
// where the map says so, for errors). The capture's rest pose (every channel zero) is aligned
// with the character's q = 0 bone by bone (the minimal turn taking each mapped body's bone to
// its farthest mapped child at q = 0 onto the capture's bone between the same joints; the
// root's none: the capture, turned from BVH's axes into salto's, faces as the character does);
// each frame, a mapped body turns from its alignment as its joint turned from rest (whatever
// joints lie between in the capture), an unmapped one keeps its q = 0 place on its parent, the
// root's joint goes where the capture's does times scale (<= 0: auto_scale), and the DOFs are
// found by Gauss-Newton from the previous frame's (least squares where the character cannot
// follow: a hinge knee under a ball-jointed one), each angle kept within half a turn of the last
// frame's. A bone is between a mapped body and its nearest mapped ancestor. Frames at the
// capture's times. NULL with err filled: the BVH unreadable (file:line:col), a mapped joint not
// in it (with a did-you-mean), two bodies on one joint, the root unmapped, a scale outside
// [1e-6, 1e6].
salto_frames* salto_frames_retarget_bvh(const char* path, const salto_model* m,
                                        const char* const* joint, const salto_src_loc* joint_loc,
                                        double scale, salto_retarget_info* info, salto_error* err);

// Binds the frames to model m: every column a DOF of m and every DOF a column (errors point
// at the header, with a did-you-mean for a near miss); then fits the interpolating C2 cubic
// splines (not-a-knot ends, so a cubic motion is reproduced exactly) in one piece.
salto_status salto_frames_bind(salto_frames* f, const salto_model* m, salto_error* err);

// Refits the splines in pieces cut at the nbreak increasing times breaks (the phase
// boundaries: a motion's acceleration may jump where a contact changes, which one C2 spline
// across would smear): each piece through the rows inside it and, where a break falls between
// rows, the first row beyond it. Each piece needs 4 rows (SALTO_ERR_INVALID otherwise).
salto_status salto_frames_fit(salto_frames* f, int nbreak, const double* breaks, salto_error* err);

// Fits the bound frames to problem p's phases: they must span them (from 0 to the phases' end,
// at most one frame interval short of it; SALTO_ERR_INVALID naming the file otherwise: "the
// phase list does not cover the motion"), and are cut at every phase boundary
// (salto_frames_fit). Then, phase by phase and DOF by DOF, the frames are fitted by least
// squares with the cubic spline on the knots p's spline has inside the phase; where that
// spline passes through every frame of the phase (to 1e-7 of the values' scale: the frames of
// a motion salto solved on p), the DOF is that spline there (frames->exact); where p derives
// the root's translation (a held site's effective root, a ballistic flight) and the other DOFs
// are exact, the translation is derived from them the same way (checked against the frames),
// so that salto's own motion.csv and motion.bvh validate as its motion.json does.
salto_status salto_frames_fit_problem(salto_frames* f, const salto_problem_desc* p,
                                      salto_error* err);

// q, qd, qdd (each nv = the model's, may be NULL) at time t from the bound frames' splines
// (the end pieces extended beyond the first and last rows).
void salto_frames_state(const salto_frames* f, double t, double* q, double* qd, double* qdd,
                        int nv);

// motion.bvh: the motion on the character's skeleton (a joint per body, its channels the
// body's DOFs; the root with position and rotation channels), readable by Blender and other
// BVH readers. Written atomically.
salto_status salto_motion_write_bvh(const salto_model* m, const salto_motion* mo,
                                    const char* path, salto_error* err);

// filmstrip.png: nframes (1 to 128) poses at evenly spaced times drawn side by side (cairo),
// seen from the view (salto_filmstrip_view: the side, the front or above; callers pass the
// problem's output.filmstrip_view unless told otherwise), with every ground level, the
// problem's boxes and bars, and the contact sites of each pose's phase. Written atomically
// (path.tmp, renamed). Fails with SALTO_ERR_INVALID for a motion that does not fit p's
// character or arguments out of range, SALTO_ERR_NOMEM, or SALTO_ERR_IO naming the file.
salto_status salto_motion_write_filmstrip(const salto_problem_desc* p, const salto_motion* mo,
                                          int nframes, salto_filmstrip_view view,
                                          const char* path, salto_error* err);

#endif
