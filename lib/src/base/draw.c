// draw.c: what salto's pictures share (draw.h): labels in a built-in stroke font, round steps
// for axes, and the white canvas and its atomic PNG writer (the filmstrip, residuals.png,
// torques.png and the batch summaries draw with them)
#include "draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "salto/atomic.h"

// ---- labels in a built-in stroke font ----
//
// Labels are drawn as strokes rather than with cairo's font API: the image then does not
// depend on the fonts installed (a build machine may have none), and fontconfig, whose
// caches live until exit and are reported by LeakSanitizer, is never loaded. Glyphs are
// polylines on a grid 4 units wide, baseline y = 0, x-height 4, digit and ascender height
// 6, descender -2, capitals 6 high; ';' separates strokes, a repeated point is a dot. Other
// characters are drawn as a space.

static const char* glyph(int ch) {
    static const char* digit[10] = {
        "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0",
        "1,5 2,6 2,0;1,0 3,0",
        "0,5 1,6 3,6 4,5 4,4 0,0 4,0",
        "0,5 1,6 3,6 4,5 4,4 3,3 1,3;3,3 4,2 4,1 3,0 1,0 0,1",
        "3,0 3,6 0,2 4,2",
        "4,6 0,6 0,3 3,3 4,2 4,1 3,0 0,0",
        "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1 4,2 3,3 0,3",
        "0,6 4,6 1,0",
        "1,3 0,4 0,5 1,6 3,6 4,5 4,4 3,3 1,3 0,2 0,1 1,0 3,0 4,1 4,2 3,3",
        "4,3 1,3 0,4 0,5 1,6 3,6 4,5 4,1 3,0 1,0 0,1",
    };
    static const char* lower[26] = {
        "4,4 4,0;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",             // a
        "0,6 0,0;0,3 1,4 3,4 4,3 4,1 3,0 1,0 0,1",             // b
        "4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",                     // c
        "4,6 4,0;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",             // d
        "0,2 4,2 4,3 3,4 1,4 0,3 0,1 1,0 4,0",                 // e
        "4,5 3,6 2,6 1,5 1,0;0,4 3,4",                         // f
        "4,4 4,-1 3,-2 1,-2 0,-1;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1", // g
        "0,6 0,0;0,3 1,4 3,4 4,3 4,0",                         // h
        "2,4 2,0;2,6 2,6",                                     // i
        "3,4 3,-1 2,-2 1,-2;3,6 3,6",                          // j
        "0,6 0,0;4,4 0,1;1,2 4,0",                             // k
        "1,6 2,6 2,1 3,0",                                     // l
        "0,4 0,0;0,3 1,4 2,3 2,0;2,3 3,4 4,3 4,0",             // m
        "0,4 0,0;0,3 1,4 3,4 4,3 4,0",                         // n
        "1,0 3,0 4,1 4,3 3,4 1,4 0,3 0,1 1,0",                 // o
        "0,4 0,-2;0,3 1,4 3,4 4,3 4,1 3,0 1,0 0,1",            // p
        "4,4 4,-2;4,3 3,4 1,4 0,3 0,1 1,0 3,0 4,1",            // q
        "0,4 0,0;0,2 2,4 4,4",                                 // r
        "4,3 3,4 1,4 0,3 1,2 3,2 4,1 3,0 1,0 0,1",             // s
        "2,6 2,1 3,0 4,0;0,4 4,4",                             // t
        "0,4 0,1 1,0 3,0 4,1;4,4 4,0",                         // u
        "0,4 2,0 4,4",                                         // v
        "0,4 1,0 2,3 3,0 4,4",                                 // w
        "0,4 4,0;0,0 4,4",                                     // x
        "0,4 2,0;4,4 1,-2",                                    // y
        "0,4 4,4 0,0 4,0",                                     // z
    };
    static const char* upper[26] = {
        "0,0 2,6 4,0;1,3 3,3",                                 // A
        "0,0 0,6 3,6 4,5 4,4 3,3 0,3;3,3 4,2 4,1 3,0 0,0",     // B
        "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1",                     // C
        "0,0 0,6 2,6 4,4 4,2 2,0 0,0",                         // D
        "4,6 0,6 0,0 4,0;0,3 3,3",                             // E
        "4,6 0,6 0,0;0,3 3,3",                                 // F
        "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1 4,3 2,3",             // G
        "0,6 0,0;4,6 4,0;0,3 4,3",                             // H
        "1,6 3,6;2,6 2,0;1,0 3,0",                             // I
        "4,6 4,1 3,0 1,0 0,1",                                 // J
        "0,6 0,0;4,6 0,2;1,3 4,0",                             // K
        "0,6 0,0 4,0",                                         // L
        "0,0 0,6 2,3 4,6 4,0",                                 // M
        "0,0 0,6 4,0 4,6",                                     // N
        "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0",                 // O
        "0,0 0,6 3,6 4,5 4,4 3,3 0,3",                         // P
        "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0;2,2 4,0",         // Q
        "0,0 0,6 3,6 4,5 4,4 3,3 0,3;2,3 4,0",                 // R
        "4,5 3,6 1,6 0,5 0,4 1,3 3,3 4,2 4,1 3,0 1,0 0,1",     // S
        "0,6 4,6;2,6 2,0",                                     // T
        "0,6 0,1 1,0 3,0 4,1 4,6",                             // U
        "0,6 2,0 4,6",                                         // V
        "0,6 1,0 2,4 3,0 4,6",                                 // W
        "0,6 4,0;0,0 4,6",                                     // X
        "0,6 2,3 4,6;2,3 2,0",                                 // Y
        "0,6 4,6 0,0 4,0",                                     // Z
    };
    if (ch >= '0' && ch <= '9') return digit[ch - '0'];
    if (ch >= 'a' && ch <= 'z') return lower[ch - 'a'];
    if (ch >= 'A' && ch <= 'Z') return upper[ch - 'A'];
    switch (ch) {
    case '.': return "2,0 2,0";
    case ',': return "2,0 1,-1";
    case ':': return "2,1 2,1;2,4 2,4";
    case '=': return "0,2 4,2;0,4 4,4";
    case '-': return "0,3 4,3";
    case '+': return "0,3 4,3;2,1 2,5";
    case '_': return "0,0 4,0";
    case '/': return "0,0 4,6";
    case '(': return "3,6 1,4 1,2 3,0";
    case ')': return "1,6 3,4 3,2 1,0";
    default: return "";
    }
}


double salto_draw_step(double least) {
    static const double steps[] = {0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100};
    for (int k = 0; k < 12; k++) {
        if (steps[k] >= least) return steps[k];
    }
    return steps[11];
}


double salto_draw_text_width(const char* s, double size) {
    return (6.0 * (double)strlen(s) - 2.0) * size / 6.0; // 6 units a character, less the last's gap
}


// text of height size px (digits), centred at u, baseline v
void salto_draw_text(cairo_t* cr, const char* s, double size, double u, double v) {
    const double unit = size / 6.0, advance = 6.0; // px per grid unit; units per character
    const double width = salto_draw_text_width(s, size);
    cairo_set_line_width(cr, fmax(1.0, 0.14 * size));
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    double x0 = u - 0.5 * width;
    for (; *s; s++, x0 += advance * unit) {
        const char* g = glyph((unsigned char)*s);
        int pen_down = 0;
        while (*g) {
            char* e;
            const long gx = strtol(g, &e, 10);
            const long gy = strtol(e + 1, &e, 10); // skips the comma
            const double px = x0 + (double)gx * unit, py = v - (double)gy * unit;
            if (pen_down) {
                cairo_line_to(cr, px, py);
            } else {
                cairo_move_to(cr, px, py);
                pen_down = 1;
            }
            if (*e == ';') pen_down = 0;
            g = *e ? e + 1 : e;
        }
    }
    cairo_stroke(cr);
}


cairo_t* salto_draw_canvas(int w, int h, const char* path, salto_error* err) {
    cairo_surface_t* surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t* cr = cairo_create(surf); // both released by salto_write_png
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "cannot create a %d x %d image for '%s'",
                   w, h, path);
        return NULL;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return cr;
}


salto_status salto_write_png(cairo_t* cr, const char* path, salto_error* err) {
    // PATH.tmp written by cairo, then renamed; the surface's own reference is salto_draw_canvas's
    cairo_surface_t* surf = cairo_get_target(cr);
    salto_atomic a;
    salto_status s = salto_atomic_open(&a, path, 0, err);
    cairo_surface_flush(surf);
    cairo_status_t cs = cairo_status(cr);
    if (!s && cs == CAIRO_STATUS_SUCCESS) cs = cairo_surface_write_to_png(surf, a.tmp);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    if (s) return s;
    if (cs != CAIRO_STATUS_SUCCESS) {
        s = SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "cannot write '%s': %s", a.tmp,
                       cairo_status_to_string(cs));
        salto_atomic_abort(&a);
        return s;
    }
    return salto_atomic_commit(&a, err);
}
