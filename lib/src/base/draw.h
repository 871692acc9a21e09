// draw.h: what salto's pictures share (draw.c): labels in a built-in stroke font (no
// dependence on installed fonts; fontconfig is never loaded) and the atomic PNG writer
#ifndef SALTO_DRAW_H
#define SALTO_DRAW_H

#include <cairo.h>

#include "salto/base.h"

// text of height size px (digits and ascenders), centred at u, baseline v, in the current
// source colour; characters without a glyph as spaces
void salto_draw_text(cairo_t* cr, const char* s, double size, double u, double v);
// the width salto_draw_text gives s at size px, px
double salto_draw_text_width(const char* s, double size);

// A round step for ticks on an axis: the smallest of 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10,
// 20, 50 and 100 that is at least least (100 when none is)
double salto_draw_step(double least);

// A white w x h picture to draw (cr; its surface is cairo_get_target(cr), and salto_write_png
// releases both), or NULL with err filled (SALTO_ERR_NOMEM, naming path) when cairo cannot
// make one
cairo_t* salto_draw_canvas(int w, int h, const char* path, salto_error* err);

// Writes a salto_draw_canvas picture to PATH.tmp and renames it over PATH (nothing is left
// behind on failure: SALTO_ERR_IO with err filled). Releases cr and its surface either way.
salto_status salto_write_png(cairo_t* cr, const char* path, salto_error* err);

#endif
