// cmd_watch.c: salto watch PROBLEM [--port N]: the viewer served on loopback, re-solving the
// problem each time its file (or its character's) is saved, warm-started from the last motion
//
// The main thread watches the files (their modification time, size and inode, every 100 ms)
// and runs each solve as a child 'salto solve' (so that a save during a solve stops it and
// starts over, and nothing a solve does can take the server down), reading its progress lines.
// A solved motion becomes the page's data (view_write_data, as salto view writes it); a file
// with an error becomes its message. libmicrohttpd serves the page and a server-sent event
// stream (/events: "motion", "failed" and "progress") from a thread per connection, each
// waiting on the hub's condition variable for the next event.
#define _GNU_SOURCE // open_memstream, pipe2
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "view.h"

static void help(void) {
    printf("usage: salto watch PROBLEM.yaml [--port N] [--host ADDR] [-o DIR] [--set PATH=VALUE]...\n\n"
           "Serves the viewer of 'salto view' on http://127.0.0.1:N/ and solves the problem each\n"
           "time its file or its character's file is saved (and once at the start), warm-started\n"
           "from the last motion it solved. The page updates in place: the solver's progress as\n"
           "it runs, then the new motion with its plots; for a file with an error, the error\n"
           "with its file:line:col instead of the motion (shown greyed until the file solves\n"
           "again). A save during a solve stops it and starts over. Ctrl-C stops the server.\n"
           "Each solve is 'salto solve' writing into DIR/a or DIR/b in turn (the last motion\n"
           "stays while the next is solved). Exit status 0 after Ctrl-C, 2 for bad input or a\n"
           "port that cannot be had.\n\n"
           "  --port N         the port (default 8765; 0: any free one, printed)\n"
           "  --host ADDR      the IPv4 address to listen on (default 127.0.0.1, loopback only:\n"
           "                   other machines cannot connect unless this says otherwise)\n"
           "  -o DIR           where the solves write (default out/<problem name>-watch)\n"
           "  --set PATH=VALUE change a value of the problem file, as 'salto solve --set' does\n");
}


// ---- the hub: the latest events, for every connection ----

static struct hub {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char* state;                 // the last "motion" or "failed" event, whole (owned)
    unsigned long state_seq;     // bumped with each
    char* progress;              // the last "progress" event
    unsigned long progress_seq;
    int stopping;
} hub = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, NULL, 0, 0};


// an event as server-sent events write it: each line of data on a "data:" line
static char* make_event(const char* name, const char* data, size_t n) {
    char* out = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&out, &len);
    if (!f) return NULL;
    fprintf(f, "event: %s\n", name);
    size_t start = 0;
    while (n > 0 && (data[n - 1] == '\n' || data[n - 1] == '\r')) n--;
    for (size_t k = 0; k <= n; k++) {
        if (k == n || data[k] == '\n') {
            fputs("data: ", f);
            fwrite(data + start, 1, k - start, f);
            fputc('\n', f);
            start = k + 1;
        }
    }
    fputc('\n', f);
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}


static void publish(int progress, const char* name, const char* data, size_t n) {
    char* ev = make_event(name, data, n);
    if (!ev) return; // out of memory: the page keeps the last event
    pthread_mutex_lock(&hub.mu);
    char** slot = progress ? &hub.progress : &hub.state;
    free(*slot);
    *slot = ev;
    if (progress) {
        hub.progress_seq++;
    } else {
        hub.state_seq++;
    }
    pthread_cond_broadcast(&hub.cv);
    pthread_mutex_unlock(&hub.mu);
}


static void publishf(int progress, const char* name, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void publishf(int progress, const char* name, const char* fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    publish(progress, name, buf, strlen(buf));
}


// ---- HTTP: the page, the event stream, nothing else ----

typedef struct stream {
    unsigned long seen_state, seen_progress;
    char* buf; // what is being sent (owned)
    size_t len, off;
} stream;


static ssize_t stream_read(void* cls, uint64_t pos, char* out, size_t max) {
    (void)pos;
    stream* s = cls;
    pthread_mutex_lock(&hub.mu);
    while (s->off >= s->len) {
        free(s->buf);
        s->buf = NULL, s->len = s->off = 0;
        if (hub.stopping) {
            pthread_mutex_unlock(&hub.mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        const char* next = NULL;
        if (hub.state && hub.state_seq != s->seen_state) {
            next = hub.state, s->seen_state = hub.state_seq;
        } else if (hub.progress && hub.progress_seq != s->seen_progress) {
            next = hub.progress, s->seen_progress = hub.progress_seq;
        }
        if (next) {
            s->buf = strdup(next);
        } else {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 15;
            if (pthread_cond_timedwait(&hub.cv, &hub.mu, &until) == ETIMEDOUT) {
                s->buf = strdup(": still here\n\n"); // keeps proxies and browsers from timing out
            }
        }
        if (s->buf) s->len = strlen(s->buf);
    }
    const size_t n = s->len - s->off < max ? s->len - s->off : max;
    memcpy(out, s->buf + s->off, n);
    s->off += n;
    pthread_mutex_unlock(&hub.mu);
    return (ssize_t)n;
}


static void stream_free(void* cls) {
    stream* s = cls;
    free(s->buf);
    free(s);
}


typedef struct site {
    const char* page; // the live page
    size_t npage;
} site;


static enum MHD_Result reply_text(struct MHD_Connection* c, unsigned code, const char* text) {
    struct MHD_Response* r =
        MHD_create_response_from_buffer(strlen(text), (void*)text, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    const enum MHD_Result ok = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ok;
}


static enum MHD_Result handle(void* cls, struct MHD_Connection* c, const char* url,
                              const char* method, const char* version, const char* upload,
                              size_t* upload_size, void** con_cls) {
    (void)version, (void)upload, (void)con_cls;
    const site* st = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        *upload_size = 0;
        return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "salto watch serves GET only\n");
    }
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
        struct MHD_Response* r =
            MHD_create_response_from_buffer(st->npage, (void*)st->page, MHD_RESPMEM_PERSISTENT);
        if (!r) return MHD_NO;
        MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
        MHD_add_response_header(r, "Cache-Control", "no-store");
        const enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    if (strcmp(url, "/events") == 0) {
        stream* s = calloc(1, sizeof *s);
        if (!s) return MHD_NO;
        struct MHD_Response* r =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_read, s, stream_free);
        if (!r) {
            free(s);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "text/event-stream");
        MHD_add_response_header(r, "Cache-Control", "no-store");
        const enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: salto watch serves / and /events only\n");
}


// ---- watching files ----

typedef struct stamp {
    int ok;
    struct timespec mtime;
    off_t size;
    ino_t ino;
} stamp;


static stamp stamp_of(const char* path) {
    stamp s = {0};
    struct stat st;
    if (path && stat(path, &st) == 0) {
        s.ok = 1, s.mtime = st.st_mtim, s.size = st.st_size, s.ino = st.st_ino;
    }
    return s;
}


static int stamp_same(const stamp* a, const stamp* b) {
    return a->ok == b->ok && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec && a->size == b->size && a->ino == b->ino;
}


static volatile sig_atomic_t stop_asked = 0;
static void on_signal(int sig) {
    (void)sig;
    stop_asked = 1;
}


static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


// ---- one solve: a child 'salto solve' ----

typedef struct solve_job {
    pid_t pid;
    int fd;          // its stderr
    char* log;       // what it wrote (owned)
    size_t nlog, cap;
    double started;
    int warm;
    char dir[4200];
} solve_job;


static int job_start(solve_job* j, const char* problem, const char* dir, const char* warm_from,
                     int nset, char** set) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    char* argv[16 + 2 * 64];
    int n = 0;
    argv[n++] = "salto";
    argv[n++] = "solve";
    argv[n++] = (char*)problem;
    argv[n++] = "-o";
    argv[n++] = (char*)dir;
    for (int k = 0; k < nset && k < 60; k++) argv[n++] = "--set", argv[n++] = set[k];
    // the warm start replaces the file's whole initial_guess (its interpolation's keys, such
    // as a rotation, do not go with a motion); the path single-quoted for YAML
    char warm[2 * PATH_MAX + 64];
    if (warm_from) {
        size_t k = (size_t)snprintf(warm, sizeof warm, "initial_guess={type: motion, motion: '");
        for (const char* c = warm_from; *c && k + 8 < sizeof warm; c++) {
            if (*c == '\'') warm[k++] = '\'';
            warm[k++] = *c;
        }
        snprintf(warm + k, sizeof warm - k, "'}");
        argv[n++] = "--set", argv[n++] = warm;
    }
    argv[n] = NULL;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 2);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    j->pid = pid, j->fd = fds[0];
    j->nlog = 0;
    if (j->log) j->log[0] = '\0';
    j->started = now_s();
    j->warm = warm_from != NULL;
    snprintf(j->dir, sizeof j->dir, "%s", dir);
    return 0;
}


// reads what the child wrote; its last progress line into progress (when there is a new one)
static void job_read(solve_job* j, char* progress, size_t n) {
    char buf[4096];
    for (;;) {
        const ssize_t got = read(j->fd, buf, sizeof buf);
        if (got <= 0) break;
        if (j->nlog + (size_t)got + 1 > j->cap) {
            const size_t cap = 2 * (j->nlog + (size_t)got + 1);
            char* b = realloc(j->log, cap);
            if (!b) break;
            j->log = b, j->cap = cap;
        }
        memcpy(j->log + j->nlog, buf, (size_t)got);
        j->nlog += (size_t)got;
        j->log[j->nlog] = '\0';
    }
    if (!j->log) return;
    // the last complete "iter" line
    const char* last = NULL;
    for (const char* p = j->log; (p = strstr(p, "iter ")) != NULL; p++) {
        if ((p == j->log || p[-1] == '\n') && strchr(p, '\n')) last = p;
    }
    if (last) {
        int it;
        double obj, viol, t;
        if (sscanf(last, "iter %d objective %lf violation %lf %lf s", &it, &obj, &viol, &t) == 4) {
            snprintf(progress, n, "solving: iteration %d, constraint violation %.2e, %.2f s", it, viol, t);
        }
    }
}


static void job_kill(solve_job* j) {
    if (j->pid <= 0) return;
    kill(j->pid, SIGTERM);
    int st;
    waitpid(j->pid, &st, 0);
    close(j->fd);
    j->pid = 0;
}


// the line of the log that starts with prefix, into out ("" when none)
static void log_line(const char* log, const char* prefix, char* out, size_t n) {
    out[0] = '\0';
    for (const char* p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            const char* e = strchr(p, '\n');
            const size_t k = e ? (size_t)(e - p) : strlen(p);
            snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), p);
        }
    }
}


// the page's data for the motion in dir, and the character file its problem names (into
// character): 0 with *data set, else the exit status (printed)
static int motion_data(const char* dir, char** data, size_t* ndata, char* character, size_t n) {
    char path[4300];
    snprintf(path, sizeof path, "%s/motion.json", dir);
    app_motion am;
    int status = app_motion_open(&am, "salto watch", path, NULL);
    if (status == 0) {
        snprintf(character, n, "%s", am.p->character ? am.p->character : "");
        FILE* mem = open_memstream(data, ndata);
        view_motion vm = {.label = "motion", .am = &am};
        status = mem ? view_write_data(mem, "salto watch", &vm, NULL) : 1;
        if (mem && fclose(mem) != 0 && status == 0) status = 1;
    }
    app_motion_close(&am);
    return status;
}


int cmd_watch(int argc, char** argv) {
    const char* problem = NULL;
    const char* out = NULL;
    const char* host = "127.0.0.1";
    int port = 8765, nset = 0;
    char** set = calloc((size_t)argc + 1, sizeof *set);
    if (!set) return 1;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            free(set);
            return 0;
        } else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            if (app_parse_int("watch", "--port", argv[++i], 0, 65535, &port) != 0) {
                free(set);
                return 2;
            }
        } else if (strcmp(argv[i], "--host") == 0 && i + 1 < argc) {
            host = argv[++i];
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            set[nset++] = argv[++i];
        } else if (app_positional("watch", argv[i], &problem) != 0) {
            free(set);
            return 2;
        }
    }
    if (!problem || nset > 60) {
        fprintf(stderr, problem ? "salto watch: at most 60 --set options\n"
                                : "usage: salto watch PROBLEM.yaml [--port N] (see 'salto watch --help')\n");
        free(set);
        return 2;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "salto watch: --host needs an IPv4 address such as 127.0.0.1, not '%s'\n", host);
        free(set);
        return 2;
    }
    struct stat pst;
    if (stat(problem, &pst) != 0) {
        fprintf(stderr, "salto watch: cannot read '%s': %s\n", problem, strerror(errno));
        free(set);
        return 2;
    }
    char dir[4096], slot[2][4200];
    if (out) {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        char base[4000];
        app_default_dir(problem, base, sizeof base);
        snprintf(dir, sizeof dir, "%s-watch", base);
    }
    snprintf(slot[0], sizeof slot[0], "%s/a", dir);
    snprintf(slot[1], sizeof slot[1], "%s/b", dir);
    if (app_make_dirs(dir) != 0) {
        fprintf(stderr, "salto watch: cannot create '%s': %s\n", dir, strerror(errno));
        free(set);
        return 2;
    }

    // the live page, made once
    view_libs libs;
    int status = view_libs_load(&libs, "salto watch");
    if (status != 0) {
        free(set);
        return status;
    }
    char* page = NULL;
    size_t npage = 0;
    FILE* mem = open_memstream(&page, &npage);
    char title[600];
    const char* name = strrchr(problem, '/');
    snprintf(title, sizeof title, "salto watch: %s", name ? name + 1 : problem);
    if (!mem || view_write_page(mem, &libs, NULL, 0, title) != 0 || fclose(mem) != 0) {
        fprintf(stderr, "salto watch: out of memory\n");
        view_libs_free(&libs);
        free(set);
        return 1;
    }
    view_libs_free(&libs);

    site st = {page, npage};
    struct MHD_Daemon* d = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL,
        NULL, handle, &st, MHD_OPTION_SOCK_ADDR, (struct sockaddr*)&addr,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "salto watch: cannot listen on %s:%d (in use, or not an address of this "
                        "machine)\n", host, port);
        free(page);
        free(set);
        return 2;
    }
    const union MHD_DaemonInfo* info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    const int bound = info ? (int)info->port : port;
    printf("salto watch: serving http://%s:%d/ ; solving %s on every save (Ctrl-C stops)\n", host,
           bound, problem);
    fflush(stdout);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    char character[4200] = "";
    stamp seen_p = {0}, seen_c = {0};
    int current = -1;          // the slot holding the last motion solved, -1 none
    int first = 1;
    solve_job job = {0};
    double changed_at = 0;     // when the change being solved was seen
    char last_progress[256] = "";
    while (!stop_asked) {
        const stamp sp = stamp_of(problem), sc = stamp_of(character[0] ? character : NULL);
        if (first || !stamp_same(&sp, &seen_p) || !stamp_same(&sc, &seen_c)) {
            // a save (editors write a file in several steps: wait until it settles)
            if (!first) {
                usleep(50000);
                const stamp sp2 = stamp_of(problem);
                if (!stamp_same(&sp, &sp2)) continue;
            }
            first = 0;
            seen_p = sp, seen_c = sc;
            job_kill(&job);
            changed_at = now_s();
            const int next = current == 0 ? 1 : 0;
            char warm[PATH_MAX + 1] = "";
            char from[4300];
            if (current >= 0) {
                snprintf(from, sizeof from, "%s/motion.json", slot[current]);
                if (!realpath(from, warm)) warm[0] = '\0';
            }
            if (job_start(&job, problem, slot[next], warm[0] ? warm : NULL, nset, set) != 0) {
                publishf(0, "failed", "salto watch: cannot start a solve: %s", strerror(errno));
            } else {
                publishf(1, "progress", "solving %s%s", problem, warm[0] ? " (warm start)" : "");
                fprintf(stderr, "salto watch: solving %s%s\n", problem, warm[0] ? " from the last motion" : "");
            }
            last_progress[0] = '\0';
        }
        if (job.pid > 0) {
            struct pollfd pfd = {job.fd, POLLIN, 0};
            poll(&pfd, 1, 100);
            char progress[256] = "";
            job_read(&job, progress, sizeof progress);
            if (progress[0] && strcmp(progress, last_progress) != 0) {
                snprintf(last_progress, sizeof last_progress, "%s", progress);
                publish(1, "progress", progress, strlen(progress));
            }
            int ws;
            const pid_t r = waitpid(job.pid, &ws, WNOHANG);
            if (r == job.pid) {
                job_read(&job, progress, sizeof progress);
                close(job.fd);
                job.pid = 0;
                const int code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
                const int next = current == 0 ? 1 : 0;
                if (code == 2 && job.warm) {
                    // perhaps the warm start's doing (a problem changed past its reach): cold
                    fprintf(stderr, "salto watch: the warm start was refused; solving from the "
                                    "problem's initial guess\n");
                    if (job_start(&job, problem, slot[next], NULL, nset, set) == 0) continue;
                }
                char* data = NULL;
                size_t ndata = 0;
                if ((code == 0 || code == 1) &&
                    motion_data(slot[next], &data, &ndata, character, sizeof character) == 0) {
                    current = next;
                    seen_c = stamp_of(character);
                    publish(0, "motion", data, ndata);
                    char solved[512], valid[512];
                    log_line(job.log, "Solve_", solved, sizeof solved);
                    log_line(job.log, "validation:", valid, sizeof valid);
                    if (!solved[0]) log_line(job.log, "Maximum_", solved, sizeof solved);
                    publishf(1, "progress", "updated %.2f s after the save (%s); %s; %s",
                             now_s() - changed_at,
                             job.warm ? "warm start from the last motion" : "the problem's initial guess",
                             solved[0] ? solved : "solved", valid);
                    fprintf(stderr, "salto watch: motion updated %.2f s after the save (%s)\n",
                            now_s() - changed_at, slot[current]);
                } else {
                    // the message the solve printed, at its file:line:col
                    const char* log = job.log ? job.log : "";
                    publish(0, "failed", log, strlen(log));
                    publishf(1, "progress", "the file has an error (exit status %d); waiting for the next save", code);
                    fprintf(stderr, "salto watch: the solve failed (exit status %d):\n%s", code, log);
                }
                free(data);
            }
        } else {
            usleep(100000);
        }
    }
    job_kill(&job);
    pthread_mutex_lock(&hub.mu);
    hub.stopping = 1;
    pthread_cond_broadcast(&hub.cv);
    pthread_mutex_unlock(&hub.mu);
    MHD_stop_daemon(d);
    free(hub.state), free(hub.progress);
    free(job.log);
    free(page);
    free(set);
    fprintf(stderr, "salto watch: stopped\n");
    return 0;
}
