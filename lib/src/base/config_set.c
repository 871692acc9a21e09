// config_set.c: changing a located tree before it is read (`--set PATH=VALUE` overrides,
// by dotted path, list elements by name or index) and writing a tree back out as YAML
#include "config_priv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>


// ---- overrides ----

// the child of a list named by seg: an index, or the element whose "name" is seg
static salto_cfg_node* list_pick(salto_cfg_node* list, const char* seg) {
    char* end = NULL;
    const long i = strtol(seg, &end, 10);
    if (end != seg && *end == '\0') return i >= 0 && i < list->n ? list->child[i] : NULL;
    for (int k = 0; k < list->n; k++) {
        const salto_cfg_node* nm = list->child[k]->kind == SALTO_CFG_MAP
                                       ? salto_cfg_child(list->child[k], "name")
                                       : NULL;
        if (nm && nm->text && strcmp(nm->text, seg) == 0) return list->child[k];
    }
    return NULL;
}


// every node of a subtree placed at loc (the value an override replaced)
static void relocate(salto_cfg_node* n, salto_src_loc loc) {
    n->loc = loc;
    if (n->key) n->key_loc = loc;
    for (int i = 0; i < n->n; i++) relocate(n->child[i], loc);
}


// an override whose value is a YAML flow list or map ("[0, 0, 2.9]", "{type: none}"): parsed,
// and put in the place of node n (which is freed), keeping its key and location
static salto_status set_structured(salto_cfg_node* n, const char* path, const char* value,
                                   salto_error* err) {
    salto_error perr = {0};
    salto_cfg* tmp = salto_cfg_parse(value, strlen(value), "--set", &perr);
    if (!tmp) {
        if (perr.status == SALTO_ERR_NOMEM) return SALTO_FAIL(err, SALTO_ERR_NOMEM, n->loc, "out of memory");
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "override '%s': '%s' is not a YAML value: %s",
                          path, value, perr.msg);
    }
    salto_cfg_node* r = tmp->root;
    tmp->root = NULL;
    salto_cfg_destroy(tmp);
    salto_cfg_node* parent = (salto_cfg_node*)n->parent;
    if (!r || !parent) { // an empty document, or the document itself (not reachable by a path)
        cfg_node_free(r);
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc, "override '%s': no value in '%s'", path,
                          value);
    }
    relocate(r, n->loc);
    r->key = n->key;
    r->key_loc = n->key_loc;
    n->key = NULL;
    r->parent = parent;
    r->index = n->index;
    parent->child[n->index] = r;
    cfg_node_free(n);
    return SALTO_OK;
}


// 1 when text reads back as itself written as a plain YAML scalar: not empty, no leading or
// trailing blank, no indicator character first, no ": " or " #" inside, no control character
static int plain_scalar(const char* text) {
    const size_t n = strlen(text);
    if (n == 0 || isspace((unsigned char)text[0]) || isspace((unsigned char)text[n - 1])) return 0;
    if (strchr("-?:,[]{}#&*!|>'\"%@`", text[0]) && !(text[0] == '-' && n > 1 && text[1] != ' ')) return 0;
    if (strstr(text, ": ") || strstr(text, " #") || text[n - 1] == ':') return 0;
    for (const unsigned char* c = (const unsigned char*)text; *c; c++) {
        if (*c < 0x20) return 0;
    }
    return 1;
}


salto_status salto_cfg_set(salto_cfg* cfg, const char* path, const char* value, salto_error* err) {
    const salto_src_loc none = salto_loc_none();
    if (!cfg || !cfg->root || !path || !value || !path[0]) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, none, "an override needs PATH=VALUE");
    }
    char seg[256];
    salto_cfg_node* n = cfg->root;
    const char* s = path;
    while (*s) {
        const char* dot = strchr(s, '.');
        const size_t len = dot ? (size_t)(dot - s) : strlen(s);
        if (len == 0 || len >= sizeof seg) {
            return SALTO_FAIL(err, SALTO_ERR_INVALID, none, "override '%s': empty or overlong part",
                              path);
        }
        memcpy(seg, s, len);
        seg[len] = '\0';
        s = dot ? dot + 1 : s + len;
        salto_cfg_node* next = NULL;
        if (n->kind == SALTO_CFG_MAP) {
            next = (salto_cfg_node*)salto_cfg_child(n, seg);
            if (!next) {
                // a new key in a map: the value if this is the last part, else a new map
                salto_cfg_node* c = salto_calloc(1, sizeof *c);
                salto_cfg_node** ch = salto_malloc((size_t)(n->n + 1) * sizeof *ch);
                if (c) c->key = salto_strdup(seg);
                if (c && !dot) c->text = salto_strdup(value);
                if (!c || !ch || !c->key || (!dot && !c->text)) {
                    cfg_node_free(c);
                    salto_free(ch);
                    return SALTO_FAIL(err, SALTO_ERR_NOMEM, none, "out of memory");
                }
                c->kind = dot ? SALTO_CFG_MAP : SALTO_CFG_SCALAR;
                c->loc = c->key_loc = n->loc;
                c->parent = n;
                c->index = n->n;
                if (n->n) memcpy(ch, n->child, (size_t)n->n * sizeof *ch);
                salto_free(n->child);
                n->child = ch;
                n->child[n->n++] = c;
                next = c;
                if (!dot) {
                    n = c;
                    break; // the value is set below (a list or map value parsed there)
                }
            }
        } else if (n->kind == SALTO_CFG_LIST) {
            next = list_pick(n, seg);
        }
        if (!next) {
            salto_status st = SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                                         "override '%s': no '%s' here (a map key, a list index or "
                                         "the name of a list element)", path, seg);
            // the nearest name among a list's elements or a map's keys
            const char* names[64];
            int nn = 0;
            for (int k = 0; k < n->n && nn < 64; k++) {
                const salto_cfg_node* ch = n->child[k];
                const salto_cfg_node* nm = n->kind == SALTO_CFG_LIST && ch->kind == SALTO_CFG_MAP
                                               ? salto_cfg_child(ch, "name")
                                               : NULL;
                const char* t = n->kind == SALTO_CFG_MAP ? ch->key : nm ? nm->text : NULL;
                if (t) names[nn++] = t;
            }
            const char* close = nn > 0 ? salto_cfg_suggest(seg, names, nn) : NULL;
            if (close) salto_error_note(err, "did you mean '%s'?", close);
            return st;
        }
        n = next;
    }
    if (value[0] == '[' || value[0] == '{') return set_structured(n, path, value, err);
    const int to_null = strcmp(value, "null") == 0 || strcmp(value, "~") == 0 || value[0] == '\0';
    if (n->kind != SALTO_CFG_SCALAR && !to_null) {
        return SALTO_FAIL(err, SALTO_ERR_INVALID, n->loc,
                          "override '%s': the value there is a %s; only single values can be set "
                          "(or the whole %s to null)",
                          path, n->kind == SALTO_CFG_LIST ? "list" : "map",
                          n->kind == SALTO_CFG_LIST ? "list" : "map");
    }
    if (n->kind != SALTO_CFG_SCALAR) {
        // a list or map set to null: its children go, the node stays where it was
        for (int i = 0; i < n->n; i++) cfg_node_free(n->child[i]);
        salto_free(n->child);
        n->child = NULL;
        n->n = 0;
        n->kind = SALTO_CFG_SCALAR;
    }
    char* t = salto_strdup(value);
    if (!t) return SALTO_FAIL(err, SALTO_ERR_NOMEM, none, "out of memory");
    salto_free((void*)n->text);
    n->text = t;
    // a value plain YAML cannot hold as it is (a path with " #" in it) is a quoted string,
    // which is how salto_cfg_write then writes it; null (also the empty value) stays plain
    n->quoted = !to_null && !plain_scalar(value);
    return SALTO_OK;
}


// ---- writing ----

// a scalar as YAML: plain as it was written when it was plain (its meaning is then the same),
// else double-quoted with escapes
static void write_scalar(FILE* f, const char* text, int quoted) {
    if (!quoted) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (const unsigned char* c = (const unsigned char*)text; *c; c++) {
        if (*c == '"' || *c == '\\') {
            fprintf(f, "\\%c", *c);
        } else if (*c == '\n') {
            fputs("\\n", f);
        } else if (*c == '\t') {
            fputs("\\t", f);
        } else if (*c < 0x20) {
            fprintf(f, "\\x%02x", *c);
        } else {
            fputc(*c, f);
        }
    }
    fputc('"', f);
}


// a map key: plain when it is a plain word (letters, digits, '_', '-', '.'), else quoted
static void write_key(FILE* f, const char* key) {
    int plain = key[0] != '\0' && key[0] != '-';
    for (const char* c = key; *c && plain; c++) {
        plain = isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.';
    }
    write_scalar(f, key, !plain);
}


static void write_node(FILE* f, const salto_cfg_node* n, int indent, int inline_first);


// a list of plain scalars that flow style can hold ([0, 0, 2.8]); others go in block style
static int flow_list(const salto_cfg_node* n) {
    if (n->kind != SALTO_CFG_LIST || n->n == 0) return 0;
    for (int i = 0; i < n->n; i++) {
        const salto_cfg_node* c = n->child[i];
        if (c->kind != SALTO_CFG_SCALAR || c->quoted || c->text[0] == '\0' ||
            strpbrk(c->text, ",[]{}#&*!|>'\"%@`?:") || strlen(c->text) > 40) {
            return 0;
        }
    }
    return 1;
}


// the value after "key:" or "-": a scalar, an empty collection or a short list on the same
// line, a map in a list begun on the dash's line, else the collection's lines below, indented
static void write_value(FILE* f, const salto_cfg_node* n, int indent, int in_list) {
    if (n->kind == SALTO_CFG_SCALAR) {
        fputc(' ', f);
        write_scalar(f, n->text, n->quoted);
        fputc('\n', f);
    } else if (n->n == 0) {
        fputs(n->kind == SALTO_CFG_MAP ? " {}\n" : " []\n", f);
    } else if (flow_list(n)) {
        for (int i = 0; i < n->n; i++) fprintf(f, "%s%s", i ? ", " : " [", n->child[i]->text);
        fputs("]\n", f);
    } else if (in_list && n->kind == SALTO_CFG_MAP) {
        fputc(' ', f);
        write_node(f, n, indent + 2, 1);
    } else {
        fputc('\n', f);
        write_node(f, n, indent + 2, 0);
    }
}


static void write_node(FILE* f, const salto_cfg_node* n, int indent, int inline_first) {
    if (n->kind == SALTO_CFG_SCALAR) {
        fprintf(f, "%*s", indent, "");
        write_scalar(f, n->text, n->quoted);
        fputc('\n', f);
        return;
    }
    if (n->n == 0) {
        fprintf(f, "%*s%s\n", indent, "", n->kind == SALTO_CFG_MAP ? "{}" : "[]");
        return;
    }
    for (int i = 0; i < n->n; i++) {
        const salto_cfg_node* c = n->child[i];
        fprintf(f, "%*s", i == 0 && inline_first ? 0 : indent, "");
        if (n->kind == SALTO_CFG_MAP) {
            write_key(f, c->key);
            fputc(':', f);
        } else {
            fputc('-', f);
        }
        write_value(f, c, indent, n->kind == SALTO_CFG_LIST);
    }
}


void salto_cfg_write(FILE* f, const salto_cfg_node* n) { write_node(f, n, 0, 0); }
