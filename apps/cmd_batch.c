// cmd_batch.c: salto batch SWEEP: a sweep's jobs solved by worker processes, resumably, and
// their summary; or written out for a cluster (--emit), or summarised from folders (--collect)
//
// This file: the command line and its help, paths and small files, the sweep loaded; the
// rest is in batch_*.c, listed in batch_run.h.
//
// Every job runs in a process of its own, the salto program itself started again as
// `salto batch --job SWEEP J -o DIR` in its own process group: a job that crashes (a signal)
// or overruns the per-job limit (its group killed) is recorded by the batch and takes nothing
// else down. The job process solves (cmd_solve), validates (cmd_validate) and measures the
// motion in its folder, its output going to log.txt.tmp, and writes result.json last and
// atomically; a job is finished exactly when its folder holds a result.json written for the
// same problem and values (a job stopped by its environment, a full disk, memory run out or a
// kill from outside, writes none and runs again: batch_job.c, batch_pool.c). Killing anything
// at any moment therefore leaves each job either finished with a complete result or
// unfinished (it runs again), never a half-written file under a trusted name: every file is
// written to NAME.tmp and renamed. The job processes die with the batch (PR_SET_PDEATHSIG),
// so that a batch killed with SIGKILL leaves none running.
#define _XOPEN_SOURCE 700 // realpath
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_run.h"
#include "cmds.h"
#include "salto/batch.h"
#include "salto/sweep.h"

static void help(void) {
    printf("usage: salto batch SWEEP.yaml [-o DIR] [-j N] [--timeout S] [--retry] [--plot M]\n"
           "                   [--quiet]\n"
           "       salto batch SWEEP.yaml --emit jobs|slurm [-o DIR]\n"
           "       salto batch --collect DIR [--plot M]\n\n"
           "Solves every job of a sweep (docs/batch.md): the base problem with each combination\n"
           "of the parameter values the sweep file lists. Every generated problem is loaded and\n"
           "checked before anything is solved. The jobs run on N worker processes, each in its\n"
           "own folder DIR/job-NNN (job.json: the problem and its overrides; log.txt; what\n"
           "'salto solve' and, when the sweep asks, 'salto validate' write; result.json, written\n"
           "last). A crash, a time-out or a failure to converge is recorded in its job's row\n"
           "and the other jobs go on; a job stopped by something outside its problem (a write\n"
           "failing for a full or failing disk, memory run out, a kill from outside) is shown\n"
           "as 'environment' and not recorded. Then DIR/summary.csv and DIR/summary.json (one\n"
           "row per job: parameters, status, objective, iterations, solve time, worst residual,\n"
           "the peak centre-of-mass height, flight rotation and peak joint torque, validation,\n"
           "warm start) and DIR/summary.png (the sweep's 'plot' measure against the parameters).\n"
           "Progress: a bar on a terminal, a line per job otherwise.\n\n"
           "Run it again to resume: finished jobs (those with a result.json) are skipped;\n"
           "interrupted ones, and those stopped by their environment, run again. Ctrl-C stops\n"
           "the workers and writes the summary of what has finished; killing the batch in any\n"
           "way loses no finished job. Exit status: 0 when every job is fine (converged and,\n"
           "when the sweep validates, its validation passed), 1 when one is not, 2 for bad\n"
           "input or a batch file that cannot be written, 130 when interrupted; --collect\n"
           "exits the same way.\n\n"
           "  -o DIR        where the jobs' folders and the summary go (default out/<sweep name>)\n"
           "  -j N          worker processes (default: the number of cores)\n"
           "  --timeout S   per-job wall-clock limit in seconds (default: the sweep's 'timeout',\n"
           "                else none)\n"
           "  --retry       also run again the finished jobs that are not fine: not converged\n"
           "                (failed, crashed, timed out) or, when the sweep validates, whose\n"
           "                validation failed or could not be made\n"
           "  --plot M      the measure summary.png draws (default: the sweep's 'plot'):\n"
           "                objective, iterations, solve_time, worst_residual, peak_com_height,\n"
           "                flight_rotation or peak_joint_torque (also with --collect)\n"
           "  --quiet       no progress\n"
           "  --emit jobs   write DIR/jobs.txt, one self-contained shell line per job (salto\n"
           "                solve with absolute paths and --set overrides, then salto validate\n"
           "                when asked) for GNU parallel or any runner, and prepare the folders\n"
           "  --emit slurm  the same, and DIR/batch.slurm, a Slurm job array running one line\n"
           "                per task ('sbatch DIR/batch.slurm')\n"
           "  --collect DIR build the summary from the job folders, however they were produced\n");
}


// ---- paths and small files ----

// DIR/NAME ("" when it does not fit: no file has that name)
void batch_path_join(char* out, size_t n, const char* dir, const char* name) {
    if (snprintf(out, n, "%s/%s", dir, name) >= (int)n) out[0] = '\0';
}


int batch_file_exists(const char* path) {
    struct stat st;
    return stat(path, &st) == 0;
}


// replaces *path by its absolute, resolved form (the file must exist); 0 or -1
static int make_absolute(char** path) {
    char buf[PATH_MAX];
    if (!realpath(*path, buf)) return -1;
    char* copy = salto_strdup(buf);
    if (!copy) return -1;
    salto_free(*path);
    *path = copy;
    return 0;
}


// Loads the sweep (and, with check, every job's problem), then makes its paths absolute, so
// that what job folders, results and emitted lines record does not depend on the current
// folder. NULL (exit status in *status) with the error printed.
salto_sweep* batch_load_sweep(const char* who, const char* path, int check, int* status) {
    salto_error err = {0};
    salto_sweep* s = salto_sweep_load(path, &err);
    if (s && check) salto_sweep_check(s, &err);
    if (err.status != SALTO_OK) {
        app_print_error(&err);
        salto_sweep_destroy(s);
        *status = err.status == SALTO_ERR_NOMEM ? 1 : 2;
        return NULL;
    }
    if (make_absolute(&s->path) != 0 || make_absolute(&s->problem) != 0) {
        fprintf(stderr, "%s: cannot resolve the path of '%s': %s\n", who, s->problem,
                strerror(errno));
        salto_sweep_destroy(s);
        *status = 2;
        return NULL;
    }
    return s;
}


// ---- the modes ----

// the sweep loaded and checked, and the batch set up in dir (default: beside the sweep):
// batch_init's status, or minus the exit status when the sweep does not load (b untouched)
int batch_open_batch(batch* b, const char* sweep_path, const char* dir) {
    int status = 0;
    salto_sweep* s = batch_load_sweep("salto batch", sweep_path, 1, &status);
    if (!s) return -status;
    char dirbuf[PATH_MAX];
    if (!dir) {
        app_default_dir(sweep_path, dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    return batch_init(b, s, dir, "salto batch");
}


int cmd_batch(int argc, char** argv) {
    const char* sweep = NULL;
    const char* dir = NULL;
    const char* emit_what = NULL;
    const char* collect_dir = NULL;
    const char* job_sweep = NULL;
    const char* plot = NULL;
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int job = -1, warm_from = -1, nworker = ncpu < 1 ? 1 : ncpu > 1024 ? 1024 : (int)ncpu;
    double timeout = 0.0;
    int quiet = 0, retry = 0;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            if (app_parse_int("batch", "-j", argv[++i], 1, 1024, &nworker)) return 2;
        } else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            char* end = NULL;
            timeout = strtod(argv[++i], &end);
            if (!end || *end || end == argv[i] || !(timeout > 0.0) || !isfinite(timeout)) {
                fprintf(stderr, "salto batch: --timeout needs a time in seconds > 0, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--retry") == 0) {
            retry = 1;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--plot") == 0 && i + 1 < argc) {
            plot = argv[++i];
            if (salto_batch_measure_parse(plot) < 0) {
                fprintf(stderr, "salto batch: --plot needs one of");
                for (int k = 0; k < SALTO_MEASURE_COUNT; k++) {
                    fprintf(stderr, "%s %s", k ? "," : "",
                            salto_batch_measure_name((salto_batch_measure)k));
                }
                fprintf(stderr, ", not '%s'\n", plot);
                return 2;
            }
        } else if (strcmp(argv[i], "--emit") == 0 && i + 1 < argc) {
            emit_what = argv[++i];
        } else if (strcmp(argv[i], "--collect") == 0 && i + 1 < argc) {
            collect_dir = argv[++i];
        } else if (strcmp(argv[i], "--job") == 0 && i + 2 < argc) {
            // the worker's entry (see the file's header): --job SWEEP J
            job_sweep = argv[++i];
            if (app_parse_int("batch", "--job", argv[++i], 0, SALTO_SWEEP_MAX_JOBS, &job)) return 2;
        } else if (strcmp(argv[i], "--warm-from") == 0 && i + 1 < argc) {
            if (app_parse_int("batch", "--warm-from", argv[++i], -1, SALTO_SWEEP_MAX_JOBS, &warm_from))
                return 2;
        } else if (app_positional("batch", argv[i], &sweep) != 0) {
            return 2;
        }
    }
    if (job_sweep) {
        if (!dir) {
            fprintf(stderr, "salto batch: --job needs -o DIR\n");
            return 2;
        }
        return batch_run_job(job_sweep, job, dir, warm_from);
    }
    if (collect_dir) {
        if (sweep || emit_what) {
            fprintf(stderr, "salto batch: --collect DIR takes no sweep file and no --emit\n");
            return 2;
        }
        return batch_collect(collect_dir, plot, quiet);
    }
    if (!sweep) {
        fprintf(stderr,
                "usage: salto batch SWEEP.yaml [-o DIR] [-j N] (see 'salto batch --help')\n");
        return 2;
    }
    if (emit_what) return batch_emit(sweep, dir, emit_what);
    return batch_run_batch(sweep, dir, nworker, timeout, retry, plot, quiet);
}
