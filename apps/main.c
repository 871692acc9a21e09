// main.c: the salto command, with git-style subcommands
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"

#include "salto/budget.h"
#include "salto/nlp.h"

typedef struct command {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* summary;
} command;

static const command commands[] = {
    {"solve", cmd_solve, "optimise the motion a problem file describes and write it out"},
    {"check", cmd_check, "load a character file, check it and print its summary"},
    {"dyn", cmd_dyn, "evaluate f0, its Jacobian, inverse or forward dynamics on states read from stdin"},
    {"bench", cmd_bench, "run benchmarks and print timing tables"},
    {"validate", cmd_validate, "check how physical a motion is, densely between the slices"},
    {"export", cmd_export, "write a character for MuJoCo (MJCF) or robotics tools (URDF)"},
    {"import", cmd_import, "read a character from an MJCF or URDF model (through MuJoCo)"},
    {"retarget", cmd_retarget, "map a BVH capture of another skeleton onto a character"},
    {"play", cmd_play, "play a motion back under physics, tracking it (pushes, going limp)"},
    {"view", cmd_view, "write a motion as one HTML page: 3-D playback, forces and plots"},
    {"watch", cmd_watch, "serve the viewer and re-solve a problem each time its file is saved"},
    {"batch", cmd_batch, "solve a sweep of a problem over parameters on worker processes or a cluster"},
    {"gen", cmd_gen, "generate characters (serial chains of N links)"},
};


static void usage(FILE* out) {
    fprintf(out, "usage: salto <command> [options] [arguments]\n\n"
                 "salto synthesises physically valid motion for articulated characters.\n\n"
                 "commands:\n");
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        fprintf(out, "  %-8s %s\n", commands[k].name, commands[k].summary);
    }
    fprintf(out, "\n'salto <command> --help' describes a command. 'salto --version' prints the version.\n"
                 "'salto --max-memory SIZE <command> ...' (or SALTO_MAX_MEMORY=SIZE) sets the memory a\n"
                 "command may plan to use (default: the smaller of 4G and half this machine's\n"
                 "memory); work estimated to need more is refused before it starts.\n");
}


void app_print_error(const salto_error* err) {
    char buf[1400];
    salto_error_format(err, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}


struct salto_nlp* app_load_nlp(const char* path, struct salto_problem_desc** p) {
    return app_load_nlp_set(path, 0, NULL, p);
}


struct salto_nlp* app_load_nlp_set(const char* path, int nset, const char* const* set,
                                   struct salto_problem_desc** p) {
    salto_error err = {0};
    *p = salto_problem_load_set(path, nset, set, &err);
    salto_nlp* nlp = *p ? salto_nlp_build(*p, &err) : NULL;
    if (!nlp) {
        app_print_error(&err);
        salto_problem_destroy(*p);
        *p = NULL;
    }
    return nlp;
}

int app_make_dirs(const char* path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char* s = buf + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}


int app_check_output_dir(const char* who, const char* dir) {
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: cannot write into '%s': it is a file, not a folder\n", who, dir);
        return 2;
    }
    if (app_make_dirs(dir) != 0) {
        fprintf(stderr, "%s: cannot create the folder '%s': %s\n", who, dir, strerror(errno));
        return 2;
    }
    // a file made and removed there: a folder that is read-only, on a read-only or full disk,
    // or not ours fails now, not after the work
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.salto_probe_XXXXXX", dir);
    const int fd = mkstemp(probe);
    int bad = fd < 0 ? errno : 0;
    if (fd >= 0) {
        if (write(fd, "salto\n", 6) != 6) bad = errno ? errno : EIO;
        if (close(fd) != 0 && !bad) bad = errno;
        remove(probe);
    }
    if (bad) {
        fprintf(stderr, "%s: cannot write into '%s': %s\n", who, dir, strerror(bad));
        return 2;
    }
    return 0;
}


int app_is_help(const char* arg) {
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}


void app_folder_of(const char* path, char* out, size_t n) {
    snprintf(out, n, "%s", path);
    char* slash = strrchr(out, '/');
    if (slash) {
        *slash = '\0';
    } else {
        snprintf(out, n, ".");
    }
}


void app_default_dir(const char* file, char* out, size_t n) {
    const char* base = strrchr(file, '/');
    base = base ? base + 1 : file;
    char name[256];
    snprintf(name, sizeof name, "%s", base);
    char* dot = strrchr(name, '.');
    if (dot && dot != name) *dot = '\0';
    snprintf(out, n, "out/%s", name);
}


void app_with_ext(const char* path, const char* ext, char* out, size_t n) {
    snprintf(out, n, "%s", path);
    char* dot = strrchr(out, '.');
    char* slash = strrchr(out, '/');
    if (dot && dot != out && (!slash || dot > slash + 1)) *dot = '\0';
    const size_t len = strlen(out);
    if (len < n) snprintf(out + len, n - len, "%s", ext);
}


int app_parse_int(const char* cmd, const char* opt, const char* s, int lo, int hi, int* out) {
    char* end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "salto %s: %s must be an integer from %d to %d, not '%s'\n", cmd, opt, lo,
                hi, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}


int main(int argc, char** argv) {
    // Freed memory stays with the process for reuse: MUMPS allocates and frees its work arrays
    // at every factorisation, and with glibc's defaults the heap was trimmed and regrown (712
    // brk calls, 17,000 page faults in the dismount's first solve). Measured on a fresh
    // `salto solve` of the dismount: 12% less CPU time (388 to 342 ms, perf stat, 5 runs each
    // way), the paper's dismount 6%; a long-running `salto bench paper` hardly changes, as
    // glibc raises its thresholds by itself after the first solves.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    // --max-memory SIZE, before the command or among its options: the memory limit (budget.h)
    // for this command and, through SALTO_MAX_MEMORY, every process it starts (batch workers)
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-memory") != 0) continue;
        double bytes;
        if (i + 1 >= argc || salto_parse_size(argv[i + 1], &bytes) != 0) {
            fprintf(stderr, "salto: --max-memory needs a size such as 8G, 512M or none, not '%s'\n",
                    i + 1 < argc ? argv[i + 1] : "");
            return 2;
        }
        setenv("SALTO_MAX_MEMORY", argv[i + 1], 1);
        for (int k = i; k + 2 <= argc; k++) argv[k] = argv[k + 2]; // (argv[argc] is NULL)
        argc -= 2;
        i--;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (app_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("salto %s\n", salto_version());
        return 0;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(argv[1], commands[k].name) == 0) return commands[k].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "salto: '%s' is not a salto command; see 'salto --help'\n", argv[1]);
    return 2;
}


int app_positional(const char* cmd, const char* arg, const char** slot) {
    if (arg[0] == '-' && arg[1]) {
        fprintf(stderr, "salto %s: unknown or incomplete option '%s' (see 'salto %s --help')\n", cmd, arg, cmd);
        return 2;
    }
    if (*slot) {
        fprintf(stderr, "salto %s: unexpected argument '%s'\n", cmd, arg);
        return 2;
    }
    *slot = arg;
    return 0;
}
