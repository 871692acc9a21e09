// cmd_view.c: salto view MOTION [-o FILE.html]: the motion as one self-contained HTML page
#define _POSIX_C_SOURCE 200809L // open_memstream
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmds.h"
#include "salto/atomic.h"
#include "view.h"

static void help(void) {
    printf("usage: salto view MOTION [--problem P] [--compare OTHER] [--no-play] [-o FILE.html]\n\n"
           "Writes one self-contained HTML page for a motion (motion.json from 'salto solve', or\n"
           "CSV or BVH frames with --problem): it opens offline, from disk, and can be mailed.\n"
           "  - the character in 3-D from its geometry, on the floor or at the bar, with the\n"
           "    problem's boxes; an orbiting camera (drag, wheel; side, front and top views);\n"
           "    play and pause (space), speed, a time scrubber with the phases marked, frame\n"
           "    steps (arrow keys); the contact sites of the phase at hand, each contact link's\n"
           "    force as an arrow (1 m per body weight), the centre of mass and its path\n"
           "  - plots with a cursor that follows the scrubber (click one to go to its time):\n"
           "    joint angles, joint torques and the aggregate contact force by the validation's\n"
           "    inverse dynamics, and each check's residual over its threshold; the checks' table\n"
           "  - a second motion in a ghost colour: by default the 'salto play' result in the\n"
           "    motion's folder when there is one (play/sim.json, or react/react.json from\n"
           "    'salto play --react': the newer of the two)\n"
           "The validation runs as 'salto validate' runs it, with the problem's settings.\n"
           "three.js and uPlot are inlined from the npm folder the set-up installs\n"
           "(web/node_modules; SALTO_WEB_MODULES names another). Exit status 0, 1 when out of\n"
           "memory, 2 for bad input.\n\n"
           "  --problem P      the problem (default: the one the motion names)\n"
           "  --compare OTHER  the ghost: a motion.json, CSV or BVH frames (on P), or a 'salto\n"
           "                   play' result (its sim.json or react.json, or its folder), on the\n"
           "                   same character\n"
           "  --no-play        no ghost, even when a 'salto play' result is beside the motion\n"
           "  -o FILE.html     where to write (default: view.html in the motion's folder);\n"
           "                   written atomically\n");
}


static int ends_with(const char* s, const char* tail) {
    const size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}


static int is_dir(const char* path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}


// a compared motion: a play result (sim.json, or a folder) as frames; else a motion on its
// problem (a CSV's or BVH's on problem_path)
static int open_compare(view_motion* v, app_motion* am, const salto_problem_desc* p,
                        const char* path, const char* problem_path) {
    if (ends_with(path, "sim.json") || ends_with(path, "react.json") || is_dir(path)) {
        const int s = view_motion_load_play(v, p, path);
        v->label = ends_with(path, "react.json") ? "salto play --react" : "salto play";
        return s;
    }
    const int s = app_motion_open(am, "salto view", path, problem_path);
    if (s != 0) return s;
    // the same character: the same bodies and DOFs, in the same order
    const salto_model* a = p->model;
    const salto_model* b = am->p->model;
    int same = a->nbody == b->nbody && a->nv == b->nv && a->ngeom == b->ngeom;
    for (int k = 0; same && k < a->nbody; k++) same = strcmp(a->body_name[k], b->body_name[k]) == 0;
    if (!same) {
        fprintf(stderr, "salto view: '%s' is a motion of the character '%s', not '%s': a ghost "
                        "must be the same character\n", path, b->name, a->name);
        return 2;
    }
    v->am = am;
    v->label = path;
    return 0;
}


int cmd_view(int argc, char** argv) {
    const char* motion_path = NULL;
    const char* problem_path = NULL;
    const char* compare_path = NULL;
    const char* out = NULL;
    int no_play = 0;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc) {
            problem_path = argv[++i];
        } else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc) {
            compare_path = argv[++i];
        } else if (strcmp(argv[i], "--no-play") == 0) {
            no_play = 1;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (app_positional("view", argv[i], &motion_path) != 0) {
            return 2;
        }
    }
    if (!motion_path) {
        fprintf(stderr, "usage: salto view MOTION [-o FILE.html] (see 'salto view --help')\n");
        return 2;
    }
    char dir[4096], outbuf[4200], playbuf[4200];
    app_folder_of(motion_path, dir, sizeof dir);
    if (!out) {
        snprintf(outbuf, sizeof outbuf, "%s/view.html", dir);
        out = outbuf;
    }
    int found = 0; // the ghost: a play result found beside the motion, not asked for
    if (!compare_path && !no_play) {
        // play/sim.json or react/react.json beside the motion, the newer when both are there
        char reactbuf[4200];
        snprintf(playbuf, sizeof playbuf, "%s/play/sim.json", dir);
        snprintf(reactbuf, sizeof reactbuf, "%s/react/react.json", dir);
        struct stat st, sr;
        const int has_play = stat(playbuf, &st) == 0, has_react = stat(reactbuf, &sr) == 0;
        if (has_react && (!has_play || sr.st_mtime > st.st_mtime ||
                          (sr.st_mtime == st.st_mtime && sr.st_mtim.tv_nsec > st.st_mtim.tv_nsec))) {
            memcpy(playbuf, reactbuf, sizeof playbuf);
        }
        if (has_play || has_react) compare_path = playbuf, found = 1;
    }

    view_libs libs = {0};
    app_motion am, cam;
    memset(&cam, 0, sizeof cam);
    view_motion main_motion = {.label = "motion", .am = &am}, compare = {0};
    char* data = NULL;
    size_t ndata = 0;
    int status = app_motion_open(&am, "salto view", motion_path, problem_path);
    if (status == 0 && compare_path) {
        status = open_compare(&compare, &cam, am.p, compare_path, problem_path);
        if (status == 2 && found) { // a stale or broken play result: the page without it
            fprintf(stderr, "salto view: warning: the play result '%s' is left out (above)\n",
                    compare_path);
            view_motion_free(&compare);
            compare_path = NULL, status = 0;
        }
    }
    if (status == 0) {
        FILE* mem = open_memstream(&data, &ndata);
        if (!mem) {
            fprintf(stderr, "salto view: out of memory\n");
            status = 1;
        } else {
            status = view_write_data(mem, "salto view", &main_motion, compare_path ? &compare : NULL);
            if (fclose(mem) != 0 && status == 0) {
                fprintf(stderr, "salto view: out of memory\n");
                status = 1;
            }
        }
    }
    // the libraries (2 MB) once the data is made
    if (status == 0) status = view_libs_load(&libs, "salto view");
    if (status == 0) {
        char title[600];
        const char* name = strrchr(am.p->path, '/');
        snprintf(title, sizeof title, "salto view: %s", name ? name + 1 : am.p->path);
        salto_atomic a;
        salto_error err = {0};
        if (salto_atomic_open(&a, out, 1, &err) != SALTO_OK) {
            app_print_error(&err);
            status = 2;
        } else if (view_write_page(a.f, &libs, data, ndata, title) != 0) {
            salto_atomic_abort(&a);
            fprintf(stderr, "salto view: cannot write '%s': %s\n", out, strerror(errno));
            status = 2;
        } else if (salto_atomic_commit(&a, &err) != SALTO_OK) {
            app_print_error(&err);
            status = 2;
        } else {
            struct stat st;
            const double mb = stat(out, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
            printf("wrote %s (%.1f MB%s%s): open it in a browser\n", out, mb,
                   compare_path ? "; the ghost: " : "", compare_path ? compare_path : "");
        }
    }
    free(data);
    app_motion_close(&cam);
    view_motion_free(&compare);
    app_motion_close(&am);
    view_libs_free(&libs);
    return status;
}
