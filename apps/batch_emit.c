// batch_emit.c: the shell line that runs a job on its own (in its job.json, and for GNU
// parallel or a cluster), and salto batch --emit jobs|slurm: jobs.txt and batch.slurm
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_run.h"
#include "cmds.h"
#include "salto/atomic.h"
#include "salto/sweep.h"

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
    batch_path_join(file, sizeof file, dir, log);
    shell_quote(f, file);
    fputs(" 2>&1", f);
}


void batch_write_job_line(FILE* f, const batch* b, int j) {
    const salto_sweep* s = b->s;
    char dir[PATH_MAX + 64], motion[PATH_MAX + 128];
    batch_job_dir(b, j, dir, sizeof dir);
    const char* set[SALTO_SWEEP_MAX_PARAMS];
    salto_sweep_job_set(s, j, set);
    if (s->timeout > 0) fprintf(f, "timeout -s KILL %.0f ", ceil(s->timeout));
    put_command(f, b, "solve", s->problem, NULL, s->nparam, set, dir, " --quiet", "solve.log");
    if (s->validate) {
        // the line's exit status is the solve's (a validation's verdict is in its file)
        fputs("; status=$?; ", f);
        batch_path_join(motion, sizeof motion, dir, "motion.json");
        put_command(f, b, "validate", motion, s->problem, s->nparam, set, dir, "", "validate.log");
        fputs("; exit $status", f);
    }
}


int batch_emit(const char* sweep_path, const char* dir, const char* what) {
    const int slurm = strcmp(what, "slurm") == 0;
    if (!slurm && strcmp(what, "jobs") != 0) {
        fprintf(stderr, "salto batch: --emit needs 'jobs' or 'slurm', not '%s'\n", what);
        return 2;
    }
    batch b;
    int status = batch_open_batch(&b, sweep_path, dir);
    if (status < 0) return -status;
    const salto_sweep* s = b.s;
    if (status == 0) status = batch_prepare(&b, "salto batch", 0);
    salto_error err = {0};
    char path[PATH_MAX + 64];
    batch_path_join(path, sizeof path, b.dir, "jobs.txt");
    salto_atomic a;
    if (status == 0 && salto_atomic_open(&a, path, 1, &err) == SALTO_OK) {
        for (int j = 0; j < s->njob; j++) {
            batch_write_job_line(a.f, &b, j);
            fputc('\n', a.f);
        }
        salto_atomic_commit(&a, &err);
    }
    if (status == 0 && slurm && err.status == SALTO_OK) {
        char script[PATH_MAX + 64];
        batch_path_join(script, sizeof script, b.dir, "batch.slurm");
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
