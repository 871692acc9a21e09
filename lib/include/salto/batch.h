// batch.h: the results of a sweep's jobs, their measures, and the summary of a batch
//
// Each job of a sweep (sweep.h) runs in its own folder. What a finished job leaves there is a
// salto_job_result, written last and atomically as result.json: a folder either has a complete
// result or none, whatever moment the run was stopped at. The summary (summary.csv,
// summary.json, summary.png) is built from the results alone, however the folders were
// produced (docs/batch.md).
#ifndef SALTO_BATCH_H
#define SALTO_BATCH_H

#include "salto/base.h"
#include "salto/problem.h"
#include "salto/sweep.h"
#include "salto/validate.h"

typedef enum salto_job_status {
    SALTO_JOB_CONVERGED = 0, // the solver reported success
    SALTO_JOB_NOT_CONVERGED, // it stopped without success (its best iterate was written)
    SALTO_JOB_FAILED,        // the job stopped with an error (bad input, a file not written)
    SALTO_JOB_CRASHED,       // the job's process ended by a signal it did not ask for
    SALTO_JOB_TIMEOUT,       // killed at the per-job time limit
    SALTO_JOB_ENVIRONMENT,   // stopped by something outside its problem (a write failing with
                             // ENOSPC, EDQUOT, EIO or EFBIG, memory running out, a signal such
                             // as SIGKILL sent from outside): not finished, so never in a
                             // result.json; it runs again when the batch is resumed
    SALTO_JOB_MISSING,       // no result and no motion in its folder (not run, or running)
    SALTO_JOB_STATUS_COUNT
} salto_job_status;

// "converged", "not_converged", "failed", "crashed", "timeout", "environment", "missing"; and
// back (-1)
const char* salto_job_status_name(salto_job_status s);
int salto_job_status_parse(const char* name);

typedef enum salto_job_validation {
    SALTO_JOB_VALID_NONE = 0, // not asked for, or no motion to validate
    SALTO_JOB_VALID_PASS,     // every check passed
    SALTO_JOB_VALID_FAIL,     // a check failed
    SALTO_JOB_VALID_ERROR,    // asked for, but validation.json is missing or unreadable
    SALTO_JOB_VALID_COUNT
} salto_job_validation;

// "", "pass", "fail", "error"; and back (-1)
const char* salto_job_validation_name(salto_job_validation v);
int salto_job_validation_parse(const char* name);

typedef struct salto_job_result {
    int job;                         // index in the sweep
    salto_job_status status;
    int exit_code;                   // the job's exit status; -1 when a signal ended it
    int signal;                      // that signal, 0 for none
    double measure[SALTO_MEASURE_COUNT]; // by salto_batch_measure; NAN when unknown
    salto_job_validation validation;
    int warm_from;                   // the job whose motion started it, -1: a cold start
} salto_job_result;

// A result with nothing known: status missing, every measure NAN, no warm start.
void salto_job_result_init(salto_job_result* r, int job);

// Whether a job ended as a sweep wants it: converged and, when validate is set (the sweep
// asks for validation), its validation passed. `salto batch` exits 0 exactly when every job
// is fine, and --retry runs again the finished jobs that are not.
int salto_job_fine(const salto_job_result* r, int validate);

// The measures of a motion that salto_motion's state function gives on p (salto_validate's
// sampling at opts->density, no re-simulation): peak centre-of-mass height, flight rotation,
// peak joint torque into r->measure (the others untouched). SALTO_ERR_NOMEM, SALTO_ERR_NUMERIC
// with err filled.
salto_status salto_job_measure(const salto_problem_desc* p, salto_state_fn state, void* ctx,
                               int density, salto_job_result* r, salto_error* err);

// What `salto solve` wrote into a job folder: from motion.json (its solver statistics) the
// status, objective, iterations, solve time and worst residual; from validation.json, when
// validate is set, the validation result. A folder without motion.json is missing. The
// measures from the motion itself are salto_job_measure's. SALTO_ERR_IO, SALTO_ERR_SYNTAX or
// SALTO_ERR_INVALID for files that exist but do not read.
salto_status salto_job_read_outputs(const char* dir, int validate, salto_job_result* r,
                                    salto_error* err);

// result.json in a job folder, written atomically: the result, the job's name and overrides.
salto_status salto_job_result_write(const char* path, const salto_sweep* s,
                                    const salto_job_result* r, salto_error* err);

// Reads result.json back (written for job j of s: a result for another job, or for other
// overrides, is SALTO_ERR_INVALID, so that a folder left by an edited sweep is not trusted;
// so is a status no finished job has, "environment" or "missing").
salto_status salto_job_result_read(const char* path, const salto_sweep* s, int j,
                                   salto_job_result* r, salto_error* err);

// DIR/summary.csv and DIR/summary.json: one row per job (results, njob of them, in job
// order): the job's name, its parameters, status, the measures, the validation and the warm
// start. Unknown values are empty (CSV) or null (JSON). Each written atomically.
salto_status salto_batch_write_summary(const char* dir, const salto_sweep* s,
                                       const salto_job_result* results, salto_error* err);

// A sweep parameter's path as summary.png names it (into buf, n bytes; returns buf): without
// its leading list ('phases.', 'constraints.'), a list index as [k] on its list:
// "landing.contact.friction", "landing_spot.point[0]", "flight.duration".
const char* salto_batch_param_label(const char* path, char* buf, size_t n);

// DIR/summary.png: the measure against the first parameter, one line per combination of the
// others (each labelled), converged jobs as filled dots, the others hollow and their measure
// drawn where known. Written atomically.
salto_status salto_batch_write_png(const char* path, const salto_sweep* s,
                                   const salto_job_result* results, salto_batch_measure measure,
                                   salto_error* err);

#endif
