// sweep.h: a sweep file, the jobs it generates from a base problem, and their checks
//
// A sweep names a base problem and the values to vary in it, each by its dotted path into the
// problem file (the paths `salto solve --set` takes: "phases.flight.duration",
// "phases.landing.contact.friction"), as a list or a range; the values are combined as a grid
// (every combination, the first parameter varying slowest) or zipped (the i-th value of
// each). A job is the base problem with one value per parameter set; it is described by its
// "PATH=VALUE" overrides, so that `salto solve BASE --set ...` solves exactly it. The format is
// in docs/batch.md.
#ifndef SALTO_SWEEP_H
#define SALTO_SWEEP_H

#include "salto/base.h"

typedef enum salto_sweep_combine {
    SALTO_SWEEP_GRID = 0, // every combination, the first parameter varying slowest
    SALTO_SWEEP_ZIP       // the i-th value of every parameter (all lists as long)
} salto_sweep_combine;

typedef struct salto_sweep_param {
    char* path;             // dotted path into the problem file
    int nvalue;
    double* value;          // the values                                       (nvalue)
    char** set;             // "PATH=VALUE" for each, the value as written or,    (nvalue)
                            //   for a range, in the shortest form that reads back ("%.12g")
    salto_src_loc* loc;     // where each value is in the sweep file (a range's: the range) (nvalue)
    salto_src_loc key_loc;  // where the path is
} salto_sweep_param;

// A sweep description. Owns its strings and arrays; the locations' file name is owned too.
typedef struct salto_sweep {
    char* path;             // the sweep file
    char* problem;          // the base problem, resolved against the sweep file's folder
    salto_src_loc problem_loc;
    int nparam;
    salto_sweep_param* params;  //                                            (nparam)
    salto_sweep_combine combine;
    int warm_start;         // 1: each job starts from the motion of its neighbour
                            //   (salto_sweep_neighbour) when that one converged (default 0)
    int validate;           // 1: run salto validate on every result (default 0)
    double timeout;         // per job, wall-clock s; 0 (default): none
    char* plot;             // the measure summary.png draws (default "objective")
    salto_src_loc plot_loc;
    int njob;
    int* job_value;         // job j's value of parameter k: params[k].value[job_value[j *
                            //   nparam + k]]                                (njob x nparam)
} salto_sweep;

// Reads a sweep file. Returns a new description owned by the caller (salto_sweep_destroy), or
// NULL with err filled at the offending value as file:line:col: SALTO_ERR_IO, SALTO_ERR_SYNTAX,
// SALTO_ERR_INVALID (unknown keys with did-you-mean, a value that is not a number, an empty
// list, a range that does not end, zipped lists of different lengths, a measure that is not
// one of salto_batch_measure_name's, more than SALTO_SWEEP_MAX_JOBS jobs or
// SALTO_SWEEP_MAX_PARAMS parameters). The base problem is not read here (salto_sweep_check
// does).
enum { SALTO_SWEEP_MAX_JOBS = 100000, SALTO_SWEEP_MAX_PARAMS = 64 };
salto_sweep* salto_sweep_load(const char* path, salto_error* err);

void salto_sweep_destroy(salto_sweep* s); // accepts NULL

// Job j's overrides: set[k] = "PATH=VALUE" of parameter k (nparam pointers into s).
void salto_sweep_job_set(const salto_sweep* s, int j, const char** set);

// Job j's value of parameter k.
double salto_sweep_job_value(const salto_sweep* s, int j, int k);

// Loads the base problem with every job's overrides and builds its NLP, as `salto solve`
// would, before anything is solved. Each parameter is first tried alone (its first value), so
// that a path that leads nowhere or names no field of the problem is reported at the path in
// the sweep file; then every job, a failure reported at the value that causes it (the first
// of the job's values that fails alone, else the job's first value), the job and the problem's
// own message in the text and its location in the note. SALTO_OK, or the first error.
salto_status salto_sweep_check(const salto_sweep* s, salto_error* err);

// The job a job's warm start comes from: of the jobs before j, the nearest in parameter space,
// each parameter's differences scaled by the spread of its values (on ties, the latest, which
// in a grid differs in a later parameter). -1 for job 0. Jobs therefore form a tree rooted at
// job 0, and a run that starts a job only after its neighbour has ended gets the same warm
// starts whatever the number of workers.
int salto_sweep_neighbour(const salto_sweep* s, int j);

// ---- what a sweep's jobs are called and measured by (batch.h has their results) ----

// The numbers a row of the summary holds besides the parameters, in column order; the names
// are the columns' and the values summary.png can draw.
typedef enum salto_batch_measure {
    SALTO_MEASURE_OBJECTIVE = 0,     // the solver's final objective
    SALTO_MEASURE_ITERATIONS,        // IPOPT iterations
    SALTO_MEASURE_SOLVE_TIME,        // the solve's wall-clock time, s
    SALTO_MEASURE_WORST_RESIDUAL,    // the largest constraint violation at the end
    SALTO_MEASURE_PEAK_COM_HEIGHT,   // the highest centre of mass (along -gravity), m
    SALTO_MEASURE_FLIGHT_ROTATION,   // |root angular velocity integrated over the flight
                                     //   phases|, deg (planar: the somersault angle)
    SALTO_MEASURE_PEAK_JOINT_TORQUE, // the largest |joint torque| past the root (inverse
                                     //   dynamics, contact wrenches of minimum norm), N m or N
    SALTO_MEASURE_COUNT
} salto_batch_measure;

// "objective", "iterations", "solve_time", "worst_residual", "peak_com_height",
// "flight_rotation", "peak_joint_torque"; and back (-1)
const char* salto_batch_measure_name(salto_batch_measure k);
int salto_batch_measure_parse(const char* name);

// A job's folder name: "job-" and its index in at least three digits ("job-007").
void salto_job_name(int j, char* buf, size_t n);

#endif
