// draw_text.h: labels in salto's built-in stroke font (filmstrip.c), for every picture salto
// draws: no dependence on installed fonts, and fontconfig is never loaded
#ifndef SALTO_DRAW_TEXT_H
#define SALTO_DRAW_TEXT_H

#include <cairo.h>

// text of height size px (digits and ascenders), centred at u, baseline v, in the current
// source colour; upper case is drawn as lower case, characters without a glyph as spaces
void salto_draw_text(cairo_t* cr, const char* s, double size, double u, double v);

#endif
