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
        if (b->state[j] != BATCH_TO_RUN) continue;
        const int k = b->s->warm_start ? b->neighbour[j] : -1;
        if (k >= 0 && b->state[k] != BATCH_FINISHED && b->state[k] != BATCH_UNFINISHED) continue;
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


// whether a signal that ended a job came from outside its problem: sent by someone or
// something else (SIGKILL from the kernel's OOM killer or a user, SIGTERM, SIGINT, SIGHUP or
// SIGQUIT from a user or a cluster's scheduler) or by a resource limit (SIGXFSZ: a file past
// ulimit -f; SIGXCPU: past ulimit -t). The others (SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL,
// ...) are the job's own doing on its problem, and running it again would crash again.
static int outside_signal(int sig) {
    return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT ||
           sig == SIGXFSZ || sig == SIGXCPU;
}


// appends a line to job dir's log: to log.txt.tmp, renamed over log.txt, while the job left
// one, else to log.txt itself (a job that ended on its own has renamed its log)
static void log_line(const char* dir, const char* line) {
    char tmp[PATH_MAX + 128], log[PATH_MAX + 128];
    batch_path_join(tmp, sizeof tmp, dir, "log.txt.tmp");
    batch_path_join(log, sizeof log, dir, "log.txt");
    const int renamed = !batch_file_exists(tmp) && batch_file_exists(log);
    FILE* f = fopen(renamed ? log : tmp, "a");
    if (!f) return;
    fprintf(f, "%s\n", line);
    if (fclose(f) == 0 && !renamed) rename(tmp, log);
}


// records job j's end (its process's wait status); writes result.json for a crash, a
// time-out or a failure the job could not record itself. A job stopped by its environment
// (SALTO_JOB_ENVIRONMENT: its process said so with BATCH_JOB_EXIT_ENVIRONMENT, could not be
// started, or was killed from outside) gets no result.json: it is not finished, and runs again
// when the batch is resumed.
static void job_ended(batch* b, worker* w, int wstatus, progress* pr) {
    const int j = w->job;
    char dir[PATH_MAX + 64], path[PATH_MAX + 128], name[64], line[PATH_MAX + 300];
    batch_job_dir(b, j, dir, sizeof dir);
    batch_path_join(path, sizeof path, dir, "result.json");
    salto_job_name(j, name, sizeof name);
    salto_job_result* r = &b->res[j];
    salto_error err = {0};
    const int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    const int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    if (!w->timed_out && code == 0 && salto_job_result_read(path, b->s, j, r, &err) == SALTO_OK) {
        // the job's own result
    } else {
        salto_job_result_init(r, j);
        r->exit_code = code;
        r->signal = sig;
        if (w->timed_out) {
            r->status = SALTO_JOB_TIMEOUT;
            r->signal = SIGKILL;
            snprintf(line, sizeof line, "salto batch: %s killed at the time limit of %g s", name,
                     b->timeout);
        } else if (sig && outside_signal(sig)) {
            r->status = SALTO_JOB_ENVIRONMENT;
            snprintf(line, sizeof line, "salto batch: %s killed from outside (%s): not finished, "
                                        "it runs again when the batch is resumed",
                     name, strsignal(sig));
        } else if (sig) {
            r->status = SALTO_JOB_CRASHED;
            snprintf(line, sizeof line, "salto batch: %s crashed: %s", name, strsignal(sig));
        } else if (code == BATCH_JOB_EXIT_ENVIRONMENT) {
            r->status = SALTO_JOB_ENVIRONMENT; // the job logged why
            line[0] = '\0';
        } else if (code == 127) {
            // the job process could not become salto (spawn's exec failed: no memory, too many
            // processes): nothing of the problem ran
            r->status = SALTO_JOB_ENVIRONMENT;
            snprintf(line, sizeof line, "salto batch: %s could not be started (exit status 127): "
                                        "not finished, it runs again when the batch is resumed",
                     name);
        } else {
            r->status = SALTO_JOB_FAILED;
            snprintf(line, sizeof line, "salto batch: %s failed (exit status %d)", name, code);
        }
        // how it ended, in its log
        if (line[0]) log_line(dir, line);
        if (r->status == SALTO_JOB_ENVIRONMENT) {
            unlink(path); // whatever it may have written, the job is not finished
        } else {
            salto_error e = {0};
            if (salto_job_result_write(path, b->s, r, &e) != SALTO_OK) app_print_error(&e);
        }
    }
    b->state[j] = r->status == SALTO_JOB_ENVIRONMENT ? BATCH_UNFINISHED : BATCH_FINISHED;
    w->pid = 0;
    pr->done++, pr->ran++, pr->running--;
    if (r->status != SALTO_JOB_CONVERGED) pr->failed++;
    const double* mv = r->measure;
    if (r->status == SALTO_JOB_CONVERGED || r->status == SALTO_JOB_NOT_CONVERGED) {
        snprintf(line, sizeof line, "%s %s, %.0f iterations, %.2f s, objective %.6g%s%s", name,
                 salto_job_status_name(r->status), mv[SALTO_MEASURE_ITERATIONS],
                 mv[SALTO_MEASURE_SOLVE_TIME], mv[SALTO_MEASURE_OBJECTIVE],
                 r->validation ? ", validation " : "", salto_job_validation_name(r->validation));
    } else if (r->status == SALTO_JOB_CRASHED) {
        snprintf(line, sizeof line, "%s crashed (%s)", name, strsignal(r->signal));
    } else if (r->status == SALTO_JOB_ENVIRONMENT) {
        snprintf(line, sizeof line, "%s environment: %s%s%s, not finished (runs again on resume)",
                 name, r->signal ? "killed from outside (" : "stopped outside its problem, ",
                 r->signal ? strsignal(r->signal) : "see its log.txt", r->signal ? ")" : "");
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
        if (b->state[j] != BATCH_FINISHED) continue;
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
            b->state[j] = BATCH_RUNNING;
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
            b->state[w[k].job] = BATCH_TO_RUN;
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
        // every finished job that is not fine: not converged, or (when the sweep validates)
        // its validation failed or could not be made
        for (int j = 0; j < s->njob; j++) {
            if (b.state[j] == BATCH_FINISHED && !salto_job_fine(&b.res[j], s->validate)) {
                b.state[j] = BATCH_TO_RUN;
                salto_job_result_init(&b.res[j], j);
            }
        }
    }
    if (status == 0) {
        b.timeout = timeout > 0 ? timeout : s->timeout;
        status = run_pool(&b, nworker, quiet);
        const int ws = batch_write_summary(&b, quiet);
        if (status == 0) status = ws ? ws : batch_all_fine(&b) ? 0 : 1;
    }
    if (lock >= 0) close(lock);
    batch_free(&b);
    return status;
}
