// config.h: YAML documents read into a tree of values that remember where they were written
//
// A document is read with libyaml into maps, lists and scalars. Every node keeps its
// salto_src_loc (the file name is owned by the tree, line and column are 1-based), so that the
// typed getters below, and later semantic checks, report errors as `file:line:col: error: ...`
// at the value itself. The tree is read-only once loaded.
//
// What the reader accepts and rejects:
// - one document per file (a second document is an error); an empty file is a null scalar
//   at 1:1;
// - map keys are scalars; a key given twice in one map is an error at the second key;
// - anchors and aliases: an alias is replaced by a copy of the anchored value (the copy's
//   top node is located at the alias, its children where the anchor's children were written);
// - at most SALTO_CFG_MAX_DEPTH levels of nesting and SALTO_CFG_MAX_NODES nodes (aliases
//   count once per use), so that no input can exhaust the stack or the memory;
// - YAML syntax and encoding errors are SALTO_ERR_SYNTAX at the line and column libyaml gives.
#ifndef SALTO_CONFIG_H
#define SALTO_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "salto/base.h"

#define SALTO_CFG_MAX_DEPTH 128     // nesting levels of lists and maps
#define SALTO_CFG_MAX_NODES 200000  // nodes in one document, alias copies included

typedef enum salto_cfg_kind {
    SALTO_CFG_SCALAR = 0, // text (numbers, strings, booleans and null are all scalars)
    SALTO_CFG_LIST,       // YAML sequence
    SALTO_CFG_MAP         // YAML mapping with scalar keys, in file order
} salto_cfg_kind;

typedef struct salto_cfg_node salto_cfg_node;

struct salto_cfg_node {
    salto_cfg_kind kind;
    salto_src_loc loc;             // where the value starts
    const salto_cfg_node* parent;  // enclosing list or map; NULL for the document
    int index;                     // position in the parent (0-based)
    const char* key;               // map entries: the key; NULL otherwise
    salto_src_loc key_loc;         // map entries: where the key starts
    const char* text;              // scalars: the text as written ("" when empty); else NULL
    int quoted;                    // scalars: 1 when quoted, a block scalar or tagged !!str
    int n;                         // lists and maps: number of children; scalars: 0
    salto_cfg_node** child;        // lists and maps: children in file order    (n)
};

typedef struct salto_cfg salto_cfg;  // a document; owns its nodes, strings and file name

// Reads the YAML file at path. Returns a new tree owned by the caller (release with
// salto_cfg_destroy), or NULL with err filled: SALTO_ERR_IO when the file cannot be read
// (the message names the path), SALTO_ERR_SYNTAX when it is not YAML, SALTO_ERR_INVALID for
// duplicate keys, non-scalar keys, too deep or too large documents, SALTO_ERR_NOMEM.
salto_cfg* salto_cfg_load(const char* path, salto_error* err);

// Same, from len bytes of text; name is used as the file name in locations.
salto_cfg* salto_cfg_parse(const char* text, size_t len, const char* name, salto_error* err);

void salto_cfg_destroy(salto_cfg* cfg); // accepts NULL

// The document's top node (never NULL for a loaded tree).
const salto_cfg_node* salto_cfg_root(const salto_cfg* cfg);

// The file name given to salto_cfg_load or salto_cfg_parse (owned by the tree).
const char* salto_cfg_file(const salto_cfg* cfg);

// ---- typed access; each reports a wrong type at the value's own location ----

// Child of a map by key; NULL when map is NULL, not a map, or has no such key.
const salto_cfg_node* salto_cfg_child(const salto_cfg_node* map, const char* key);

// Like salto_cfg_child, but a missing key is SALTO_ERR_INVALID "missing required key 'key'"
// at the map. Returns NULL on error.
const salto_cfg_node* salto_cfg_require(const salto_cfg_node* map, const char* key,
                                        salto_error* err);

// 1 for a null scalar: empty and unquoted, or ~, null, Null, NULL.
int salto_cfg_is_null(const salto_cfg_node* n);

// SALTO_ERR_INVALID unless n is of the given kind ("expected a map for 'joint', found ...").
salto_status salto_cfg_expect(const salto_cfg_node* n, salto_cfg_kind kind, salto_error* err);

// A finite number written as a plain decimal scalar (1, -2.5, 3e-4; no quotes, no .inf or
// .nan, no hexadecimal).
salto_status salto_cfg_number(const salto_cfg_node* n, double* out, salto_error* err);

// An integer (plain decimal scalar) within the range of int.
salto_status salto_cfg_int(const salto_cfg_node* n, int* out, salto_error* err);

// Any scalar that is not null; *out is owned by the tree.
salto_status salto_cfg_string(const salto_cfg_node* n, const char** out, salto_error* err);

// true / false (also True, TRUE, False, FALSE), unquoted; *out is 1 or 0.
salto_status salto_cfg_bool(const salto_cfg_node* n, int* out, salto_error* err);

// A list of exactly len numbers.                                                  out: (len)
salto_status salto_cfg_vec(const salto_cfg_node* n, double* out, int len, salto_error* err);

// Checks the keys of a map against allowed (NULL-terminated). An unknown key is
// SALTO_ERR_INVALID at the key, with the note "did you mean 'xxx'?" when an allowed key is
// within edit distance 2 or equal ignoring case.
salto_status salto_cfg_check_keys(const salto_cfg_node* map, const char* const* allowed,
                                  salto_error* err);

// The index of n's string in names (NULL-terminated). Anything else is SALTO_ERR_INVALID at
// n: "unknown <what> 'x' (expected one of: a, b, c)", with a did-you-mean note when one is close.
salto_status salto_cfg_enum(const salto_cfg_node* n, const char* const* names, const char* what,
                            int* out, salto_error* err);

// The candidate closest to word: equal ignoring case, or else the one at the smallest
// Levenshtein distance when that distance is at most 2 (the first such in the list on ties).
// NULL when none is close. candidates: (ncand), NULL entries are skipped.
const char* salto_cfg_suggest(const char* word, const char* const* candidates, int ncand);

// Writes a short description of n for messages: "'heavy'", "null", "a list", "a map".
void salto_cfg_describe(const salto_cfg_node* n, char* buf, size_t size);

// Writes how n is named in messages: "'mass'", "item 2 of 'com'", "the document".
void salto_cfg_name(const salto_cfg_node* n, char* buf, size_t size);

// Sets the single value at a dotted path ("phases.flight.duration", "solver.hessian") to
// value, as if the file had said so: map keys, and in lists an index or the name of the
// element whose "name" is it. Missing map keys are added (maps on the way). The value keeps
// the location of the one it replaces (an added key: its map's), so that errors about it still
// point into the file. A value in YAML flow style ("[1, 2]", "{a: 1}") is parsed and put in
// the place (any kind of value); a list or map set to a single value must be set to null
// ("null", "~" or ""), which drops its contents. SALTO_ERR_INVALID when the path leads
// nowhere or the value does not parse.
salto_status salto_cfg_set(salto_cfg* cfg, const char* path, const char* value, salto_error* err);

// Writes the value n (a document's root, or any node) as YAML in block style, two spaces an
// indentation level: scalars written plain are written plain as they were (so they mean the
// same), quoted ones double-quoted with escapes, empty lists and maps as [] and {}. Reading
// the output gives the same tree (kinds, keys, texts, whether quoted) but for locations.
void salto_cfg_write(FILE* f, const salto_cfg_node* n);

#endif
