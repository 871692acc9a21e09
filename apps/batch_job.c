// batch_job.c: one job of a batch, in its worker process (salto batch --job): its problem
// written out, solved, validated when asked and measured in its folder, result.json last
//
// A job that failed for a reason outside its problem writes no result.json, so that it is not
// finished and runs again when the batch is resumed: a write that failed because the disk was
// full or failing (ENOSPC, EDQUOT, EIO, EFBIG), memory that ran out, its own log or result
// that could not be written. Its process then exits with BATCH_JOB_EXIT_ENVIRONMENT. The solve
// and the validation run in this process (cmd_solve.c, cmd_validate.c) and report such
// failures only as messages and exit statuses that also mean bad input, so the job tells them
// apart by what it can see from here: an allocation through salto_malloc that returned NULL
// (the allocation hooks), an error on its log's stream, and the system's own words for those
// errors (strerror) or salto's "out of memory" in what the job logged.
#define _XOPEN_SOURCE 700 // realpath
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_motion.h"
#include "batch_run.h"
#include "cmds.h"
#include "salto/atomic.h"
#include "salto/batch.h"
#include "salto/config.h"
#include "salto/sweep.h"

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
        batch_path_join(file, sizeof file, jdir, "problem.yaml");
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


// the job's measures from its motion on its problem; NAN where they cannot be had
static void measure_job(const salto_sweep* s, const char* dir, const char* const* set,
                        salto_job_result* r) {
    char motion[PATH_MAX + 64];
    batch_path_join(motion, sizeof motion, dir, "motion.json");
    if (!batch_file_exists(motion)) return;
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
void batch_row_from_outputs(const salto_sweep* s, int j, const char* dir, salto_job_result* r) {
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


// ---- failures outside the problem ----

// the job's allocations through salto_malloc, counted; the first that fails recorded
typedef struct job_alloc {
    long count;   // allocations so far
    long fail_at; // the one to fail on purpose (SALTO_BATCH_FAIL_ALLOC), 0: none
    int failed;   // one returned NULL
} job_alloc;

static job_alloc g_alloc;


static void* job_malloc(size_t n, void* user) {
    (void)user;
    g_alloc.count++;
    void* p = g_alloc.count == g_alloc.fail_at ? NULL : malloc(n);
    if (!p) g_alloc.failed = 1;
    return p;
}


static void job_free(void* p, void* user) {
    (void)user;
    free(p);
}


// The allocation hooks for job j, from the start of its work on: every allocation through
// salto_malloc counted, and a failure remembered. For the tests, SALTO_BATCH_FAIL_ALLOC=J:N
// makes job J's N-th allocation fail, as when memory runs out (read here only: no other
// command looks at it).
static void watch_allocations(int j) {
    memset(&g_alloc, 0, sizeof g_alloc);
    const char* fault = getenv("SALTO_BATCH_FAIL_ALLOC");
    int fj = -1;
    long n = 0;
    if (fault && sscanf(fault, "%d:%ld", &fj, &n) == 2 && fj == j && n > 0) g_alloc.fail_at = n;
    const salto_alloc_hooks hooks = {job_malloc, job_free, NULL};
    salto_set_alloc_hooks(&hooks);
}


// What in the job's log (its own output, the file at path) says it failed for a reason outside
// its problem: the system's message for a full or failing disk, a quota or a file size limit
// (strerror, as salto's write errors quote it: "cannot write 'F': No space left on device"),
// cairo's for a picture it could not write, salto's "out of memory". Into cause (n bytes);
// 0 when the log says nothing of the kind.
static int log_names_environment(const char* path, char* cause, size_t n) {
    const int codes[] = {ENOSPC, EDQUOT, EIO, EFBIG};
    char words[4][128];
    for (int k = 0; k < 4; k++) snprintf(words[k], sizeof words[k], "%s", strerror(codes[k]));
    const char* others[] = {"error while writing to output stream", "out of memory"};
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    char line[2048];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        for (int k = 0; k < 4 && !found; k++) {
            if (strstr(line, words[k])) {
                found = snprintf(cause, n, "a write failed: %s", words[k]) > 0;
            }
        }
        for (int k = 0; k < 2 && !found; k++) {
            if (strstr(line, others[k])) found = snprintf(cause, n, "%s", others[k]) > 0;
        }
    }
    fclose(f);
    return found;
}


// salto batch --job SWEEP J -o DIR [--warm-from K]: runs job J into DIR/job-J; writes its
// result.json last. Exit status 0 when the result is written; BATCH_JOB_EXIT_ENVIRONMENT,
// without a result, when the job failed for a reason outside its problem (see the file's
// header); 2 when the sweep does not load or has no job J.
int batch_run_job(const char* sweep_path, int j, const char* out, int warm_from) {
    int status = 0;
    salto_sweep* s = batch_load_sweep("salto batch", sweep_path, 0, &status);
    if (!s) return status == 1 ? BATCH_JOB_EXIT_ENVIRONMENT : status; // 1: out of memory
    if (j < 0 || j >= s->njob || warm_from >= s->njob) {
        fprintf(stderr, "salto batch: no job %d in '%s'\n", j, sweep_path);
        salto_sweep_destroy(s);
        return 2;
    }
    char name[64], dir[PATH_MAX + 64], log[PATH_MAX + 128], logtmp[PATH_MAX + 128];
    char res_path[PATH_MAX + 128], warm_motion[PATH_MAX + 128], warm_set[PATH_MAX + 160];
    salto_job_name(j, name, sizeof name);
    batch_path_join(dir, sizeof dir, out, name);
    batch_path_join(log, sizeof log, dir, "log.txt");
    batch_path_join(logtmp, sizeof logtmp, dir, "log.txt.tmp");
    batch_path_join(res_path, sizeof res_path, dir, "result.json");
    // the job's own folder and log: when they cannot be made, nothing of the problem ran
    if (app_make_dirs(dir) != 0) {
        fprintf(stderr, "salto batch: cannot create '%s': %s\n", dir, strerror(errno));
        salto_sweep_destroy(s);
        return BATCH_JOB_EXIT_ENVIRONMENT;
    }
    batch_clear_job(dir);

    // everything the job prints goes to its log
    const int fd = open(logtmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
        fprintf(stderr, "salto batch: cannot write '%s': %s\n", logtmp, strerror(errno));
        salto_sweep_destroy(s);
        return BATCH_JOB_EXIT_ENVIRONMENT;
    }
    close(fd);
    setvbuf(stdout, NULL, _IOLBF, 0);
    clearerr(stdout);
    clearerr(stderr);
    watch_allocations(j);

    const char* set[SALTO_SWEEP_MAX_PARAMS];
    salto_sweep_job_set(s, j, set);
    salto_job_result r;
    salto_job_result_init(&r, j);
    if (warm_from >= 0) {
        char wname[64];
        salto_job_name(warm_from, wname, sizeof wname);
        batch_path_join(warm_motion, sizeof warm_motion, out, wname);
        if (snprintf(warm_set, sizeof warm_set, "initial_guess.motion=%s/motion.json",
                     warm_motion) >= (int)sizeof warm_set) {
            warm_set[0] = '\0';
        }
        if (warm_set[0] && batch_file_exists(warm_set + strlen("initial_guess.motion="))) {
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
    // the solve without its own verdict: validation is the sweep's to ask for (below), so that
    // a validated job is not judged twice and an unvalidated one not at all
    int rc = app_solve(argc, (char**)argv, 0);
    if (rc == 2 && r.warm_from >= 0) {
        // a warm start this problem does not take (the checks before the batch were cold)
        printf("salto batch: the warm start from job %d was not accepted; solving cold\n",
               r.warm_from);
        r.warm_from = -1;
        argv[cold_argc] = NULL;
        if (write_job_problem(s, j, dir, 0, warm, &perr) != SALTO_OK) app_print_error(&perr);
        rc = app_solve(cold_argc, (char**)argv, 0);
    }
    fflush(stdout);
    fflush(stderr);

    // validate, when asked and there is a motion
    char motion[PATH_MAX + 128];
    batch_path_join(motion, sizeof motion, dir, "motion.json");
    if (s->validate && batch_file_exists(motion)) {
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

    // the row (a solve that wrote no motion failed, whatever its exit status)
    batch_row_from_outputs(s, j, dir, &r);
    if (rc == 2 || r.status == SALTO_JOB_MISSING) r.status = SALTO_JOB_FAILED;
    r.exit_code = rc;

    // a failure outside the problem: no result, the job is not finished
    char cause[256] = "";
    fflush(stdout);
    fflush(stderr);
    if (g_alloc.failed) {
        snprintf(cause, sizeof cause, "out of memory: allocation %ld failed", g_alloc.count);
    } else if (ferror(stdout) || ferror(stderr)) {
        snprintf(cause, sizeof cause, "its log could not be written");
    } else {
        log_names_environment(logtmp, cause, sizeof cause);
    }
    salto_error err = {0};
    status = 0;
    if (cause[0]) {
        printf("salto batch: %s stopped by its environment, not its problem (%s): not finished, "
               "no result.json; it runs again when the batch is resumed\n", name, cause);
        status = BATCH_JOB_EXIT_ENVIRONMENT;
    } else {
        printf("salto batch: %s %s\n", name, salto_job_status_name(r.status));
    }
    fflush(stdout);
    fflush(stderr);
    rename(logtmp, log);
    if (status == 0 && salto_job_result_write(res_path, s, &r, &err) != SALTO_OK) {
        app_print_error(&err); // (into the log)
        printf("salto batch: %s's result.json could not be written: not finished; it runs again "
               "when the batch is resumed\n", name);
        status = BATCH_JOB_EXIT_ENVIRONMENT;
    }
    salto_set_alloc_hooks(NULL);
    salto_sweep_destroy(s);
    return status;
}
