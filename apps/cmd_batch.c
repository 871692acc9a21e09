// cmd_batch.c: salto batch SWEEP: a sweep's jobs solved by worker processes, resumably, and
// their summary; or written out for a cluster (--emit), or summarised from folders (--collect)
//
// Every job runs in a process of its own, the salto program itself started again as
// `salto batch --job SWEEP J -o DIR` in its own process group: a job that crashes (a signal)
// or overruns the per-job limit (its group killed) is recorded by the batch and takes nothing
// else down. The job process solves (cmd_solve), validates (cmd_validate) and measures the
// motion in its folder, its output going to log.txt.tmp, and writes result.json last and
// atomically; a job is finished exactly when its folder holds a result.json written for the
// same problem and values. Killing anything at any moment therefore leaves each job either
// finished with a complete result or unfinished (it runs again), never a half-written file
// under a trusted name: every file is written to NAME.tmp and renamed. The job processes die
// with the batch (PR_SET_PDEATHSIG), so that a batch killed with SIGKILL leaves none running.
#define _XOPEN_SOURCE 700 // realpath
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_motion.h"
#include "cmds.h"
#include "json_out.h"
#include "salto/atomic.h"
#include "salto/batch.h"
#include "salto/config.h"
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
           "and the other jobs go on. Then DIR/summary.csv and DIR/summary.json (one row per\n"
           "job: parameters, status, objective, iterations, solve time, worst residual, the\n"
           "peak centre-of-mass height, flight rotation and peak joint torque, validation, warm\n"
           "start) and DIR/summary.png (the sweep's 'plot' measure against the parameters).\n"
           "Progress: a bar on a terminal, a line per job otherwise.\n\n"
           "Run it again to resume: finished jobs are skipped, interrupted ones run again.\n"
           "Ctrl-C stops the workers and writes the summary of what has finished; killing the\n"
           "batch in any way loses no finished job. Exit status: 0 when every job converged,\n"
           "1 when one did not (or crashed, timed out, failed), 2 for bad input, 130 when\n"
           "interrupted.\n\n"
           "  -o DIR        where the jobs' folders and the summary go (default out/<sweep name>)\n"
           "  -j N          worker processes (default: the number of cores)\n"
           "  --timeout S   per-job wall-clock limit in seconds (default: the sweep's 'timeout',\n"
           "                else none)\n"
           "  --retry       run again the finished jobs that did not converge\n"
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
static void path_join(char* out, size_t n, const char* dir, const char* name) {
    if (snprintf(out, n, "%s/%s", dir, name) >= (int)n) out[0] = '\0';
}


static int file_exists(const char* path) {
    struct stat st;
    return stat(path, &st) == 0;
}


// s with single quotes for sh ('it'\''s')
static void shell_quote(FILE* f, const char* s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') {
            fputs("'\\''", f);
        } else {
            fputc(*s, f);
        }
    }
    fputc('\'', f);
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
static salto_sweep* load_sweep(const char* who, const char* path, int check, int* status) {
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


// ---- the job folders ----

typedef struct batch {
    salto_sweep* s;
    char dir[PATH_MAX];        // absolute
    char exe[PATH_MAX];        // this program, absolute
    salto_job_result* res;     // (njob)
    int* state;                // per job: 0 to run, 1 running, 2 finished       (njob)
    int* neighbour;            // salto_sweep_neighbour                            (njob)
    double timeout;            // per job, s; 0: none
    const char* plot;          // the measure summary.png draws (NULL: the sweep's)
} batch;


static void job_dir(const batch* b, int j, char* out, size_t n) {
    char name[64];
    salto_job_name(j, name, sizeof name);
    path_join(out, n, b->dir, name);
}


// the shell line that runs job j on its own: salto solve, then salto validate when asked
// " --set 'PATH=VALUE'" for each of a job's values
static void put_sets(FILE* f, int n, const char* const* set) {
    for (int k = 0; k < n; k++) {
        fputs(" --set ", f);
        shell_quote(f, set[k]);
    }
}


// one salto command of a job's line: EXE CMD TARGET [--problem P] --set ... -o DIR [OPTS]
// >DIR/LOG 2>&1
static void put_command(FILE* f, const batch* b, const char* cmd, const char* target,
                        const char* problem, int nset, const char* const* set, const char* dir,
                        const char* opts, const char* log) {
    char file[PATH_MAX + 128];
    shell_quote(f, b->exe);
    fprintf(f, " %s ", cmd);
    shell_quote(f, target);
    if (problem) {
        fputs(" --problem ", f);
        shell_quote(f, problem);
    }
    put_sets(f, nset, set);
    fputs(" -o ", f);
    shell_quote(f, dir);
    fprintf(f, "%s >", opts);
    path_join(file, sizeof file, dir, log);
    shell_quote(f, file);
    fputs(" 2>&1", f);
}


static void write_job_line(FILE* f, const batch* b, int j) {
    const salto_sweep* s = b->s;
    char dir[PATH_MAX + 64], motion[PATH_MAX + 128];
    job_dir(b, j, dir, sizeof dir);
    const char* set[SALTO_SWEEP_MAX_PARAMS];
    salto_sweep_job_set(s, j, set);
    if (s->timeout > 0) fprintf(f, "timeout -s KILL %.0f ", ceil(s->timeout));
    put_command(f, b, "solve", s->problem, NULL, s->nparam, set, dir, " --quiet", "solve.log");
    if (s->validate) {
        // the line's exit status is the solve's (a validation's verdict is in its file)
        fputs("; status=$?; ", f);
        path_join(motion, sizeof motion, dir, "motion.json");
        put_command(f, b, "validate", motion, s->problem, s->nparam, set, dir, "", "validate.log");
        fputs("; exit $status", f);
    }
}


// DIR/job-NNN/job.json: the job's problem (the base file and its overrides), its values and
// the line that runs it alone
static salto_status write_job_spec(const batch* b, int j, salto_error* err) {
    const salto_sweep* s = b->s;
    char dir[PATH_MAX + 64], path[PATH_MAX + 128], name[64];
    job_dir(b, j, dir, sizeof dir);
    path_join(path, sizeof path, dir, "job.json");
    salto_job_name(j, name, sizeof name);
    salto_atomic a;
    if (salto_atomic_open(&a, path, 1, err)) return err->status;
    FILE* f = a.f;
    fprintf(f, "{\n  \"format\": \"salto batch job spec 1\",\n  \"job\": %d,\n  \"name\": \"%s\",\n"
               "  \"problem\": ", j, name);
    salto_json_str(f, s->problem);
    fputs(",\n  \"set\": [", f);
    const char* set[SALTO_SWEEP_MAX_PARAMS];
    salto_sweep_job_set(s, j, set);
    for (int k = 0; k < s->nparam; k++) {
        fputs(k ? ", " : "", f);
        salto_json_str(f, set[k]);
    }
    fputs("],\n  \"parameters\": {", f);
    for (int k = 0; k < s->nparam; k++) {
        fputs(k ? ", " : "", f);
        salto_json_str(f, s->params[k].path);
        fputs(": ", f);
        salto_json_num(f, salto_sweep_job_value(s, j, k));
    }
    fprintf(f, "},\n  \"validate\": %s,\n  \"warm_start_from\": ", s->validate ? "true" : "false");
    if (s->warm_start && b->neighbour[j] >= 0) {
        salto_job_name(b->neighbour[j], name, sizeof name);
        salto_json_str(f, name);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"command\": ", f);
    // the line, through a memory stream so that it is JSON-escaped as one string
    char* line = NULL;
    size_t len = 0;
    FILE* m = open_memstream(&line, &len);
    if (m) {
        write_job_line(m, b, j);
        fclose(m);
    }
    salto_json_str(f, line ? line : "");
    free(line);
    fputs("\n}\n", f);
    return salto_atomic_commit(&a, err);
}


// a path the problem gives relative to its folder, made absolute (dir: the folder, with '/')
static salto_status absolute_path(salto_cfg* cfg, const salto_cfg_node* n, const char* path,
                                  const char* dir, salto_error* err) {
    if (!n || n->kind != SALTO_CFG_SCALAR || n->text[0] == '/' || n->text[0] == '\0') {
        return SALTO_OK;
    }
    char value[2 * PATH_MAX + 8];
    snprintf(value, sizeof value, "%s%s", dir, n->text);
    return salto_cfg_set(cfg, path, value, err);
}


// DIR/job-NNN/problem.yaml: the job's problem resolved, the base file with the job's values
// (and the warm start's, nwarm of them) set and its paths (the character, motions it names)
// made absolute, so that `salto solve problem.yaml` solves the job as the batch did, anywhere
static salto_status write_job_problem(const salto_sweep* s, int j, const char* jdir,
                                      int nwarm, const char* const* warm, salto_error* err) {
    salto_cfg* cfg = salto_cfg_load(s->problem, err);
    if (!cfg) return err->status;
    const char* set[SALTO_SWEEP_MAX_PARAMS + 4];
    salto_sweep_job_set(s, j, set);
    for (int k = 0; k < nwarm; k++) set[s->nparam + k] = warm[k];
    const int nset = s->nparam + nwarm;
    salto_status st = SALTO_OK;
    for (int k = 0; k < nset && st == SALTO_OK; k++) {
        char path[512];
        const char* eq = strchr(set[k], '=');
        snprintf(path, sizeof path, "%.*s", eq ? (int)(eq - set[k]) : 0, set[k]);
        st = salto_cfg_set(cfg, path, eq ? eq + 1 : "", err);
    }
    char dir[PATH_MAX + 2];
    snprintf(dir, sizeof dir, "%s", s->problem);
    char* slash = strrchr(dir, '/');
    if (slash) {
        slash[1] = '\0';
    } else {
        snprintf(dir, sizeof dir, "./");
    }
    const salto_cfg_node* root = salto_cfg_root(cfg);
    if (st == SALTO_OK) st = absolute_path(cfg, salto_cfg_child(root, "character"), "character", dir, err);
    const salto_cfg_node* guess = salto_cfg_child(root, "initial_guess");
    if (st == SALTO_OK && guess) {
        st = absolute_path(cfg, salto_cfg_child(guess, "motion"), "initial_guess.motion", dir, err);
    }
    const salto_cfg_node* obj = salto_cfg_child(root, "objective");
    for (int k = 0; st == SALTO_OK && obj && obj->kind == SALTO_CFG_LIST && k < obj->n; k++) {
        char path[64];
        snprintf(path, sizeof path, "objective.%d.motion", k);
        st = absolute_path(cfg, salto_cfg_child(obj->child[k], "motion"), path, dir, err);
    }
    if (st == SALTO_OK) {
        char file[PATH_MAX + 128];
        path_join(file, sizeof file, jdir, "problem.yaml");
        salto_atomic a;
        st = salto_atomic_open(&a, file, 1, err);
        if (st == SALTO_OK) {
            fprintf(a.f, "# %s with %d value%s set by salto batch (%s)\n", s->problem, nset,
                    nset == 1 ? "" : "s", s->path);
            for (int k = 0; k < nset; k++) fprintf(a.f, "#   %s\n", set[k]);
            salto_cfg_write(a.f, root);
            st = salto_atomic_commit(&a, err);
        }
    }
    salto_cfg_destroy(cfg);
    return st;
}


// DIR/batch.json: what --collect needs to find the sweep again
static salto_status write_manifest(const batch* b, salto_error* err) {
    char path[PATH_MAX + 64];
    path_join(path, sizeof path, b->dir, "batch.json");
    salto_atomic a;
    if (salto_atomic_open(&a, path, 1, err)) return err->status;
    fputs("{\n  \"format\": \"salto batch 1\",\n  \"sweep\": ", a.f);
    salto_json_str(a.f, b->s->path);
    fputs(",\n  \"problem\": ", a.f);
    salto_json_str(a.f, b->s->problem);
    fprintf(a.f, ",\n  \"jobs\": %d\n}\n", b->s->njob);
    return salto_atomic_commit(&a, err);
}


// removes what a job's earlier run left (before the job runs again, or when its result was
// written for other values)
static void clear_job(const char* dir) {
    static const char* const names[] = {"result.json", "motion.json", "validation.json",
                                        "log.txt"};
    char path[PATH_MAX + 64];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        path_join(path, sizeof path, dir, names[k]);
        unlink(path);
    }
}


// the folders, the manifest and every job's spec; the results of finished jobs read back
// (a result that does not read, or was written for other values, is cleared: the job runs
// again). 0, or the exit status with the error printed.
static int prepare(batch* b, const char* who, int read_results) {
    const salto_sweep* s = b->s;
    salto_error err = {0};
    if (app_make_dirs(b->dir) != 0) {
        fprintf(stderr, "%s: cannot create '%s': %s\n", who, b->dir, strerror(errno));
        return 2;
    }
    if (write_manifest(b, &err) != SALTO_OK) {
        app_print_error(&err);
        return 2;
    }
    for (int j = 0; j < s->njob; j++) {
        char dir[PATH_MAX + 64], path[PATH_MAX + 128];
        job_dir(b, j, dir, sizeof dir);
        if (app_make_dirs(dir) != 0) {
            fprintf(stderr, "%s: cannot create '%s': %s\n", who, dir, strerror(errno));
            return 2;
        }
        if (write_job_spec(b, j, &err) != SALTO_OK) {
            app_print_error(&err);
            return 2;
        }
        salto_job_result_init(&b->res[j], j);
        if (!read_results) continue;
        path_join(path, sizeof path, dir, "result.json");
        if (!file_exists(path)) continue;
        salto_error e = {0};
        if (salto_job_result_read(path, s, j, &b->res[j], &e) == SALTO_OK) {
            b->state[j] = 2;
        } else {
            char line[1400];
            salto_error_format(&e, line, sizeof line);
            fprintf(stderr, "%s: not trusted, the job runs again: %s\n", who, line);
            clear_job(dir);
            salto_job_result_init(&b->res[j], j);
        }
    }
    return 0;
}


static int batch_init(batch* b, salto_sweep* s, const char* dir, const char* who) {
    memset(b, 0, sizeof *b);
    b->s = s;
    const ssize_t n = readlink("/proc/self/exe", b->exe, sizeof b->exe - 1);
    if (n <= 0) {
        fprintf(stderr, "%s: cannot find the salto program (/proc/self/exe): %s\n", who,
                strerror(errno));
        return 1;
    }
    b->exe[n] = '\0';
    if (app_make_dirs(dir) != 0 || !realpath(dir, b->dir)) {
        fprintf(stderr, "%s: cannot create '%s': %s\n", who, dir, strerror(errno));
        return 2;
    }
    b->res = calloc((size_t)s->njob, sizeof *b->res);
    b->state = calloc((size_t)s->njob, sizeof *b->state);
    b->neighbour = calloc((size_t)s->njob, sizeof *b->neighbour);
    if (!b->res || !b->state || !b->neighbour) {
        fprintf(stderr, "%s: out of memory\n", who);
        return 1;
    }
    for (int j = 0; j < s->njob; j++) {
        // the neighbours (quadratic in the jobs) only where warm starts use them
        b->neighbour[j] = s->warm_start ? salto_sweep_neighbour(s, j) : -1;
        salto_job_result_init(&b->res[j], j);
    }
    return 0;
}


static void batch_free(batch* b) {
    free(b->res);
    free(b->state);
    free(b->neighbour);
    salto_sweep_destroy(b->s);
}


// summary.csv, summary.json, summary.png; 0 or 2 with the error printed
static int write_summary(const batch* b, int quiet) {
    salto_error err = {0};
    char png[PATH_MAX + 64];
    path_join(png, sizeof png, b->dir, "summary.png");
    const int measure = salto_batch_measure_parse(b->plot ? b->plot : b->s->plot);
    if (salto_batch_write_summary(b->dir, b->s, b->res, &err) != SALTO_OK ||
        salto_batch_write_png(png, b->s, b->res, (salto_batch_measure)(measure < 0 ? 0 : measure),
                              &err) != SALTO_OK) {
        app_print_error(&err);
        return 2;
    }
    int count[SALTO_JOB_STATUS_COUNT] = {0};
    for (int j = 0; j < b->s->njob; j++) count[b->res[j].status]++;
    if (!quiet) {
        fprintf(stderr, "%d jobs:", b->s->njob);
        for (int k = 0, n = 0; k < SALTO_JOB_STATUS_COUNT; k++) {
            if (!count[k]) continue;
            fprintf(stderr, "%s %d %s", n++ ? "," : "", count[k],
                    salto_job_status_name((salto_job_status)k));
        }
        fprintf(stderr, "\nwrote %s/summary.csv, summary.json and summary.png\n", b->dir);
    }
    return 0;
}


// ---- one job (the worker process) ----

// the job's measures from its motion on its problem; NAN where they cannot be had
static void measure_job(const salto_sweep* s, const char* dir, const char* const* set,
                        salto_job_result* r) {
    char motion[PATH_MAX + 64];
    path_join(motion, sizeof motion, dir, "motion.json");
    if (!file_exists(motion)) return;
    app_motion am;
    if (app_motion_open_set(&am, "salto batch", motion, s->problem, s->nparam, set) == 0) {
        salto_validate_opts o;
        salto_validate_opts_from_problem(&o, am.p);
        salto_error err = {0};
        if (salto_job_measure(am.p, am.state, am.ctx, o.density, r, &err) != SALTO_OK) {
            app_print_error(&err);
        }
    }
    app_motion_close(&am);
}


// the row of a job from what its folder holds (motion.json, validation.json, the motion)
static void row_from_outputs(const salto_sweep* s, int j, const char* dir, salto_job_result* r) {
    const char* set[SALTO_SWEEP_MAX_PARAMS];
    salto_sweep_job_set(s, j, set);
    salto_error err = {0};
    if (salto_job_read_outputs(dir, s->validate, r, &err) != SALTO_OK) {
        app_print_error(&err);
        r->status = SALTO_JOB_FAILED;
        return;
    }
    if (r->status != SALTO_JOB_MISSING) measure_job(s, dir, set, r);
}


// salto batch --job SWEEP J -o DIR [--warm-from K]: runs job J into DIR/job-J; writes its
// result.json last. Exit status 0 when the result is written.
static int run_job(const char* sweep_path, int j, const char* out, int warm_from) {
    int status = 0;
    salto_sweep* s = load_sweep("salto batch", sweep_path, 0, &status);
    if (!s) return status;
    if (j < 0 || j >= s->njob || warm_from >= s->njob) {
        fprintf(stderr, "salto batch: no job %d in '%s'\n", j, sweep_path);
        salto_sweep_destroy(s);
        return 2;
    }
    char name[64], dir[PATH_MAX + 64], log[PATH_MAX + 128], logtmp[PATH_MAX + 128];
    char res_path[PATH_MAX + 128], warm_motion[PATH_MAX + 128], warm_set[PATH_MAX + 160];
    salto_job_name(j, name, sizeof name);
    path_join(dir, sizeof dir, out, name);
    path_join(log, sizeof log, dir, "log.txt");
    path_join(logtmp, sizeof logtmp, dir, "log.txt.tmp");
    path_join(res_path, sizeof res_path, dir, "result.json");
    if (app_make_dirs(dir) != 0) {
        fprintf(stderr, "salto batch: cannot create '%s': %s\n", dir, strerror(errno));
        salto_sweep_destroy(s);
        return 2;
    }
    clear_job(dir);

    // everything the job prints goes to its log
    const int fd = open(logtmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
        fprintf(stderr, "salto batch: cannot write '%s': %s\n", logtmp, strerror(errno));
        salto_sweep_destroy(s);
        return 2;
    }
    close(fd);
    setvbuf(stdout, NULL, _IOLBF, 0);

    const char* set[SALTO_SWEEP_MAX_PARAMS];
    salto_sweep_job_set(s, j, set);
    salto_job_result r;
    salto_job_result_init(&r, j);
    if (warm_from >= 0) {
        char wname[64];
        salto_job_name(warm_from, wname, sizeof wname);
        path_join(warm_motion, sizeof warm_motion, out, wname);
        if (snprintf(warm_set, sizeof warm_set, "initial_guess.motion=%s/motion.json",
                     warm_motion) >= (int)sizeof warm_set) {
            warm_set[0] = '\0';
        }
        if (warm_set[0] && file_exists(warm_set + strlen("initial_guess.motion="))) {
            r.warm_from = warm_from;
        }
    }

    // solve: the job's overrides, and the warm start's after them
    const char* argv[3 * SALTO_SWEEP_MAX_PARAMS + 16];
    int argc = 0;
    argv[argc++] = "solve";
    argv[argc++] = s->problem;
    argv[argc++] = "-o";
    argv[argc++] = dir;
    argv[argc++] = "--quiet";
    for (int k = 0; k < s->nparam; k++) argv[argc++] = "--set", argv[argc++] = set[k];
    const int cold_argc = argc;
    if (r.warm_from >= 0) {
        argv[argc++] = "--set", argv[argc++] = "initial_guess.type=motion";
        argv[argc++] = "--set", argv[argc++] = warm_set;
        argv[argc++] = "--set", argv[argc++] = "initial_guess.rotation=null";
    }
    argv[argc] = NULL;
    // the job's problem as it is solved (problem.yaml); the warm start's motion by its real path
    char warm_abs[2 * PATH_MAX + 64] = "";
    const char* warm[3] = {"initial_guess.type=motion", warm_abs, "initial_guess.rotation=null"};
    if (r.warm_from >= 0) {
        char real[PATH_MAX];
        const char* mp = warm_set + strlen("initial_guess.motion=");
        snprintf(warm_abs, sizeof warm_abs, "initial_guess.motion=%s", realpath(mp, real) ? real : mp);
    }
    salto_error perr = {0};
    if (write_job_problem(s, j, dir, r.warm_from >= 0 ? 3 : 0, warm, &perr) != SALTO_OK) {
        app_print_error(&perr); // in the job's log; the solve goes on from the sweep's values
    }
    printf("salto batch: %s of %s\n", name, s->path);
    for (int k = 0; k < argc; k++) printf("%s%s", k ? " " : "salto ", argv[k]);
    printf("\n");
    fflush(stdout);
    int rc = cmd_solve(argc, (char**)argv);
    if (rc == 2 && r.warm_from >= 0) {
        // a warm start this problem does not take (the checks before the batch were cold)
        printf("salto batch: the warm start from job %d was not accepted; solving cold\n",
               r.warm_from);
        r.warm_from = -1;
        argv[cold_argc] = NULL;
        if (write_job_problem(s, j, dir, 0, warm, &perr) != SALTO_OK) app_print_error(&perr);
        rc = cmd_solve(cold_argc, (char**)argv);
    }
    fflush(stdout);
    fflush(stderr);

    // validate, when asked and there is a motion
    char motion[PATH_MAX + 128];
    path_join(motion, sizeof motion, dir, "motion.json");
    if (s->validate && file_exists(motion)) {
        int vc = 0;
        argv[vc++] = "validate";
        argv[vc++] = motion;
        argv[vc++] = "--problem";
        argv[vc++] = s->problem;
        argv[vc++] = "-o";
        argv[vc++] = dir;
        for (int k = 0; k < s->nparam; k++) argv[vc++] = "--set", argv[vc++] = set[k];
        argv[vc] = NULL;
        printf("salto batch: validating\n");
        fflush(stdout);
        cmd_validate(vc, (char**)argv);
        fflush(stdout);
        fflush(stderr);
    }

    // the row
    row_from_outputs(s, j, dir, &r);
    if (rc == 2) r.status = SALTO_JOB_FAILED;
    r.exit_code = rc;
    printf("salto batch: %s %s\n", name, salto_job_status_name(r.status));
    fflush(stdout);
    fflush(stderr);
    rename(logtmp, log);
    salto_error err = {0};
    status = 0;
    if (salto_job_result_write(res_path, s, &r, &err) != SALTO_OK) {
        app_print_error(&err);
        status = 3;
    }
    salto_sweep_destroy(s);
    return status;
}


// ---- the worker pool ----

static volatile sig_atomic_t g_stop = 0;


static void on_stop(int sig) {
    g_stop = sig;
}


typedef struct worker {
    pid_t pid;     // 0: free
    int job;
    double start;  // s
    int timed_out; // killed at the limit
} worker;


// starts `salto batch --job SWEEP J -o DIR [--warm-from K]` in a process group of its own
static pid_t spawn(const batch* b, int j, int warm_from) {
    char jbuf[32], wbuf[32];
    snprintf(jbuf, sizeof jbuf, "%d", j);
    snprintf(wbuf, sizeof wbuf, "%d", warm_from);
    const pid_t parent = getpid();
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL); // the job dies with the batch
        if (getppid() != parent) _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        char* argv[] = {"salto", "batch", "--job", b->s->path, jbuf, "-o", (char*)b->dir,
                        "--warm-from", wbuf, NULL};
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    if (pid > 0) setpgid(pid, pid);
    return pid;
}


// the job to start next: the first that has not run and, with warm starts, whose neighbour
// has ended; -1 when none can start now
static int next_job(const batch* b) {
    for (int j = 0; j < b->s->njob; j++) {
        if (b->state[j] != 0) continue;
        if (b->s->warm_start && b->neighbour[j] >= 0 && b->state[b->neighbour[j]] != 2) continue;
        return j;
    }
    return -1;
}


// the warm start of job j: its neighbour, or the neighbour's own, ..., the first that converged
static int warm_source(const batch* b, int j) {
    if (!b->s->warm_start) return -1;
    int k = b->neighbour[j];
    while (k >= 0 && b->res[k].status != SALTO_JOB_CONVERGED) k = b->neighbour[k];
    return k;
}


typedef struct progress {
    int tty, quiet;
    int total, done, failed, running, skipped, ran;
    double start;
} progress;


static void show_progress(const progress* p, const char* line) {
    if (p->quiet) return;
    const int left = p->total - p->done;
    char eta[64] = "";
    if (p->ran > 0 && left > 0) {
        const double t = (salto_now() - p->start) / p->ran * left;
        snprintf(eta, sizeof eta, ", about %.0f s left", ceil(t));
    }
    if (p->tty) {
        const int width = 30, filled = p->total ? width * p->done / p->total : width;
        fprintf(stderr, "\r\033[K[");
        for (int k = 0; k < width; k++) fputc(k < filled ? '#' : '.', stderr);
        fprintf(stderr, "] %d/%d done, %d failed, %d running%s", p->done, p->total, p->failed,
                p->running, eta);
        if (line) fprintf(stderr, "  (%s)", line);
    } else if (line) {
        fprintf(stderr, "%s  (%d/%d done, %d failed, %d running%s)\n", line, p->done, p->total,
                p->failed, p->running, eta);
    }
    fflush(stderr);
}


// records job j's end (its process's wait status); writes result.json for a crash or a
// time-out (the job could not)
static void job_ended(batch* b, worker* w, int wstatus, progress* pr) {
    const int j = w->job;
    char dir[PATH_MAX + 64], path[PATH_MAX + 128], tmp[PATH_MAX + 128], name[64];
    job_dir(b, j, dir, sizeof dir);
    path_join(path, sizeof path, dir, "result.json");
    salto_job_name(j, name, sizeof name);
    salto_job_result* r = &b->res[j];
    salto_error err = {0};
    if (!w->timed_out && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 &&
        salto_job_result_read(path, b->s, j, r, &err) == SALTO_OK) {
        // the job's own result
    } else {
        salto_job_result_init(r, j);
        if (w->timed_out) {
            r->status = SALTO_JOB_TIMEOUT;
            r->signal = SIGKILL;
        } else if (WIFSIGNALED(wstatus)) {
            r->status = SALTO_JOB_CRASHED;
            r->signal = WTERMSIG(wstatus);
        } else {
            r->status = SALTO_JOB_FAILED;
            r->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
        }
        // what the job logged, with how it ended, under the log's name
        path_join(tmp, sizeof tmp, dir, "log.txt.tmp");
        FILE* f = fopen(tmp, "a");
        if (f) {
            if (w->timed_out) {
                fprintf(f, "salto batch: %s killed at the time limit of %g s\n", name, b->timeout);
            } else if (WIFSIGNALED(wstatus)) {
                fprintf(f, "salto batch: %s crashed: %s\n", name, strsignal(WTERMSIG(wstatus)));
            } else {
                fprintf(f, "salto batch: %s failed (exit status %d)\n", name, r->exit_code);
            }
            fclose(f);
            char log[PATH_MAX + 128];
            path_join(log, sizeof log, dir, "log.txt");
            rename(tmp, log);
        }
        salto_error e = {0};
        if (salto_job_result_write(path, b->s, r, &e) != SALTO_OK) app_print_error(&e);
    }
    b->state[j] = 2;
    w->pid = 0;
    pr->done++, pr->ran++, pr->running--;
    if (r->status != SALTO_JOB_CONVERGED) pr->failed++;
    char line[300];
    const double* mv = r->measure;
    if (r->status == SALTO_JOB_CONVERGED || r->status == SALTO_JOB_NOT_CONVERGED) {
        snprintf(line, sizeof line, "%s %s, %.0f iterations, %.2f s, objective %.6g%s%s", name,
                 salto_job_status_name(r->status), mv[SALTO_MEASURE_ITERATIONS],
                 mv[SALTO_MEASURE_SOLVE_TIME], mv[SALTO_MEASURE_OBJECTIVE],
                 r->validation ? ", validation " : "", salto_job_validation_name(r->validation));
    } else if (r->status == SALTO_JOB_CRASHED) {
        snprintf(line, sizeof line, "%s crashed (%s)", name, strsignal(r->signal));
    } else {
        snprintf(line, sizeof line, "%s %s", name, salto_job_status_name(r->status));
    }
    show_progress(pr, line);
}


// runs the jobs not yet finished on nworker processes; 130 when stopped by a signal, else 0
static int run_pool(batch* b, int nworker, int quiet) {
    const double timeout = b->timeout;
    const salto_sweep* s = b->s;
    worker* w = calloc((size_t)nworker, sizeof *w);
    if (!w) {
        fprintf(stderr, "salto batch: out of memory\n");
        return 1;
    }
    progress pr = {isatty(STDERR_FILENO), quiet, s->njob, 0, 0, 0, 0, 0, salto_now()};
    for (int j = 0; j < s->njob; j++) {
        if (b->state[j] != 2) continue;
        pr.done++, pr.skipped++;
        if (b->res[j].status != SALTO_JOB_CONVERGED) pr.failed++;
    }
    if (!quiet) {
        fprintf(stderr, "salto batch: %d jobs on %d worker%s%s", s->njob, nworker,
                nworker == 1 ? "" : "s", s->warm_start ? ", warm starts from neighbours" : "");
        if (pr.skipped) fprintf(stderr, "; %d already finished (skipped)", pr.skipped);
        fprintf(stderr, "\n");
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int, old_term, old_hup;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);

    int status = 0;
    double drawn = 0.0;
    for (;;) {
        if (g_stop) break;
        // start what can start
        for (int k = 0; k < nworker; k++) {
            if (w[k].pid) continue;
            const int j = next_job(b);
            if (j < 0) break;
            const int warm = warm_source(b, j);
            const pid_t pid = spawn(b, j, warm);
            if (pid < 0) {
                fprintf(stderr, "salto batch: cannot start a worker: %s\n", strerror(errno));
                g_stop = -1;
                break;
            }
            w[k] = (worker){pid, j, salto_now(), 0};
            b->state[j] = 1;
            pr.running++;
        }
        if (pr.running == 0) break; // all done (a job waits only for one before it)
        if (pr.tty && salto_now() - drawn > 0.5) { // the bar's clock, twice a second
            show_progress(&pr, NULL);
            drawn = salto_now();
        }

        // the ends of jobs
        int wstatus = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
            for (int k = 0; k < nworker; k++) {
                if (w[k].pid == pid) job_ended(b, &w[k], wstatus, &pr);
            }
        }
        // the time limit
        for (int k = 0; k < nworker; k++) {
            if (w[k].pid && timeout > 0 && !w[k].timed_out && salto_now() - w[k].start > timeout) {
                w[k].timed_out = 1;
                kill(-w[k].pid, SIGKILL);
            }
        }
        const struct timespec nap = {0, 20000000}; // 20 ms, cut short by SIGCHLD or SIGINT
        nanosleep(&nap, NULL);
    }

    if (g_stop) {
        // stop every running job; what they leave is unfinished and runs again next time
        int n = 0;
        for (int k = 0; k < nworker; k++) {
            if (!w[k].pid) continue;
            kill(-w[k].pid, SIGKILL);
            waitpid(w[k].pid, NULL, 0);
            b->state[w[k].job] = 0;
            n++;
        }
        if (pr.tty && !quiet) fputc('\n', stderr);
        fprintf(stderr, "salto batch: %s; %d jobs stopped, %d of %d finished (run the same "
                        "command again to resume)\n",
                g_stop > 0 ? strsignal(g_stop) : "stopped", n, pr.done, s->njob);
        status = 130;
    } else if (pr.tty && !quiet) {
        fputc('\n', stderr);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    free(w);
    return status;
}


// ---- the modes ----

// one process at a time in a batch folder: a lock on DIR/batch.lock (released by the kernel
// however the process ends); the descriptor, or -1 with the message printed
static int lock_dir(const char* dir) {
    char path[PATH_MAX + 64];
    path_join(path, sizeof path, dir, "batch.lock");
    const int fd = open(path, O_RDWR | O_CREAT, 0666);
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fd < 0 || fcntl(fd, F_SETLK, &fl) != 0) {
        fprintf(stderr, "salto batch: '%s' is in use by another salto batch (or cannot be "
                        "locked: %s)\n",
                dir, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}


static int all_converged(const batch* b) {
    for (int j = 0; j < b->s->njob; j++) {
        if (b->res[j].status != SALTO_JOB_CONVERGED) return 0;
    }
    return 1;
}


// the sweep loaded and checked, and the batch set up in dir (default: beside the sweep):
// batch_init's status, or minus the exit status when the sweep does not load (b untouched)
static int open_batch(batch* b, const char* sweep_path, const char* dir) {
    int status = 0;
    salto_sweep* s = load_sweep("salto batch", sweep_path, 1, &status);
    if (!s) return -status;
    char dirbuf[PATH_MAX];
    if (!dir) {
        app_default_dir(sweep_path, dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    return batch_init(b, s, dir, "salto batch");
}


static int run_batch(const char* sweep_path, const char* dir, int nworker, double timeout,
                     int retry, const char* plot, int quiet) {
    batch b;
    int status = open_batch(&b, sweep_path, dir);
    if (status < 0) return -status;
    const salto_sweep* s = b.s;
    b.plot = plot;
    const int lock = status == 0 ? lock_dir(b.dir) : -1;
    if (status == 0 && lock < 0) status = 2;
    if (status == 0) status = prepare(&b, "salto batch", 1);
    if (status == 0 && retry) {
        for (int j = 0; j < s->njob; j++) {
            if (b.state[j] == 2 && b.res[j].status != SALTO_JOB_CONVERGED) {
                b.state[j] = 0;
                salto_job_result_init(&b.res[j], j);
            }
        }
    }
    if (status == 0) {
        b.timeout = timeout > 0 ? timeout : s->timeout;
        status = run_pool(&b, nworker, quiet);
        const int ws = write_summary(&b, quiet);
        if (status == 0) status = ws ? ws : all_converged(&b) ? 0 : 1;
    }
    if (lock >= 0) close(lock);
    batch_free(&b);
    return status;
}


static int emit(const char* sweep_path, const char* dir, const char* what) {
    const int slurm = strcmp(what, "slurm") == 0;
    if (!slurm && strcmp(what, "jobs") != 0) {
        fprintf(stderr, "salto batch: --emit needs 'jobs' or 'slurm', not '%s'\n", what);
        return 2;
    }
    batch b;
    int status = open_batch(&b, sweep_path, dir);
    if (status < 0) return -status;
    const salto_sweep* s = b.s;
    if (status == 0) status = prepare(&b, "salto batch", 0);
    salto_error err = {0};
    char path[PATH_MAX + 64];
    path_join(path, sizeof path, b.dir, "jobs.txt");
    salto_atomic a;
    if (status == 0 && salto_atomic_open(&a, path, 1, &err) == SALTO_OK) {
        for (int j = 0; j < s->njob; j++) {
            write_job_line(a.f, &b, j);
            fputc('\n', a.f);
        }
        salto_atomic_commit(&a, &err);
    }
    if (status == 0 && slurm && err.status == SALTO_OK) {
        char script[PATH_MAX + 64];
        path_join(script, sizeof script, b.dir, "batch.slurm");
        if (salto_atomic_open(&a, script, 1, &err) == SALTO_OK) {
            FILE* f = a.f;
            const char* base = strrchr(s->path, '/');
            fprintf(f, "#!/bin/sh\n# %s: one array task per line of jobs.txt (salto batch --emit "
                       "slurm)\n", base ? base + 1 : s->path);
            fprintf(f, "#SBATCH --job-name=salto-batch\n#SBATCH --array=0-%d\n", s->njob - 1);
            fprintf(f, "#SBATCH --cpus-per-task=1\n#SBATCH --output=%s/slurm-%%A_%%a.out\n", b.dir);
            if (s->timeout > 0) {
                fprintf(f, "#SBATCH --time=%d\n", (int)ceil(s->timeout / 60.0) + 1);
            }
            fputs("line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" ", f);
            shell_quote(f, path);
            fputs(")\nexec sh -c \"$line\"\n", f);
            if (salto_atomic_commit(&a, &err) == SALTO_OK) chmod(script, 0755);
        }
    }
    if (err.status != SALTO_OK) {
        app_print_error(&err);
        status = 2;
    }
    if (status == 0) {
        printf("wrote %s (%d lines)%s%s\n", path, s->njob, slurm ? " and " : "",
               slurm ? "batch.slurm" : "");
        if (slurm) {
            printf("run: sbatch %s/batch.slurm\n", b.dir);
        } else {
            printf("run: parallel < %s   (or parallel --sshloginfile FILE < %s)\n", path, path);
        }
        printf("then: salto batch --collect %s\n", b.dir);
        if (s->warm_start) {
            printf("note: each line is self-contained, so the jobs start cold (warm starts are "
                   "salto batch's own)\n");
        }
    }
    batch_free(&b);
    return status;
}


static int collect(const char* dir, const char* plot, int quiet) {
    char manifest[PATH_MAX + 64];
    path_join(manifest, sizeof manifest, dir, "batch.json");
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_load(manifest, &err);
    const salto_cfg_node* n = cfg ? salto_cfg_require(salto_cfg_root(cfg), "sweep", &err) : NULL;
    const char* sweep_path = NULL;
    if (!n || salto_cfg_string(n, &sweep_path, &err) != SALTO_OK) {
        app_print_error(&err);
        fprintf(stderr, "salto batch: --collect needs a folder prepared by 'salto batch' or "
                        "'salto batch --emit'\n");
        salto_cfg_destroy(cfg);
        return 2;
    }
    int status = 0;
    salto_sweep* s = load_sweep("salto batch", sweep_path, 0, &status);
    salto_cfg_destroy(cfg);
    if (!s) return status;
    batch b;
    status = batch_init(&b, s, dir, "salto batch");
    b.plot = plot;
    for (int j = 0; status == 0 && j < s->njob; j++) {
        char jd[PATH_MAX + 64], path[PATH_MAX + 128];
        job_dir(&b, j, jd, sizeof jd);
        path_join(path, sizeof path, jd, "result.json");
        salto_error e = {0};
        if (file_exists(path) && salto_job_result_read(path, s, j, &b.res[j], &e) == SALTO_OK) {
            continue;
        }
        salto_job_result_init(&b.res[j], j);
        row_from_outputs(s, j, jd, &b.res[j]);
    }
    if (status == 0) status = write_summary(&b, quiet);
    if (status == 0) status = all_converged(&b) ? 0 : 1;
    batch_free(&b);
    return status;
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
        return run_job(job_sweep, job, dir, warm_from);
    }
    if (collect_dir) {
        if (sweep || emit_what) {
            fprintf(stderr, "salto batch: --collect DIR takes no sweep file and no --emit\n");
            return 2;
        }
        return collect(collect_dir, plot, quiet);
    }
    if (!sweep) {
        fprintf(stderr,
                "usage: salto batch SWEEP.yaml [-o DIR] [-j N] (see 'salto batch --help')\n");
        return 2;
    }
    if (emit_what) return emit(sweep, dir, emit_what);
    return run_batch(sweep, dir, nworker, timeout, retry, plot, quiet);
}
