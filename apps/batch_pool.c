// batch_pool.c: a batch run here: its jobs on a pool of worker processes (each job the salto
// program started again), with the time limit, the progress and Ctrl-C
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch_run.h"
#include "cmds.h"
#include "salto/batch.h"
#include "salto/sweep.h"

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
    batch_job_dir(b, j, dir, sizeof dir);
    batch_path_join(path, sizeof path, dir, "result.json");
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
        batch_path_join(tmp, sizeof tmp, dir, "log.txt.tmp");
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
            batch_path_join(log, sizeof log, dir, "log.txt");
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


// one process at a time in a batch folder: a lock on DIR/batch.lock (released by the kernel
// however the process ends); the descriptor, or -1 with the message printed
static int lock_dir(const char* dir) {
    char path[PATH_MAX + 64];
    batch_path_join(path, sizeof path, dir, "batch.lock");
    const int fd = open(path, O_RDWR | O_CREAT, 0666);
    if (fd < 0) { // the folder's fault, not another batch's (read-only, a file, full)
        fprintf(stderr, "salto batch: cannot write into '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        const int e = errno;
        if (e == EACCES || e == EAGAIN) {
            fprintf(stderr, "salto batch: '%s' is in use by another salto batch\n", dir);
        } else {
            fprintf(stderr, "salto batch: '%s' cannot be locked: %s\n", dir, strerror(e));
        }
        close(fd);
        return -1;
    }
    return fd;
}


int batch_run_batch(const char* sweep_path, const char* dir, int nworker, double timeout,
                    int retry, const char* plot, int quiet) {
    batch b;
    int status = batch_open_batch(&b, sweep_path, dir);
    if (status < 0) return -status;
    const salto_sweep* s = b.s;
    b.plot = plot;
    const int lock = status == 0 ? lock_dir(b.dir) : -1;
    if (status == 0 && lock < 0) status = 2;
    if (status == 0) status = batch_prepare(&b, "salto batch", 1);
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
        const int ws = batch_write_summary(&b, quiet);
        if (status == 0) status = ws ? ws : batch_all_converged(&b) ? 0 : 1;
    }
    if (lock >= 0) close(lock);
    batch_free(&b);
    return status;
}
