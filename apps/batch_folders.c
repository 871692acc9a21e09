// batch_folders.c: a batch's folder: the job folders and their specs (job.json), the
// manifest (batch.json), the batch set up, and the results of finished jobs read back
#define _XOPEN_SOURCE 700 // realpath
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "batch_run.h"
#include "cmds.h"
#include "json_out.h"
#include "salto/atomic.h"
#include "salto/batch.h"
#include "salto/sweep.h"

void batch_job_dir(const batch* b, int j, char* out, size_t n) {
    char name[64];
    salto_job_name(j, name, sizeof name);
    batch_path_join(out, n, b->dir, name);
}


// DIR/job-NNN/job.json: the job's problem (the base file and its overrides), its values and
// the line that runs it alone
static salto_status write_job_spec(const batch* b, int j, salto_error* err) {
    const salto_sweep* s = b->s;
    char dir[PATH_MAX + 64], path[PATH_MAX + 128], name[64];
    batch_job_dir(b, j, dir, sizeof dir);
    batch_path_join(path, sizeof path, dir, "job.json");
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
        batch_write_job_line(m, b, j);
        fclose(m);
    }
    salto_json_str(f, line ? line : "");
    free(line);
    fputs("\n}\n", f);
    return salto_atomic_commit(&a, err);
}


// DIR/batch.json: what --collect needs to find the sweep again
static salto_status write_manifest(const batch* b, salto_error* err) {
    char path[PATH_MAX + 64];
    batch_path_join(path, sizeof path, b->dir, "batch.json");
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
void batch_clear_job(const char* dir) {
    static const char* const names[] = {"result.json", "motion.json", "validation.json",
                                        "log.txt"};
    char path[PATH_MAX + 64];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        batch_path_join(path, sizeof path, dir, names[k]);
        unlink(path);
    }
}


// the folders, the manifest and every job's spec; the results of finished jobs read back
// (a result that does not read, or was written for other values, is cleared: the job runs
// again). 0, or the exit status with the error printed.
int batch_prepare(batch* b, const char* who, int read_results) {
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
        batch_job_dir(b, j, dir, sizeof dir);
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
        batch_path_join(path, sizeof path, dir, "result.json");
        if (!batch_file_exists(path)) continue;
        salto_error e = {0};
        if (salto_job_result_read(path, s, j, &b->res[j], &e) == SALTO_OK) {
            b->state[j] = BATCH_FINISHED;
        } else {
            char line[1400];
            salto_error_format(&e, line, sizeof line);
            fprintf(stderr, "%s: not trusted, the job runs again: %s\n", who, line);
            batch_clear_job(dir);
            salto_job_result_init(&b->res[j], j);
        }
    }
    return 0;
}


int batch_init(batch* b, salto_sweep* s, const char* dir, const char* who) {
    memset(b, 0, sizeof *b);
    b->s = s;
    const ssize_t n = readlink("/proc/self/exe", b->exe, sizeof b->exe - 1);
    if (n <= 0) {
        fprintf(stderr, "%s: cannot find the salto program (/proc/self/exe): %s\n", who,
                strerror(errno));
        return 1;
    }
    b->exe[n] = '\0';
    if (app_check_output_dir(who, dir) != 0) return 2; // (a file in its place, read-only, full)
    if (!realpath(dir, b->dir)) {
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


void batch_free(batch* b) {
    free(b->res);
    free(b->state);
    free(b->neighbour);
    salto_sweep_destroy(b->s);
}
