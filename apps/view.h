// view.h: salto view's page (a motion in 3-D with its plots, one self-contained HTML file) and
// the data it draws, shared by salto view and salto watch
#ifndef SALTO_APPS_VIEW_H
#define SALTO_APPS_VIEW_H

#include <stdio.h>

#include "app_motion.h"

// A motion to draw: a solved or framed motion (am, sampled at the problem's frame rate), or
// the frames of a 'salto play' result (t and q, on am's character)
typedef struct view_motion {
    const char* label;        // what the page calls it ("motion", "salto play", a file name)
    const app_motion* am;     // either this
    int nframe;               // or these frames (t, q: nframe x nv, the character's chart)
    double* t;
    double* q;
} view_motion;

// Reads a 'salto play' result (its sim.json, or the folder holding it) as frames on p's
// character: *out filled (release with view_motion_free). 0, or the exit status with the
// error printed at its file:line:col (2 bad input, 1 out of memory).
int view_motion_load_play(view_motion* out, const struct salto_problem_desc* p, const char* path);
void view_motion_free(view_motion* v);

// The page's data (one JSON object) for main (with its validation's plots and contact forces)
// and an optional second motion drawn as a ghost (compare may be NULL), written to f. 0, or
// the exit status with the error printed.
int view_write_data(FILE* f, const char* who, const view_motion* main_motion,
                    const view_motion* compare);

// The libraries the page inlines (three.js, uPlot), read from the npm folder the set-up
// installs (web/node_modules in the source tree, or SALTO_WEB_MODULES).
typedef struct view_libs {
    char* three_core;
    char* three_module;
    char* uplot_js;
    char* uplot_css;
} view_libs;
int view_libs_load(view_libs* l, const char* who);
void view_libs_free(view_libs* l);

// The page: the viewer with the libraries and data (a JSON object, "</" escaped here) inlined;
// data NULL: a live page for salto watch, which takes its data from the server's events.
// Returns 0, or -1 when writing failed (errno set).
int view_write_page(FILE* f, const view_libs* l, const char* data, size_t ndata,
                    const char* title);

#endif
