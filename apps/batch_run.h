// batch_run.h: what the salto batch files share: the batch (a sweep, its folder and its jobs'
// states), and the functions one file defines for the others
//
// The files, by what they run (each begins with what it holds):
//   cmd_batch.c      the command line and its help, paths and small files, the sweep loaded
//   batch_folders.c  the batch's folder: job folders, job.json, batch.json, results read back
//   batch_job.c      one job, in its worker process (salto batch --job)
//   batch_pool.c     the jobs run here on worker processes (salto batch SWEEP)
//   batch_emit.c     a job's shell line, and salto batch --emit jobs|slurm
//   batch_collect.c  the summary, and salto batch --collect
#ifndef SALTO_APPS_BATCH_RUN_H
#define SALTO_APPS_BATCH_RUN_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "salto/batch.h"
#include "salto/sweep.h"

// A job's state in a batch run here (batch.state)
enum {
    BATCH_TO_RUN = 0,   // not finished: it runs in this run
    BATCH_RUNNING,      // on a worker
    BATCH_FINISHED,     // its result.json is written (now, or by an earlier run)
    BATCH_UNFINISHED    // ended in this run by its environment (SALTO_JOB_ENVIRONMENT): no
                        // result.json, it runs again on the next resume, not in this run
};

// The exit status of a job process (salto batch --job) stopped by its environment rather
// than its problem: a write failed (no space, a quota, an I/O error, a file too large), memory
// ran out, or its own log or result.json could not be written. It writes no result.json, so
// the job is not finished. (sysexits.h's EX_TEMPFAIL: "try again later".)
#define BATCH_JOB_EXIT_ENVIRONMENT 75

typedef struct batch {
    salto_sweep* s;
    char dir[PATH_MAX];        // absolute
    char exe[PATH_MAX];        // this program, absolute
    salto_job_result* res;     // (njob)
    int* state;                // per job: BATCH_TO_RUN, ... BATCH_UNFINISHED      (njob)
    int* neighbour;            // salto_sweep_neighbour                            (njob)
    double timeout;            // per job, s; 0: none
    const char* plot;          // the measure summary.png draws (NULL: the sweep's)
} batch;


// ---- defined in one file for the others (each documented at its definition) ----

// cmd_batch.c: DIR/NAME into out ("" when it does not fit)
void batch_path_join(char* out, size_t n, const char* dir, const char* name);
// cmd_batch.c: whether path exists
int batch_file_exists(const char* path);
// cmd_batch.c: the sweep (and, with check, every job's problem) loaded, its paths absolute;
// NULL with the error printed and the exit status in *status
salto_sweep* batch_load_sweep(const char* who, const char* path, int check, int* status);
// cmd_batch.c: the sweep loaded and checked, and b set up in dir (default: beside the sweep)
int batch_open_batch(batch* b, const char* sweep_path, const char* dir);

// batch_folders.c: DIR/job-NNN, job j's folder, into out
void batch_job_dir(const batch* b, int j, char* out, size_t n);
// batch_folders.c: what a job's earlier run left in its folder dir, removed
void batch_clear_job(const char* dir);
// batch_folders.c: the folders, the manifest, the specs, the finished jobs' results read back
int batch_prepare(batch* b, const char* who, int read_results);
// batch_folders.c: b set up for sweep s (which it then owns) in dir; batch_free releases it
int batch_init(batch* b, salto_sweep* s, const char* dir, const char* who);
void batch_free(batch* b);

// batch_job.c: a job's row from what its folder dir holds
void batch_row_from_outputs(const salto_sweep* s, int j, const char* dir, salto_job_result* r);
// batch_job.c: salto batch --job SWEEP J -o DIR [--warm-from K]
int batch_run_job(const char* sweep_path, int j, const char* out, int warm_from);

// batch_pool.c: salto batch SWEEP: the jobs not yet finished run on nworker processes
int batch_run_batch(const char* sweep_path, const char* dir, int nworker, double timeout,
                    int retry, const char* plot, int quiet);

// batch_emit.c: the shell line that runs job j on its own, to f
void batch_write_job_line(FILE* f, const batch* b, int j);
// batch_emit.c: salto batch SWEEP --emit jobs|slurm
int batch_emit(const char* sweep_path, const char* dir, const char* what);

// batch_collect.c: summary.csv, summary.json, summary.png; 0 or 2 with the error printed
int batch_write_summary(const batch* b, int quiet);
// batch_collect.c: whether every job of b is fine (salto_job_fine: converged, and its
// validation passed when the sweep validates)
int batch_all_fine(const batch* b);
// batch_collect.c: salto batch --collect DIR
int batch_collect(const char* dir, const char* plot, int quiet);

#endif
