// cmd_retarget.c: salto retarget CAPTURE.bvh --character CHAR [--map MAP.yaml]: a motion capture
// of another skeleton on a salto character, as frames (motion.csv) a problem can take as its
// reference or salto validate can judge (salto_frames_retarget_bvh, motion.h)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "salto/config.h"
#include "salto/model.h"
#include "salto/motion.h"

static void help(void) {
    printf("usage: salto retarget CAPTURE.bvh --character CHAR.yaml [--map MAP.yaml] [--scale S]\n"
           "                      [-o MOTION.csv] [--quiet]\n\n"
           "Maps a BVH capture of another skeleton onto a character (docs/import.md,\n"
           "\"Retargeting\"): each mapped body turns as its BVH joint turns from the capture's rest\n"
           "pose, the rest poses aligned bone by bone; the root's joint goes where the capture's\n"
           "does, scaled; the DOFs found by least squares, frame by frame. Writes the frames at\n"
           "the capture's rate as MOTION.csv (default: CAPTURE's name with .csv), which a\n"
           "problem's 'reference' objective or 'salto validate --problem' reads. Exit status 0,\n"
           "or 2 for bad input.\n\n"
           "  --character C  the character file\n"
           "  --map M        a YAML file: 'bodies: {BODY: BVH_JOINT, ...}' (every body that\n"
           "                 should move; the root's required) and optionally 'scale: S'\n"
           "                 (metres per BVH unit); default: each body follows the joint of its\n"
           "                 own name\n"
           "  --scale S      metres per BVH unit (default: the map's, else the character's bones\n"
           "                 over the capture's)\n");
}


// the map file into joint[] (owned by cfg) and loc[], its scale into *scale (if given)
static int read_map(const char* path, const salto_model* m, salto_cfg** cfg, const char** joint,
                    salto_src_loc* loc, double* scale) {
    salto_error err = {0};
    *cfg = salto_cfg_load(path, &err);
    const salto_cfg_node* top = *cfg ? salto_cfg_root(*cfg) : NULL;
    static const char* const keys[] = {"bodies", "scale", NULL};
    const salto_cfg_node* bodies = NULL;
    if (top && salto_cfg_check_keys(top, keys, &err) == SALTO_OK) {
        bodies = salto_cfg_require(top, "bodies", &err);
        if (bodies && salto_cfg_expect(bodies, SALTO_CFG_MAP, &err) != SALTO_OK) bodies = NULL;
    }
    const salto_cfg_node* sn = top ? salto_cfg_child(top, "scale") : NULL;
    if (bodies && sn) {
        if (salto_cfg_number(sn, scale, &err) == SALTO_OK && !(*scale > 0.0)) {
            SALTO_FAIL(&err, SALTO_ERR_INVALID, sn->loc, "'scale' must be positive, found %g", *scale);
        }
    }
    int root = 0;
    while (root < m->nbody && m->body_parent[root] >= 0) root++;
    for (int k = 0; bodies && err.status == SALTO_OK && k < bodies->n; k++) {
        const salto_cfg_node* c = bodies->child[k];
        const int b = salto_model_body(m, c->key);
        if (b < 0) {
            SALTO_FAIL(&err, SALTO_ERR_INVALID, c->key_loc, "'%s' is not a body of the character '%s'",
                       c->key, m->name);
            const char* near = salto_cfg_suggest(c->key, (const char* const*)m->body_name, m->nbody);
            if (near) salto_error_note(&err, "did you mean '%s'?", near);
            break;
        }
        if (salto_cfg_string(c, &joint[b], &err) != SALTO_OK) break;
        loc[b] = c->loc;
    }
    if (err.status == SALTO_OK && bodies && root < m->nbody && !joint[root]) {
        SALTO_FAIL(&err, SALTO_ERR_INVALID, bodies->loc, "the root body '%s' needs a BVH joint to "
                   "follow: map it", m->body_name[root]);
    }
    if (err.status != SALTO_OK) {
        app_print_error(&err);
        return err.status == SALTO_ERR_NOMEM ? 1 : 2;
    }
    return 0;
}


int cmd_retarget(int argc, char** argv) {
    const char* capture = NULL;
    const char* character = NULL;
    const char* map = NULL;
    const char* out = NULL;
    double scale = 0.0;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (app_is_help(argv[i])) {
            help();
            return 0;
        } else if (strcmp(argv[i], "--character") == 0 && i + 1 < argc) {
            character = argv[++i];
        } else if (strcmp(argv[i], "--map") == 0 && i + 1 < argc) {
            map = argv[++i];
        } else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
            char* end = NULL;
            scale = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(scale > 0.0) || !isfinite(scale)) {
                fprintf(stderr, "salto retarget: --scale needs a number > 0 (metres per BVH unit), not '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (app_positional("retarget", argv[i], &capture) != 0) {
            return 2;
        }
    }
    if (!capture || !character) {
        fprintf(stderr, "usage: salto retarget CAPTURE.bvh --character CHAR.yaml [--map MAP.yaml] (see 'salto retarget --help')\n");
        return 2;
    }
    salto_error err = {0};
    salto_model* m = salto_model_load(character, &err);
    if (!m) {
        app_print_error(&err);
        return 2;
    }
    const char** joint = calloc((size_t)m->nbody, sizeof *joint);
    salto_src_loc* loc = calloc((size_t)m->nbody, sizeof *loc);
    char** own = calloc((size_t)m->nbody, sizeof *own);
    salto_cfg* cfg = NULL;
    salto_frames* f = NULL;
    int status = 0;
    if (!joint || !loc || !own) {
        fprintf(stderr, "salto retarget: out of memory\n");
        status = 1;
        goto done;
    }
    double map_scale = 0.0;
    if (map) {
        if ((status = read_map(map, m, &cfg, joint, loc, &map_scale)) != 0) goto done;
    } else { // each body its own name, whitespace as '_' (as motion.bvh writes it)
        for (int b = 0; b < m->nbody; b++) {
            own[b] = salto_strdup(m->body_name[b]);
            if (!own[b]) {
                status = 1;
                goto done;
            }
            for (char* c = own[b]; *c; c++) {
                if ((unsigned char)*c <= ' ') *c = '_';
            }
            joint[b] = own[b];
        }
    }
    if (!(scale > 0.0)) scale = map_scale;
    salto_retarget_info info;
    f = salto_frames_retarget_bvh(capture, m, joint, map ? loc : NULL, scale, &info, &err);
    if (!f) {
        app_print_error(&err);
        status = err.status == SALTO_ERR_NOMEM ? 1 : 2;
        goto done;
    }
    char buf[4200];
    if (!out) {
        app_with_ext(capture, ".csv", buf, sizeof buf);
        out = buf;
    }
    salto_motion mo = {0};
    mo.nv = m->nv, mo.nframe = f->nframe, mo.frame_rate = 1.0 / info.dt;
    mo.duration = (f->nframe - 1) * info.dt;
    mo.dof_name = m->link_name, mo.q = f->q, mo.converged = -1;
    if (salto_motion_write_csv(&mo, out, &err) != SALTO_OK) {
        app_print_error(&err);
        status = 2;
        goto done;
    }
    if (!quiet) {
        printf("retargeted %s onto '%s': %d frames at %.4g per second; scale %.6g m per BVH unit%s\n",
               capture, m->name, f->nframe, 1.0 / info.dt, info.scale,
               info.scale != info.auto_scale ? "" : info.npair > 0 ? " (the bones' ratio)"
                                                 : " (assumed: no mapped bones to measure; pass --scale)");
        if (info.worst_body >= 0) {
            printf("worst fit: %.3g (rad or m) at '%s' in frame %d (what the character's joints "
                   "cannot follow)\n", info.worst, m->body_name[info.worst_body], info.worst_frame + 1);
        }
        printf("wrote %s\n", out);
    }
done:
    salto_frames_destroy(f);
    salto_cfg_destroy(cfg);
    for (int b = 0; own && b < m->nbody; b++) salto_free(own[b]);
    free(own), free(joint), free(loc);
    salto_model_destroy(m);
    return status;
}
