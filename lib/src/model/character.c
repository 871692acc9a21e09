// character.c: character descriptions: reading and writing character files, checks. Here:
// allocation, loading (salto_character_load) and writing; the file is read by
// character_read.c and checked by character_check.c (character_priv.h lists them)
//
// The loader reads the file with config.c, copies every value into the description with its
// source location (re-pointed at desc->path, so the description outlives the config tree),
// and then runs the same checks that descriptions built in code go through
// (salto_character_validate). Checks that only make sense for text (types, unknown or
// missing keys, both 'inertia' and 'radii_of_gyration', 'limits_deg' on a prismatic axis)
// are made while reading; everything a description can hold is checked by the validator.
#include "character_priv.h"

#include <stdio.h>
#include <string.h>

#include "salto/atomic.h"

// ---- allocation ----

salto_character_desc* salto_character_alloc(int nbody) {
    if (nbody < 0) return NULL;
    salto_character_desc* c = salto_calloc(1, sizeof *c);
    if (!c) return NULL;
    c->path = salto_strdup("");
    if (!c->path) goto fail;
    if (nbody > 0) {
        c->bodies = salto_calloc((size_t)nbody, sizeof *c->bodies);
        if (!c->bodies) goto fail;
    }
    c->nbody = nbody;
    for (int b = 0; b < nbody; b++) c->bodies[b].parent = -1;
    c->gravity[2] = -9.81;
    c->root_type = SALTO_ROOT_FREE;
    c->root_rot_order[0] = 1;
    c->root_rot_order[1] = 0;
    c->root_rot_order[2] = 2;
    return c;

fail:
    salto_character_destroy(c);
    return NULL;
}


static void free_axes(salto_body_desc* b) {
    for (int k = 0; k < b->naxis && b->axes; k++) salto_free(b->axes[k].name);
    salto_free(b->axes);
    b->axes = NULL;
    b->naxis = 0;
}


salto_status salto_character_set_axes(salto_character_desc* c, int b, int naxis) {
    if (!c || b < 0 || b >= c->nbody || naxis < 0) return SALTO_ERR_INVALID;
    salto_body_desc* body = &c->bodies[b];
    free_axes(body);
    if (naxis == 0) return SALTO_OK;
    body->axes = salto_calloc((size_t)naxis, sizeof *body->axes);
    if (!body->axes) return SALTO_ERR_NOMEM;
    body->naxis = naxis;
    return SALTO_OK;
}


void salto_character_destroy(salto_character_desc* c) {
    if (!c) return;
    for (int b = 0; b < c->nbody && c->bodies; b++) {
        salto_body_desc* body = &c->bodies[b];
        salto_free(body->name);
        free_axes(body);
        for (int s = 0; s < body->nsite && body->sites; s++) salto_free(body->sites[s].name);
        salto_free(body->sites);
        salto_free(body->geoms);
    }
    salto_free(c->bodies);
    salto_free(c->name);
    salto_free(c->path);
    salto_free(c->ext_path);
    salto_free(c);
}

// ---- reading ----

salto_character_desc* salto_character_load(const char* path, salto_error* err) {
    salto_error local = {0};
    if (!err) err = &local;
    salto_cfg* cfg = salto_cfg_load(path, err);
    if (!cfg) return NULL;
    reader R = {NULL, err, NULL, 0};
    salto_status s = character_read_character(&R, cfg, path);
    salto_cfg_destroy(cfg);
    if (!s) s = salto_character_validate(R.c, err);
    if (s) {
        salto_character_destroy(R.c);
        return NULL;
    }
    return R.c;
}

// ---- writing ----

static void put_num(FILE* f, double x) {
    fprintf(f, "%.17g", x);
}


static void put_vec(FILE* f, const double* v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        put_num(f, v[i]);
    }
    fputc(']', f);
}


// plain when the text cannot be mistaken for anything else; double-quoted otherwise
static void put_str(FILE* f, const char* s) {
    int plain = s[0] && (s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') ||
                         (s[0] >= 'a' && s[0] <= 'z'));
    for (const char* p = s; *p && plain; p++) {
        unsigned char ch = (unsigned char)*p;
        plain = (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                ch == '_' || ch == '-' || ch == '.';
    }
    if (plain && (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))) plain = 0;
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char* p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\') {
            fputc('\\', f);
            fputc(ch, f);
        } else if (ch < 0x20 || ch == 0x7f) {
            fprintf(f, "\\x%02x", ch);
        } else {
            fputc(ch, f);
        }
    }
    fputc('"', f);
}


static void write_body(FILE* f, const salto_character_desc* c, int b) {
    static const char* const letters[] = {"x", "y", "z"};
    const salto_body_desc* body = &c->bodies[b];
    fputs("  - name: ", f);
    put_str(f, body->name);
    fputc('\n', f);
    if (body->parent >= 0) {
        fputs("    parent: ", f);
        put_str(f, c->bodies[body->parent].name);
        fputc('\n', f);
    }
    fputs("    joint:\n", f);
    if (body->parent < 0) {
        fprintf(f, "      type: %s\n", root_type_names[c->root_type]);
        if (c->root_type == SALTO_ROOT_FREE) {
            fprintf(f, "      rotation_order: [%s, %s, %s]\n", letters[c->root_rot_order[0]],
                    letters[c->root_rot_order[1]], letters[c->root_rot_order[2]]);
        }
    }
    fputs("      position: ", f);
    put_vec(f, body->joint_pos, 3);
    fputc('\n', f);
    if (body->parent >= 0) {
        fputs("      axes:\n", f);
        for (int k = 0; k < body->naxis; k++) {
            const salto_axis_desc* a = &body->axes[k];
            fputs("        - {name: ", f);
            put_str(f, a->name);
            fprintf(f, ", type: %s, axis: ", axis_type_names[a->type]);
            put_vec(f, a->axis, 3);
            if (a->has_limits) {
                fputs(", limits: ", f);
                put_vec(f, a->limits, 2);
            }
            fputs("}\n", f);
        }
    }
    fputs("    mass: ", f);
    put_num(f, body->mass);
    fputs("\n    com: ", f);
    put_vec(f, body->com, 3);

    // the 6-number form when the matrix is exactly symmetric, else the full 3x3
    const double* I = body->inertia;
    fputs("\n    inertia: ", f);
    if (I[1] == I[3] && I[2] == I[6] && I[5] == I[7]) {
        double v[6] = {I[0], I[4], I[8], I[1], I[2], I[5]};
        put_vec(f, v, 6);
    } else {
        fputc('[', f);
        for (int i = 0; i < 3; i++) {
            if (i) fputs(", ", f);
            put_vec(f, I + 3 * i, 3);
        }
        fputc(']', f);
    }
    fputc('\n', f);
    if (body->nsite > 0) {
        fputs("    sites:\n", f);
        for (int i = 0; i < body->nsite; i++) {
            fputs("      - {name: ", f);
            put_str(f, body->sites[i].name);
            fputs(", position: ", f);
            put_vec(f, body->sites[i].pos, 3);
            fputs("}\n", f);
        }
    }
    if (body->ngeom > 0) {
        fputs("    geometry:\n", f);
        for (int i = 0; i < body->ngeom; i++) {
            const salto_geom_desc* g = &body->geoms[i];
            fprintf(f, "      - {type: %s, ", shape_names[g->shape]);
            switch (g->shape) {
            case SALTO_GEOM_CAPSULE:
                fputs("from: ", f);
                put_vec(f, g->a, 3);
                fputs(", to: ", f);
                put_vec(f, g->b, 3);
                fputs(", radius: ", f);
                put_num(f, g->radius);
                break;
            case SALTO_GEOM_BOX:
                fputs("center: ", f);
                put_vec(f, g->a, 3);
                fputs(", half_extents: ", f);
                put_vec(f, g->b, 3);
                break;
            default:
                fputs("center: ", f);
                put_vec(f, g->a, 3);
                fputs(", radius: ", f);
                put_num(f, g->radius);
                break;
            }
            fputs("}\n", f);
        }
    }
}


salto_status salto_character_save(const salto_character_desc* c, const char* path,
                                  salto_error* err) {
    if (!path || !path[0]) {
        return SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "no file name given");
    }
    salto_status s = salto_character_validate(c, err);
    if (s) return s;

    salto_atomic a;
    s = salto_atomic_open(&a, path, 1, err);
    if (s) return s;
    FILE* f = a.f;

    fprintf(f, "# character file written by salto %s\n", salto_version());
    fputs("name: ", f);
    put_str(f, c->name && c->name[0] ? c->name : "unnamed");
    fputs("\ngravity: ", f);
    put_vec(f, c->gravity, 3);
    fputs("\nbodies:\n", f);
    for (int b = 0; b < c->nbody; b++) write_body(f, c, b);
    int any = 0;
    for (int b = 0; b < c->nbody; b++) {
        for (int k = 0; k < c->bodies[b].naxis; k++) {
            const salto_axis_desc* ax = &c->bodies[b].axes[k];
            if (!ax->has_torque) continue;
            if (!any) fputs("torque_limits:\n", f);
            any = 1;
            fputs("  ", f);
            put_str(f, ax->name);
            fputs(": {limit: ", f);
            put_vec(f, ax->torque, 2);
            fputs(", slope: ", f);
            put_num(f, ax->torque_slope);
            fputs("}\n", f);
        }
    }

    return salto_atomic_commit(&a, err);
}
