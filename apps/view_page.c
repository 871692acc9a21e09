// view_page.c: salto view's page, one self-contained HTML file: the viewer's own HTML, CSS
// and script (web/, compiled in) with three.js, uPlot and the data inlined
//
// three.js and uPlot are read at generation time from the npm folder the set-up installs
// (web/node_modules, or SALTO_WEB_MODULES); nothing of theirs is in the repository. The page
// links nothing: it opens offline, from disk or from a mail.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "view.h"

extern const char view_asset_html[];
extern const char view_asset_css[];
extern const char view_asset_js[];

// whether s holds "</script" in any case (it would end the inline script that holds it)
static int ends_script(const char* s) {
    for (const char* p = strstr(s, "</"); p; p = strstr(p + 2, "</")) {
        static const char tag[] = "script";
        size_t k = 0;
        while (k < 6 && p[2 + k] && tolower((unsigned char)p[2 + k]) == tag[k]) k++;
        if (k == 6) return 1;
    }
    return 0;
}


int view_libs_load(view_libs* l, const char* who) {
    memset(l, 0, sizeof *l);
    const char* dir = getenv("SALTO_WEB_MODULES");
    if (!dir || !*dir) dir = SALTO_WEB_MODULES_DEFAULT;
    static const char* const rel[] = {"three/build/three.core.js", "three/build/three.module.js",
                                       "uplot/dist/uPlot.iife.min.js", "uplot/dist/uPlot.min.css"};
    char** slot[] = {&l->three_core, &l->three_module, &l->uplot_js, &l->uplot_css};
    for (int k = 0; k < 4; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, rel[k]);
        salto_error err = {0};
        size_t len;
        *slot[k] = salto_read_file(path, &len, &err);
        if (!*slot[k]) {
            app_print_error(&err);
            if (access(path, F_OK) != 0) {
                fprintf(stderr, "%s: the page inlines three.js and uPlot from npm: run 'bash "
                                "scripts/setup.sh build' (it installs them into web/node_modules), "
                                "or set SALTO_WEB_MODULES to a node_modules folder that has three "
                                "and uplot\n", who);
            }
            const int status = err.status == SALTO_ERR_NOMEM ? 1 : 2;
            view_libs_free(l);
            return status;
        }
        if (ends_script(*slot[k])) {
            fprintf(stderr, "%s: '%s' holds '</script', which would end the page's script: not "
                            "inlined\n", who, path);
            view_libs_free(l);
            return 2;
        }
    }
    // the page imports three.js's module with its import of the core redirected (viewer.js)
    if (!strstr(l->three_module, "'./three.core.js'")) {
        fprintf(stderr, "%s: three.js's module does not import './three.core.js' as the page "
                        "expects (another three.js version than web/package-lock.json's?)\n", who);
        view_libs_free(l);
        return 2;
    }
    return 0;
}


void view_libs_free(view_libs* l) {
    salto_free(l->three_core), salto_free(l->three_module), salto_free(l->uplot_js);
    salto_free(l->uplot_css);
    memset(l, 0, sizeof *l);
}


// text with HTML's special characters escaped (the title)
static void put_html(FILE* f, const char* s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}


int view_write_page(FILE* f, const view_libs* l, const char* data, size_t ndata,
                    const char* title) {
    const char* s = view_asset_html;
    for (;;) {
        const char* mark = strstr(s, "@@");
        if (!mark) {
            fputs(s, f);
            break;
        }
        const char* end = strstr(mark + 2, "@@");
        if (!end) {
            fputs(s, f);
            break;
        }
        fwrite(s, 1, (size_t)(mark - s), f);
        const size_t n = (size_t)(end - mark - 2);
        const char* key = mark + 2;
#define IS(name) (n == sizeof(name) - 1 && strncmp(key, name, n) == 0)
        if (IS("TITLE")) {
            put_html(f, title);
        } else if (IS("UPLOT_CSS")) {
            fputs(l->uplot_css, f);
        } else if (IS("VIEWER_CSS")) {
            fputs(view_asset_css, f);
        } else if (IS("UPLOT_JS")) {
            fputs(l->uplot_js, f);
        } else if (IS("THREE_CORE")) {
            fputs(l->three_core, f);
        } else if (IS("THREE_MODULE")) {
            fputs(l->three_module, f);
        } else if (IS("VIEWER_JS")) {
            fputs(view_asset_js, f);
        } else if (IS("DATA")) {
            // JSON with every '<' as \u003c: it only occurs in strings, where the escape means
            // the same, and no "</script" or "<!--" can end or confuse the script element
            for (size_t k = 0; data && k < ndata; k++) {
                if (data[k] == '<') fputs("\\u003c", f);
                else fputc(data[k], f);
            }
        } else {
            fwrite(mark, 1, n + 4, f); // not a marker: as written
        }
#undef IS
        s = end + 2;
    }
    return ferror(f) ? -1 : 0;
}
