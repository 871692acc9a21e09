// bench_zoo.c: salto bench zoo: every problem of a folder solved as a user would, with the
// default settings, and judged: how many converge and pass every validation check
//
// Each problem runs as its own `salto solve PROBLEM -o TMP/NAME --quiet` (this program,
// started as a child, so that what is measured is exactly what a user runs, a crash included),
// under a time limit. salto solve validates what it converged to and ends with the verdict
// (cmd_solve.c); the table is read from its status line and that verdict. A problem succeeds
// when IPOPT converged and every judged check passed.
#define _XOPEN_SOURCE 700 // mkdtemp, nftw
#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cmds.h"
#include "salto/base.h"

typedef struct zoo_row {
    char name[256];
    int exit;             // the solve's exit status; -1 killed (time limit) or crashed
    int timed_out;
    double wall;          // s
    char status[64];      // IPOPT's status ("" when none was printed)
    int iterations;       // -1 when unknown
    int passed, judged;   // the validation's counts (-1 when none ran)
    char worst[200];      // the worst failing check, "" when none
    // the cost line (salto_print_cost): factorisations and their time, MUMPS's on the same
    // matrices, the Hessian in Jacobians' worth (-1 when not printed)
    int fact;
    double fact_s, mumps_s, hess_jac;
    int inertia_differs;
} zoo_row;


static int cmp_str(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}


// nftw's callback: removes what it is given (the tree is walked depth first)
static int remove_entry(const char* path, const struct stat* sb, int flag, struct FTW* ftw) {
    (void)sb, (void)ftw;
    if (flag == FTW_DP) {
        rmdir(path);
    } else {
        unlink(path);
    }
    return 0; // best effort: go on
}


// runs this program with argv, stdout and stderr into log, killed after limit seconds (0: no
// limit); its exit status, -1 when killed or ended by a signal (*timed_out set when by us)
static int run_logged(char* const* argv, const char* log, double limit, int* timed_out) {
    fflush(stdout);
    fflush(stderr);
    *timed_out = 0;
    const pid_t pid = fork();
    if (pid == 0) {
        FILE* f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0) _exit(127);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    if (pid < 0) return -1;
    const double t0 = salto_now();
    int st = 0;
    for (;;) {
        const pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return -1;
        if (limit > 0 && salto_now() - t0 > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            *timed_out = 1;
            return -1;
        }
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


// reads the solve's log: IPOPT's status line and the validation's verdict
static void read_log(const char* log, zoo_row* r) {
    r->status[0] = '\0';
    r->iterations = -1;
    r->passed = r->judged = -1;
    r->worst[0] = '\0';
    r->fact = -1;
    r->fact_s = r->mumps_s = r->hess_jac = -1.0;
    r->inertia_differs = 0;
    FILE* f = fopen(log, "r");
    if (!f) return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char st[64];
        int it;
        if (sscanf(line, "%63s after %d iterations in", st, &it) == 2) {
            snprintf(r->status, sizeof r->status, "%s", st);
            r->iterations = it;
        }
        if (strncmp(line, "cost: ", 6) == 0) {
            const char* c = strstr(line, " factorisations of the ");
            int it2, nf;
            if (c && sscanf(line, "cost: %d iterations, %d factorisations", &it2, &nf) == 2) r->fact = nf;
            c = strstr(line, " an iteration), ");
            if (c) sscanf(c, " an iteration), %lf s", &r->fact_s);
            c = strstr(line, "; Hessian ");
            double hs;
            if (c) sscanf(c, "; Hessian %lf s, %lf Jacobians", &hs, &r->hess_jac);
            c = strstr(line, "; MUMPS on the same ");
            int nm;
            if (c) sscanf(c, "; MUMPS on the same %d matrices %lf s", &nm, &r->mumps_s);
            if (strstr(line, ", other inertia on ")) r->inertia_differs = 1;
        }
        int np, nj;
        if (sscanf(line, "validation: %d of %d checks pass", &np, &nj) == 2) {
            r->passed = np;
            r->judged = nj;
            const char* w = strstr(line, "the worst, ");
            if (w) {
                w += strlen("the worst, ");
                const char* end = strstr(w, ", is ");
                const size_t n = end ? (size_t)(end - w) : strcspn(w, "\n");
                snprintf(r->worst, sizeof r->worst, "%.*s", (int)(n < 199 ? n : 199), w);
            }
        }
    }
    fclose(f);
}


static int converged(const zoo_row* r) {
    return strcmp(r->status, "Solve_Succeeded") == 0 || strcmp(r->status, "Solved_To_Acceptable_Level") == 0;
}


static int passes(const zoo_row* r) {
    return converged(r) && r->judged > 0 && r->passed == r->judged && r->exit == 0;
}


int bench_zoo(int argc, char** argv) {
    const char* dir = "problems/zoo";
    const char* out = NULL;
    double limit = 600.0;
    int keep = 0, nset = 0;
    const char** set = calloc((size_t)argc + 1, sizeof *set); // at most one per argument
    if (!set) {
        fprintf(stderr, "salto bench zoo: out of memory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            free(set);
            printf("usage: salto bench zoo [DIR] [--timeout S] [-o OUT] [--set PATH=VALUE]...\n\n"
                   "Solves every problem file in DIR (default problems/zoo) as a user would, each\n"
                   "with 'salto solve FILE --quiet' and nothing else (the problem's own settings, the\n"
                   "defaults for the rest), one after another, and prints per problem: IPOPT's\n"
                   "status, iterations, wall time, the validation's checks passed (salto solve\n"
                   "validates what it converged to) and the worst failing check; then how many\n"
                   "converged and how many converged and passed every check (the success rate).\n\n"
                   "  --timeout S  a solve still running after S seconds is killed and counts as\n"
                   "               not converged (default 600)\n"
                   "  -o OUT       keep each problem's output in OUT/NAME (default: a temporary\n"
                   "               folder, removed at the end)\n"
                   "  --set PATH=VALUE\n"
                   "               passed to every solve (an experiment: what a changed default\n"
                   "               would do to the whole zoo, e.g. --set solver.refine=4)\n"
                   "Exit status: 0 when it ran (whatever the verdicts), 2 for bad usage or a folder\n"
                   "without problem files.\n");
            return 0;
        } else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            char* end = NULL;
            limit = strtod(argv[++i], &end);
            if (!end || *end || !(limit > 0.0) || limit > 1e6) {
                fprintf(stderr, "salto bench zoo: --timeout must be a number of seconds above 0\n");
                free(set);
                return 2;
            }
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
            keep = 1;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            if (nset == 64) {
                fprintf(stderr, "salto bench zoo: at most 64 --set\n");
                free(set);
                return 2;
            }
            set[nset++] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "salto bench zoo: unknown or incomplete option '%s'\n", argv[i]);
            free(set);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    DIR* d = opendir(dir);
    if (!d) {
        fprintf(stderr, "salto bench zoo: cannot read the folder '%s': %s\n", dir, strerror(errno));
        free(set);
        return 2;
    }
    int n = 0, cap = 0;
    char** files = NULL;
    for (struct dirent* e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0 || e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char** nf = realloc(files, (size_t)cap * sizeof *files);
            if (!nf) break;
            files = nf;
        }
        files[n] = malloc(strlen(dir) + len + 2);
        if (!files[n]) break;
        sprintf(files[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n == 0) {
        fprintf(stderr, "salto bench zoo: no problem files (*.yaml) in '%s'\n", dir);
        free(files);
        free(set);
        return 2;
    }
    qsort(files, (size_t)n, sizeof *files, cmp_str);
    char tmpl[] = "/tmp/salto-zoo-XXXXXX";
    if (!out) {
        out = mkdtemp(tmpl);
        if (!out) {
            fprintf(stderr, "salto bench zoo: cannot make a temporary folder: %s\n", strerror(errno));
            for (int k = 0; k < n; k++) free(files[k]);
            free(files);
            free(set);
            return 2;
        }
    } else if (app_make_dirs(out) != 0) {
        fprintf(stderr, "salto bench zoo: cannot create '%s': %s\n", out, strerror(errno));
        for (int k = 0; k < n; k++) free(files[k]);
        free(files);
        free(set);
        return 2;
    }
    zoo_row* rows = calloc((size_t)n, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "salto bench zoo: out of memory\n");
        for (int k = 0; k < n; k++) free(files[k]);
        free(files);
        free(set);
        return 2;
    }
    printf("salto bench zoo: %d problems in %s, each 'salto solve FILE --quiet' with the default "
           "settings, at most %.0f s each\n", n, dir, limit);
    for (int q = 0; q < nset; q++) printf("  --set %s\n", set[q]);
    printf("\n");
    // the children compare salto's KKT factorisation with MUMPS on the same matrices
    setenv("SALTO_KKT_COMPARE", "1", 1);
    printf("%-24s %-24s %5s %7s %6s %7s %7s %7s  %7s  %s\n", "problem", "IPOPT status", "iter",
           "fact/it", "KKT ms", "MUMPS x", "Hess J", "time s", "checks",
           "verdict (the worst failing check)");
    int nconv = 0, npass = 0;
    double* walls = calloc((size_t)n, sizeof(double));
    long fact_all = 0, it_all = 0;
    double fs_all = 0.0, ms_all = 0.0;
    for (int k = 0; walls && k < n; k++) {
        zoo_row* r = &rows[k];
        const char* base = strrchr(files[k], '/');
        base = base ? base + 1 : files[k];
        snprintf(r->name, sizeof r->name, "%.*s", (int)(strlen(base) - 5), base);
        char odir[4400], log[4500];
        snprintf(odir, sizeof odir, "%s/%s", out, r->name);
        snprintf(log, sizeof log, "%s/%s.log", out, r->name);
        char* args[2 * 64 + 8];
        int na = 0;
        args[na++] = "/proc/self/exe", args[na++] = "solve", args[na++] = files[k];
        args[na++] = "-o", args[na++] = odir, args[na++] = "--quiet";
        for (int q = 0; q < nset && q < 64; q++) args[na++] = "--set", args[na++] = (char*)set[q];
        args[na] = NULL;
        const double t0 = salto_now();
        r->exit = run_logged(args, log, limit, &r->timed_out);
        r->wall = salto_now() - t0;
        read_log(log, r);
        nconv += converged(r);
        npass += passes(r);
        char checks[32] = "-";
        if (r->judged > 0) snprintf(checks, sizeof checks, "%d/%d", r->passed, r->judged);
        char verdict[4600];
        if (r->timed_out) {
            snprintf(verdict, sizeof verdict, "timed out");
        } else if (r->exit == 2) {
            snprintf(verdict, sizeof verdict, "bad input (see %s)", log);
        } else if (r->exit < 0) {
            snprintf(verdict, sizeof verdict, "crashed");
        } else if (passes(r)) {
            snprintf(verdict, sizeof verdict, "pass");
        } else if (!converged(r)) {
            snprintf(verdict, sizeof verdict, "not converged%s%s", r->worst[0] ? "; " : "", r->worst);
        } else {
            snprintf(verdict, sizeof verdict, "FAIL: %s", r->worst[0] ? r->worst : "?");
        }
        char it[16] = "-";
        if (r->iterations >= 0) snprintf(it, sizeof it, "%d", r->iterations);
        bench_cost_cells cc;
        bench_cost_format(&cc, r->fact, r->iterations, r->fact_s, r->mumps_s, r->inertia_differs,
                          r->hess_jac);
        // the wall time without MUMPS's comparison (not the solve's work)
        const double wall = r->wall - (r->mumps_s > 0.0 ? r->mumps_s : 0.0);
        walls[k] = wall;
        printf("%-24s %-24s %5s %7s %6s %7s %7s %7.1f  %7s  %s\n", r->name,
               r->status[0] ? r->status : "-", it, cc.fpi, cc.kms, cc.mx, cc.hj, wall, checks, verdict);
        fact_all += r->fact > 0 ? r->fact : 0, it_all += r->fact > 0 ? r->iterations : 0;
        if (r->fact > 0) fs_all += r->fact_s, ms_all += r->mumps_s > 0 ? r->mumps_s : 0.0;
        fflush(stdout);
    }
    printf("\n%d of %d converged; %d of %d converged and passed every check (%.0f%%)\n", nconv, n,
           npass, n, 100.0 * npass / n);
    if (walls) {
        qsort(walls, (size_t)n, sizeof(double), bench_cmp_double);
        printf("median time %.1f s; %.2f factorisations an iteration over the zoo; salto's KKT "
               "factorisations %.2f s, MUMPS's on the same matrices %.2f s (%.1fx)\n",
               n % 2 ? walls[n / 2] : 0.5 * (walls[n / 2 - 1] + walls[n / 2]),
               it_all > 0 ? (double)fact_all / it_all : 0.0, fs_all, ms_all,
               fs_all > 0.0 ? ms_all / fs_all : 0.0);
        printf("(fact/it: factorisations an iteration; KKT ms: salto's, each; MUMPS x: MUMPS's time "
               "on the same matrices over salto's, * where it counted another inertia; Hess J: a "
               "Hessian's time in Jacobians' worth; time s: the wall time less MUMPS's)\n");
    }
    free(walls);
    if (!keep) {
        // the temporary folder and all the solves wrote into it (a solve killed at the time
        // limit may leave an atomic write's temporary file)
        nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    } else {
        printf("the outputs and each solve's log are in %s/\n", out);
    }
    for (int k = 0; k < n; k++) free(files[k]);
    free(files);
    free(rows);
    free(set);
    return 0;
}
