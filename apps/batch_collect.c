// batch_collect.c: a batch's summary (summary.csv, summary.json, summary.png), and salto
// batch --collect: the summary of job folders, however they were produced
#include <limits.h>
#include <stdio.h>

#include "batch_run.h"
#include "cmds.h"
#include "salto/batch.h"
#include "salto/config.h"
#include "salto/sweep.h"

// summary.csv, summary.json, summary.png; 0 or 2 with the error printed
int batch_write_summary(const batch* b, int quiet) {
    salto_error err = {0};
    char png[PATH_MAX + 64];
    batch_path_join(png, sizeof png, b->dir, "summary.png");
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
        fprintf(stderr, "\n");
        const int env = count[SALTO_JOB_ENVIRONMENT];
        if (env) {
            fprintf(stderr, "%d job%s stopped by %s environment, not by %s problem (a write "
                            "failed, memory ran out, or a kill from outside; the job's log.txt "
                            "says which): not finished, %s again when the batch is resumed\n",
                    env, env == 1 ? "" : "s", env == 1 ? "its" : "their",
                    env == 1 ? "its" : "their", env == 1 ? "it runs" : "they run");
        }
        fprintf(stderr, "wrote %s/summary.csv, summary.json and summary.png\n", b->dir);
    }
    return 0;
}


int batch_all_fine(const batch* b) {
    for (int j = 0; j < b->s->njob; j++) {
        if (!salto_job_fine(&b->res[j], b->s->validate)) return 0;
    }
    return 1;
}


int batch_collect(const char* dir, const char* plot, int quiet) {
    char manifest[PATH_MAX + 64];
    batch_path_join(manifest, sizeof manifest, dir, "batch.json");
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
    salto_sweep* s = batch_load_sweep("salto batch", sweep_path, 0, &status);
    salto_cfg_destroy(cfg);
    if (!s) return status;
    batch b;
    status = batch_init(&b, s, dir, "salto batch");
    b.plot = plot;
    for (int j = 0; status == 0 && j < s->njob; j++) {
        char jd[PATH_MAX + 64], path[PATH_MAX + 128];
        batch_job_dir(&b, j, jd, sizeof jd);
        batch_path_join(path, sizeof path, jd, "result.json");
        salto_error e = {0};
        if (batch_file_exists(path) && salto_job_result_read(path, s, j, &b.res[j], &e) == SALTO_OK) {
            continue;
        }
        salto_job_result_init(&b.res[j], j);
        batch_row_from_outputs(s, j, jd, &b.res[j]);
    }
    if (status == 0) status = batch_write_summary(&b, quiet);
    if (status == 0) status = batch_all_fine(&b) ? 0 : 1;
    batch_free(&b);
    return status;
}
