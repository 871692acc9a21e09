// bench_batch.c: salto bench batch: jobs per minute of a dismount sweep on 1 and 2 workers
//
// The sweep is the high-bar dismount over 4 flight times (0.6 to 0.8 s) and 4 landing
// frictions, 16 jobs solved cold without validation, run end to end by `salto batch` (this
// program, started as a child) into a fresh temporary folder for each worker count: the wall
// time includes starting the job processes, loading, solving, measuring and the summary.
#define _XOPEN_SOURCE 700 // realpath, mkdtemp
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"


// runs argv (this program); its exit status, -1 when it could not run or was killed
static int run(char* const* argv) {
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0][0] == '/' ? argv[0] : "/proc/self/exe", argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


// the number of rows of DIR/summary.csv whose status is "converged"
static int count_converged(const char* dir) {
    char path[4400], line[4096];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE* f = fopen(path, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f)) n += strstr(line, ",converged,") != NULL;
    if (f) fclose(f);
    return n;
}


int bench_batch(int argc, char** argv) {
    const char* root = ".";
    int quick = 0, reps = 1, maxw = 2;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            printf("usage: salto bench batch [--quick] [--reps N] [--workers N] [--root DIR]\n\n"
                   "Runs 'salto batch' on a sweep of problems/highbar_dismount.yaml over 4 flight\n"
                   "times (0.6 to 0.8 s) x 4 landing frictions (1.0 to 0.4), 16 jobs solved cold\n"
                   "without validation, with 1, 2, ... N workers (default 2), each into a fresh\n"
                   "temporary folder, and prints the wall time, jobs per minute and the speed-up\n"
                   "over one worker (the best of --reps runs, default 1).\n\n"
                   "  --quick      a 2 x 2 sweep (a smoke test)\n"
                   "  --reps N     runs per worker count, the fastest kept\n"
                   "  --workers N  the largest worker count (default 2)\n"
                   "  --root DIR   repository root holding problems/ (default: .)\n");
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if (app_parse_int("bench batch", "--reps", argv[++i], 1, 100, &reps)) return 2;
        } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
            if (app_parse_int("bench batch", "--workers", argv[++i], 1, 64, &maxw)) return 2;
        } else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[++i];
        } else {
            fprintf(stderr, "salto bench batch: unknown or incomplete option '%s'\n", argv[i]);
            return 2;
        }
    }
    char problem[4096];
    if (!realpath(root, problem)) {
        fprintf(stderr, "salto bench batch: no folder '%s': %s\n", root, strerror(errno));
        return 2;
    }
    strncat(problem, "/problems/highbar_dismount.yaml", sizeof problem - strlen(problem) - 1);

    // the sweep, in a temporary folder of its own
    char tmp[] = "/tmp/salto-bench-batch-XXXXXX";
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "salto bench batch: cannot make a temporary folder: %s\n", strerror(errno));
        return 1;
    }
    char sweep[4200];
    snprintf(sweep, sizeof sweep, "%s/sweep.yaml", tmp);
    FILE* f = fopen(sweep, "w");
    if (!f) {
        fprintf(stderr, "salto bench batch: cannot write '%s': %s\n", sweep, strerror(errno));
        return 1;
    }
    const int n = quick ? 2 : 4;
    fprintf(f, "problem: %s\nparameters:\n"
               "  phases.flight.duration: {from: 0.6, to: 0.8, count: %d}\n"
               "  phases.landing.contact.friction: {from: 1.0, to: 0.4, count: %d}\n",
            problem, n, n);
    fclose(f);

    printf("salto bench batch: %d x %d sweep of highbar_dismount (%d jobs, cold, no validation), "
           "%ld cores, best of %d\n",
           n, n, n * n, sysconf(_SC_NPROCESSORS_ONLN), reps);
    printf("%8s %6s %10s %10s %12s %9s %11s\n", "workers", "jobs", "converged", "wall (s)",
           "jobs/min", "speed-up", "efficiency");
    int status = 0;
    double t1 = 0.0;
    for (int w = 1; w <= maxw; w++) {
        double best = 1e300;
        int conv = 0;
        for (int r = 0; r < reps; r++) {
            char out[4300], wbuf[16];
            snprintf(out, sizeof out, "%s/out-%d-%d", tmp, w, r);
            snprintf(wbuf, sizeof wbuf, "%d", w);
            char* args[] = {"/proc/self/exe", "batch", sweep, "-o", out, "-j", wbuf, "--quiet",
                            NULL};
            const double t0 = salto_now();
            const int rc = run(args);
            const double t = salto_now() - t0;
            if (rc != 0 && rc != 1) {
                fprintf(stderr, "salto bench batch: salto batch exited with %d\n", rc);
                status = 1;
            }
            conv = count_converged(out);
            if (t < best) best = t;
        }
        if (w == 1) t1 = best;
        printf("%8d %6d %10d %10.2f %12.1f %9.2f %10.0f%%\n", w, n * n, conv, best,
               60.0 * n * n / best, t1 / best, 100.0 * t1 / best / w);
    }
    char* rm[] = {"/bin/rm", "-rf", tmp, NULL};
    run(rm);
    return status;
}
