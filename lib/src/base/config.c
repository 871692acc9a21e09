// config.c: YAML documents read through libyaml into a located tree of values
//
// The tree is built from libyaml's event stream rather than from its document API, so that
// the reader keeps control of what would otherwise be unbounded: nesting depth (an explicit
// stack of open containers, no recursion while parsing), alias expansion (copies are counted
// against a node budget, an alias to a value that is still open is refused) and duplicate
// keys (checked when a map closes, by sorting, so large maps stay O(n log n)). Every node is
// attached to the tree as soon as it is created, so one salto_cfg_destroy frees everything on
// any failure path.
#include "config_priv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>


typedef struct anchor {
    char* name;
    salto_cfg_node* node; // borrowed from the tree
    int done;             // 0 while the anchored list or map is still open
} anchor;

// state of the event-driven builder
typedef struct builder {
    salto_cfg* cfg;
    salto_error* err;
    int depth;                                       // open containers
    salto_cfg_node* open[SALTO_CFG_MAX_DEPTH];       // open containers, outermost first
    int cap[SALTO_CFG_MAX_DEPTH];                    // capacity of open[k]->child
    anchor* open_anchor[SALTO_CFG_MAX_DEPTH];        // anchor of open[k], or NULL
    char* pending_key[SALTO_CFG_MAX_DEPTH];          // maps: key read, value not yet
    salto_src_loc pending_loc[SALTO_CFG_MAX_DEPTH];
    anchor* anchors;
    int nanchor;
    int cap_anchor;
    int nnode;   // nodes created, alias copies included
    int ndoc;    // documents seen
} builder;

// ---- small helpers ----

static salto_src_loc mark_loc(const salto_cfg* cfg, yaml_mark_t m) {
    salto_src_loc l = {cfg->file, (int)m.line + 1, (int)m.column + 1};
    return l;
}


static char* dup_n(const char* s, size_t n) {
    char* p = salto_malloc(n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}


void cfg_node_free(salto_cfg_node* n) {
    if (!n) return;
    for (int i = 0; i < n->n; i++) cfg_node_free(n->child[i]);
    salto_free(n->child);
    salto_free((void*)n->key);
    salto_free((void*)n->text);
    salto_free(n);
}


void salto_cfg_destroy(salto_cfg* cfg) {
    if (!cfg) return;
    cfg_node_free(cfg->root);
    salto_free(cfg->file);
    salto_free(cfg);
}


const salto_cfg_node* salto_cfg_root(const salto_cfg* cfg) {
    return cfg ? cfg->root : NULL;
}


const char* salto_cfg_file(const salto_cfg* cfg) {
    return cfg ? cfg->file : NULL;
}

// ---- building the tree from events ----

static salto_status nomem(builder* B) {
    return SALTO_FAIL(B->err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                      B->cfg->file);
}


static salto_cfg_node* new_node(builder* B, salto_cfg_kind kind, salto_src_loc loc) {
    if (B->nnode >= SALTO_CFG_MAX_NODES) {
        SALTO_FAIL(B->err, SALTO_ERR_INVALID, loc, "the document has more than %d values",
                   SALTO_CFG_MAX_NODES);
        return NULL;
    }
    salto_cfg_node* n = salto_calloc(1, sizeof *n);
    if (!n) {
        nomem(B);
        return NULL;
    }
    B->nnode++;
    n->kind = kind;
    n->loc = loc;
    return n;
}


// appends child to the container c (whose child array has capacity *cap)
static salto_status push_child(builder* B, salto_cfg_node* c, int* cap, salto_cfg_node* child) {
    if (c->n == *cap) {
        int ncap = *cap ? 2 * *cap : 4;
        salto_cfg_node** a = salto_malloc((size_t)ncap * sizeof *a);
        if (!a) return nomem(B);
        if (c->n) memcpy(a, c->child, (size_t)c->n * sizeof *a);
        salto_free(c->child);
        c->child = a;
        *cap = ncap;
    }
    child->parent = c;
    child->index = c->n;
    c->child[c->n++] = child;
    return SALTO_OK;
}


// hands a new node to the innermost open container (or makes it the document); takes
// ownership of n in every case
static salto_status attach(builder* B, salto_cfg_node* n) {
    if (B->depth == 0) {
        SALTO_ASSERT(!B->cfg->root);
        B->cfg->root = n;
        return SALTO_OK;
    }
    const int k = B->depth - 1;
    salto_cfg_node* top = B->open[k];
    if (top->kind == SALTO_CFG_MAP && !B->pending_key[k]) {
        // a key: keep its text and location, drop the node
        if (n->kind != SALTO_CFG_SCALAR) {
            salto_src_loc l = n->loc;
            const char* found = n->kind == SALTO_CFG_LIST ? "a list" : "a map";
            cfg_node_free(n);
            return SALTO_FAIL(B->err, SALTO_ERR_INVALID, l, "map keys must be scalars, found %s",
                              found);
        }
        B->pending_key[k] = (char*)n->text;
        B->pending_loc[k] = n->loc;
        n->text = NULL;
        cfg_node_free(n);
        return SALTO_OK;
    }
    if (top->kind == SALTO_CFG_MAP) {
        n->key = B->pending_key[k];
        n->key_loc = B->pending_loc[k];
        B->pending_key[k] = NULL;
    }
    salto_status s = push_child(B, top, &B->cap[k], n);
    if (s) cfg_node_free(n);
    return s;
}


// 1 when the innermost open container is a map waiting for a key
static int expecting_key(const builder* B) {
    const int k = B->depth - 1;
    return k >= 0 && B->open[k]->kind == SALTO_CFG_MAP && !B->pending_key[k];
}


static salto_status add_anchor(builder* B, const char* name, salto_cfg_node* n, anchor** out) {
    if (B->nanchor == B->cap_anchor) {
        int ncap = B->cap_anchor ? 2 * B->cap_anchor : 8;
        anchor* a = salto_malloc((size_t)ncap * sizeof *a);
        if (!a) return nomem(B);
        if (B->nanchor) memcpy(a, B->anchors, (size_t)B->nanchor * sizeof *a);
        // open containers point into the old array: re-point them
        for (int k = 0; k < B->depth; k++) {
            if (B->open_anchor[k]) B->open_anchor[k] = a + (B->open_anchor[k] - B->anchors);
        }
        salto_free(B->anchors);
        B->anchors = a;
        B->cap_anchor = ncap;
    }
    anchor* a = &B->anchors[B->nanchor];
    a->name = salto_strdup(name);
    if (!a->name) return nomem(B);
    a->node = n;
    a->done = n->kind == SALTO_CFG_SCALAR;
    B->nanchor++;
    if (out) *out = a;
    return SALTO_OK;
}


// deep copy of src located at loc; level is the nesting level the copy will have (1 = the
// document); errors are reported at the alias
static salto_cfg_node* copy_node(builder* B, const salto_cfg_node* src, salto_src_loc loc,
                                 int level, salto_src_loc alias) {
    if (src->kind != SALTO_CFG_SCALAR && level > SALTO_CFG_MAX_DEPTH) {
        SALTO_FAIL(B->err, SALTO_ERR_INVALID, alias,
                   "values nest deeper than %d levels (through this alias)",
                   SALTO_CFG_MAX_DEPTH);
        return NULL;
    }
    salto_cfg_node* n = new_node(B, src->kind, alias);
    if (!n) return NULL;
    n->loc = loc;
    n->quoted = src->quoted;
    if (src->text) {
        n->text = salto_strdup(src->text);
        if (!n->text) goto fail_nomem;
    }
    if (src->n) {
        n->child = salto_calloc((size_t)src->n, sizeof *n->child);
        if (!n->child) goto fail_nomem;
        for (int i = 0; i < src->n; i++) {
            const salto_cfg_node* sc = src->child[i];
            salto_cfg_node* c = copy_node(B, sc, sc->loc, level + 1, alias);
            if (!c) goto fail;
            c->parent = n;
            c->index = i;
            n->child[n->n++] = c;
            if (sc->key) {
                c->key = salto_strdup(sc->key);
                if (!c->key) goto fail_nomem;
                c->key_loc = sc->key_loc;
            }
        }
    }
    return n;

fail_nomem:
    nomem(B);
fail:
    cfg_node_free(n);
    return NULL;
}


static int cmp_entry(const void* a, const void* b) {
    const salto_cfg_node* x = *(const salto_cfg_node* const*)a;
    const salto_cfg_node* y = *(const salto_cfg_node* const*)b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return (x->index > y->index) - (x->index < y->index);
}


// duplicate keys: sort the entries by (key, position); the reported duplicate is the
// earliest entry in file order whose key was already given
static salto_status check_duplicates(builder* B, const salto_cfg_node* map) {
    if (map->n < 2) return SALTO_OK;
    salto_cfg_node** e = salto_malloc((size_t)map->n * sizeof *e);
    if (!e) return nomem(B);
    memcpy(e, map->child, (size_t)map->n * sizeof *e);
    qsort(e, (size_t)map->n, sizeof *e, cmp_entry);
    const salto_cfg_node* dup = NULL;
    const salto_cfg_node* first = NULL;
    for (int i = 1; i < map->n; i++) {
        if (strcmp(e[i]->key, e[i - 1]->key) == 0 && (!dup || e[i]->index < dup->index)) {
            // e[i - 1] is not necessarily the first of its run: walk back
            int j = i - 1;
            while (j > 0 && strcmp(e[j - 1]->key, e[i]->key) == 0) j--;
            dup = e[i];
            first = e[j];
        }
    }
    salto_free(e);
    if (!dup) return SALTO_OK;
    return SALTO_FAIL(B->err, SALTO_ERR_INVALID, dup->key_loc,
                      "duplicate key '%s' (first given on line %d)", dup->key,
                      first->key_loc.line);
}


static salto_status syntax_error(builder* B, const yaml_parser_t* p) {
    salto_src_loc l;
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return nomem(B);
    case YAML_READER_ERROR:
        l = mark_loc(B->cfg, p->mark);
        if (p->problem_value >= 0) {
            return SALTO_FAIL(B->err, SALTO_ERR_SYNTAX, l,
                              "invalid input: %s (byte 0x%02x at offset %zu)",
                              p->problem ? p->problem : "unreadable text",
                              (unsigned)p->problem_value & 0xffu, p->problem_offset);
        }
        return SALTO_FAIL(B->err, SALTO_ERR_SYNTAX, l, "invalid input: %s (at offset %zu)",
                          p->problem ? p->problem : "unreadable text", p->problem_offset);
    default:
        l = mark_loc(B->cfg, p->problem_mark);
        if (p->context) {
            return SALTO_FAIL(B->err, SALTO_ERR_SYNTAX, l, "%s (%s on line %d)",
                              p->problem ? p->problem : "invalid YAML", p->context,
                              (int)p->context_mark.line + 1);
        }
        return SALTO_FAIL(B->err, SALTO_ERR_SYNTAX, l, "%s",
                          p->problem ? p->problem : "invalid YAML");
    }
}


static salto_status on_start(builder* B, const yaml_event_t* ev, salto_cfg_kind kind,
                             const yaml_char_t* anchor_name) {
    salto_src_loc l = mark_loc(B->cfg, ev->start_mark);
    if (B->depth >= SALTO_CFG_MAX_DEPTH) {
        return SALTO_FAIL(B->err, SALTO_ERR_INVALID, l, "values nest deeper than %d levels",
                          SALTO_CFG_MAX_DEPTH);
    }
    if (expecting_key(B)) {
        return SALTO_FAIL(B->err, SALTO_ERR_INVALID, l, "map keys must be scalars, found %s",
                          kind == SALTO_CFG_LIST ? "a list" : "a map");
    }
    salto_cfg_node* n = new_node(B, kind, l);
    if (!n) return B->err->status;
    salto_status s = attach(B, n);
    if (s) return s;
    const int k = B->depth++;
    B->open[k] = n;
    B->cap[k] = 0;
    B->pending_key[k] = NULL;
    B->open_anchor[k] = NULL;
    if (anchor_name) return add_anchor(B, (const char*)anchor_name, n, &B->open_anchor[k]);
    return SALTO_OK;
}


static salto_status on_end(builder* B) {
    SALTO_ASSERT(B->depth > 0);
    const int k = --B->depth;
    salto_cfg_node* n = B->open[k];
    SALTO_ASSERT(!B->pending_key[k]); // libyaml always delivers a value for a key
    if (B->open_anchor[k]) B->open_anchor[k]->done = 1;
    B->open_anchor[k] = NULL;
    if (n->kind == SALTO_CFG_MAP) return check_duplicates(B, n);
    return SALTO_OK;
}


static salto_status on_scalar(builder* B, const yaml_event_t* ev) {
    salto_src_loc l = mark_loc(B->cfg, ev->start_mark);
    salto_cfg_node* n = new_node(B, SALTO_CFG_SCALAR, l);
    if (!n) return B->err->status;
    n->text = dup_n((const char*)ev->data.scalar.value, ev->data.scalar.length);
    if (!n->text) {
        cfg_node_free(n);
        return nomem(B);
    }
    const char* tag = (const char*)ev->data.scalar.tag;
    n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                (tag && strcmp(tag, YAML_STR_TAG) == 0);
    // anchors on map keys are not kept (the key node is dropped)
    const int is_key = expecting_key(B);
    salto_status s = attach(B, n);
    if (s || is_key || !ev->data.scalar.anchor) return s;
    return add_anchor(B, (const char*)ev->data.scalar.anchor, n, NULL);
}


static salto_status on_alias(builder* B, const yaml_event_t* ev) {
    salto_src_loc l = mark_loc(B->cfg, ev->start_mark);
    const char* name = (const char*)ev->data.alias.anchor;
    if (expecting_key(B)) {
        return SALTO_FAIL(B->err, SALTO_ERR_INVALID, l, "aliases cannot be map keys ('*%s')",
                          name);
    }
    const anchor* a = NULL;
    for (int i = B->nanchor - 1; i >= 0 && !a; i--) {
        if (strcmp(B->anchors[i].name, name) == 0) a = &B->anchors[i];
    }
    if (!a) return SALTO_FAIL(B->err, SALTO_ERR_INVALID, l, "unknown anchor '%s'", name);
    if (!a->done) {
        return SALTO_FAIL(B->err, SALTO_ERR_INVALID, l,
                          "alias '*%s' refers to a value that contains it", name);
    }
    salto_cfg_node* n = copy_node(B, a->node, l, B->depth + 1, l);
    if (!n) return B->err->status;
    return attach(B, n);
}


static salto_status on_event(builder* B, const yaml_event_t* ev) {
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (B->ndoc++ > 0) {
            return SALTO_FAIL(B->err, SALTO_ERR_INVALID, mark_loc(B->cfg, ev->start_mark),
                              "only one YAML document is allowed in a file");
        }
        return SALTO_OK;
    case YAML_SCALAR_EVENT:
        return on_scalar(B, ev);
    case YAML_SEQUENCE_START_EVENT:
        return on_start(B, ev, SALTO_CFG_LIST, ev->data.sequence_start.anchor);
    case YAML_MAPPING_START_EVENT:
        return on_start(B, ev, SALTO_CFG_MAP, ev->data.mapping_start.anchor);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return on_end(B);
    case YAML_ALIAS_EVENT:
        return on_alias(B, ev);
    default:
        return SALTO_OK;
    }
}


static void builder_free(builder* B) {
    for (int k = 0; k < B->depth; k++) salto_free(B->pending_key[k]);
    for (int i = 0; i < B->nanchor; i++) salto_free(B->anchors[i].name);
    salto_free(B->anchors);
}


salto_cfg* salto_cfg_parse(const char* text, size_t len, const char* name, salto_error* err) {
    salto_cfg* cfg = salto_calloc(1, sizeof *cfg);
    if (!cfg) {
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                   name ? name : "");
        return NULL;
    }
    cfg->file = salto_strdup(name ? name : "");
    if (!cfg->file) {
        salto_free(cfg);
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                   name ? name : "");
        return NULL;
    }

    // the builder is large (fixed stacks): keep it off the C stack
    builder* B = salto_calloc(1, sizeof *B);
    if (!B) {
        SALTO_FAIL(err, SALTO_ERR_NOMEM, salto_loc_none(), "out of memory reading '%s'",
                   cfg->file);
        salto_cfg_destroy(cfg);
        return NULL;
    }
    salto_error local = {0};
    B->cfg = cfg;
    B->err = err ? err : &local;

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        nomem(B);
        salto_free(B);
        salto_cfg_destroy(cfg);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char*)(text ? text : ""),
                                 text ? len : 0);
    salto_status s = SALTO_OK;
    for (int done = 0; !done && !s;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            s = syntax_error(B, &parser);
            break;
        }
        s = on_event(B, &ev);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);

    // an empty stream is a null document at 1:1
    if (!s && !cfg->root) {
        salto_src_loc l = {cfg->file, 1, 1};
        cfg->root = new_node(B, SALTO_CFG_SCALAR, l);
        if (cfg->root) cfg->root->text = dup_n("", 0);
        if (!cfg->root || !cfg->root->text) s = nomem(B);
    }
    builder_free(B);
    salto_free(B);
    if (s) {
        salto_cfg_destroy(cfg);
        return NULL;
    }
    return cfg;
}


salto_cfg* salto_cfg_load(const char* path, salto_error* err) {
    if (!path) {
        SALTO_FAIL(err, SALTO_ERR_IO, salto_loc_none(), "no file name given");
        return NULL;
    }
    size_t len = 0;
    char* buf = salto_read_file(path, &len, err);
    if (!buf) return NULL;
    salto_cfg* cfg = salto_cfg_parse(buf, len, path, err);
    salto_free(buf);
    return cfg;
}

// ---- typed access ----

void salto_cfg_name(const salto_cfg_node* n, char* buf, size_t size) {
    if (size == 0) return;
    if (!n) {
        snprintf(buf, size, "a missing value");
    } else if (n->key) {
        snprintf(buf, size, "'%s'", n->key);
    } else if (n->parent) {
        char up[256];
        salto_cfg_name(n->parent, up, sizeof up);
        snprintf(buf, size, "item %d of %.200s", n->index + 1, up);
    } else {
        snprintf(buf, size, "the document");
    }
}


void salto_cfg_describe(const salto_cfg_node* n, char* buf, size_t size) {
    if (size == 0) return;
    if (!n) {
        snprintf(buf, size, "nothing");
    } else if (n->kind == SALTO_CFG_LIST) {
        snprintf(buf, size, "a list of %d item%s", n->n, n->n == 1 ? "" : "s");
    } else if (n->kind == SALTO_CFG_MAP) {
        snprintf(buf, size, "a map");
    } else if (salto_cfg_is_null(n)) {
        snprintf(buf, size, "nothing (null)");
    } else {
        // quote at most 40 characters, printable ones only
        char t[48];
        size_t k = 0;
        for (const char* p = n->text; *p && k < 40; p++) {
            t[k++] = isprint((unsigned char)*p) ? *p : '?';
        }
        t[k] = '\0';
        snprintf(buf, size, "%s'%s%s'", n->quoted ? "the string " : "", t,
                 strlen(n->text) > 40 ? "..." : "");
    }
}


// "expected <what> for <name>, found <description>" at n
static salto_status expected(const salto_cfg_node* n, const char* what, salto_error* err) {
    char name[300];
    char found[100];
    salto_cfg_name(n, name, sizeof name);
    salto_cfg_describe(n, found, sizeof found);
    return SALTO_FAIL(err, SALTO_ERR_INVALID, n ? n->loc : salto_loc_none(),
                      "expected %s for %s, found %s", what, name, found);
}


int salto_cfg_is_null(const salto_cfg_node* n) {
    if (!n || n->kind != SALTO_CFG_SCALAR || n->quoted) return 0;
    const char* t = n->text;
    return !t[0] || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
           !strcmp(t, "NULL");
}


const salto_cfg_node* salto_cfg_child(const salto_cfg_node* map, const char* key) {
    if (!map || map->kind != SALTO_CFG_MAP || !key) return NULL;
    for (int i = 0; i < map->n; i++) {
        if (strcmp(map->child[i]->key, key) == 0) return map->child[i];
    }
    return NULL;
}


const salto_cfg_node* salto_cfg_require(const salto_cfg_node* map, const char* key,
                                        salto_error* err) {
    if (salto_cfg_expect(map, SALTO_CFG_MAP, err)) return NULL;
    const salto_cfg_node* c = salto_cfg_child(map, key);
    if (!c) {
        char name[300];
        salto_cfg_name(map, name, sizeof name);
        SALTO_FAIL(err, SALTO_ERR_INVALID, map->loc, "missing required key '%s' in %s", key,
                   name);
    }
    return c;
}


salto_status salto_cfg_expect(const salto_cfg_node* n, salto_cfg_kind kind, salto_error* err) {
    if (n && n->kind == kind) return SALTO_OK;
    static const char* const what[] = {"a scalar", "a list", "a map"};
    return expected(n, what[kind], err);
}


// plain decimal number syntax: [+-] digits [. digits] [(e|E) [+-] digits], a digit before
// or after the point
static int decimal_syntax(const char* s) {
    const char* p = s;
    if (*p == '+' || *p == '-') p++;
    int ndig = 0;
    while (isdigit((unsigned char)*p)) p++, ndig++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, ndig++;
    }
    if (!ndig) return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return 0;
        while (isdigit((unsigned char)*p)) p++;
    }
    return *p == '\0';
}


salto_status salto_cfg_number(const salto_cfg_node* n, double* out, salto_error* err) {
    if (!n || n->kind != SALTO_CFG_SCALAR || n->quoted || !decimal_syntax(n->text)) {
        return expected(n, "a number", err);
    }
    char* end = NULL;
    double v = strtod(n->text, &end);
    if (*end != '\0' || !isfinite(v)) return expected(n, "a finite number", err);
    *out = v;
    return SALTO_OK;
}


salto_status salto_cfg_int(const salto_cfg_node* n, int* out, salto_error* err) {
    if (!n || n->kind != SALTO_CFG_SCALAR || n->quoted) return expected(n, "an integer", err);
    const char* p = n->text;
    if (*p == '+' || *p == '-') p++;
    if (!*p) return expected(n, "an integer", err);
    for (; *p; p++) {
        if (!isdigit((unsigned char)*p)) return expected(n, "an integer", err);
    }
    errno = 0;
    char* end = NULL;
    long v = strtol(n->text, &end, 10);
    if (errno == ERANGE || v < -2147483647L - 1 || v > 2147483647L) {
        return expected(n, "an integer within the range of int", err);
    }
    *out = (int)v;
    return SALTO_OK;
}


salto_status salto_cfg_string(const salto_cfg_node* n, const char** out, salto_error* err) {
    if (!n || n->kind != SALTO_CFG_SCALAR || salto_cfg_is_null(n)) {
        return expected(n, "a string", err);
    }
    *out = n->text;
    return SALTO_OK;
}


salto_status salto_cfg_bool(const salto_cfg_node* n, int* out, salto_error* err) {
    if (n && n->kind == SALTO_CFG_SCALAR && !n->quoted) {
        const char* t = n->text;
        if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE")) {
            *out = 1;
            return SALTO_OK;
        }
        if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) {
            *out = 0;
            return SALTO_OK;
        }
    }
    return expected(n, "true or false", err);
}


salto_status salto_cfg_vec(const salto_cfg_node* n, double* out, int len, salto_error* err) {
    if (!n || n->kind != SALTO_CFG_LIST || n->n != len) {
        char what[64];
        snprintf(what, sizeof what, "a list of %d number%s", len, len == 1 ? "" : "s");
        return expected(n, what, err);
    }
    for (int i = 0; i < len; i++) {
        salto_status s = salto_cfg_number(n->child[i], &out[i], err);
        if (s) return s;
    }
    return SALTO_OK;
}

// ---- unknown keys and suggestions ----

static int ieq(const char* a, const char* b) {
    for (; *a && *b; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    }
    return *a == *b;
}


// Levenshtein distance, or 3 when it is certainly above 2 (or the words are too long)
static int edit_distance(const char* a, const char* b) {
    enum { MAXLEN = 63 };
    size_t la = strlen(a);
    size_t lb = strlen(b);
    if (la > MAXLEN || lb > MAXLEN) return 3;
    if ((la > lb ? la - lb : lb - la) > 2) return 3;
    int prev[MAXLEN + 1];
    int cur[MAXLEN + 1];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1;
            int ins = cur[j - 1] + 1;
            int m = sub < del ? sub : del;
            cur[j] = m < ins ? m : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof(int));
    }
    return prev[lb] > 3 ? 3 : prev[lb];
}


const char* salto_cfg_suggest(const char* word, const char* const* candidates, int ncand) {
    if (!word || !candidates) return NULL;
    for (int i = 0; i < ncand; i++) {
        if (candidates[i] && ieq(word, candidates[i])) return candidates[i];
    }
    const char* best = NULL;
    int best_d = 3;
    for (int i = 0; i < ncand; i++) {
        if (!candidates[i]) continue;
        int d = edit_distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}


salto_status salto_cfg_enum(const salto_cfg_node* n, const char* const* names, const char* what,
                            int* out, salto_error* err) {
    const char* s = NULL;
    salto_status st = salto_cfg_string(n, &s, err);
    if (st) return st;
    int count = 0;
    for (; names[count]; count++) {
        if (strcmp(s, names[count]) == 0) {
            *out = count;
            return SALTO_OK;
        }
    }
    char list[300] = "";
    for (int i = 0; i < count; i++) {
        size_t k = strlen(list);
        snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names[i]);
    }
    st = SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "unknown %s '%s' (expected one of: %s)", what,
                    s, list);
    const char* close = salto_cfg_suggest(s, names, count);
    if (close) salto_error_note(err, "did you mean '%s'?", close);
    return st;
}


salto_status salto_cfg_check_keys(const salto_cfg_node* map, const char* const* allowed,
                                  salto_error* err) {
    salto_status s = salto_cfg_expect(map, SALTO_CFG_MAP, err);
    if (s) return s;
    int nallowed = 0;
    while (allowed && allowed[nallowed]) nallowed++;
    for (int i = 0; i < map->n; i++) {
        const char* key = map->child[i]->key;
        int known = 0;
        for (int j = 0; j < nallowed && !known; j++) known = strcmp(key, allowed[j]) == 0;
        if (known) continue;
        char name[300];
        salto_cfg_name(map, name, sizeof name);
        s = SALTO_FAIL(err, SALTO_ERR_INVALID, map->child[i]->key_loc, "unknown key '%s' in %s",
                       key, name);
        const char* close = salto_cfg_suggest(key, allowed, nallowed);
        if (close) salto_error_note(err, "did you mean '%s'?", close);
        return s;
    }
    return SALTO_OK;
}
