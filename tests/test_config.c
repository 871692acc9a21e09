// test_config.c: the YAML tree: locations, typed getters, key checks, hostile input
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "salto/config.h"
#include "test_suites.h"
#include "test_util.h"

// parses text (must succeed); aborts the test otherwise
static salto_cfg* parse_ok(const char* text) {
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_parse(text, strlen(text), "t.yaml", &err);
    if (!cfg) {
        char msg[1024];
        salto_error_format(&err, msg, sizeof msg);
        ck_abort_msg("could not parse: %s", msg);
    }
    return cfg;
}


// parses text that must fail with status s at line:col with msg in the message
static void parse_fails(const char* text, size_t len, salto_status s, int line, int col,
                        const char* msg) {
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_parse(text, len, "t.yaml", &err);
    char buf[1024];
    salto_error_format(&err, buf, sizeof buf);
    ck_assert_msg(cfg == NULL, "parsed, but expected: %s", msg);
    ck_assert_msg(err.status == s, "status %d, expected %d: %s", err.status, s, buf);
    if (line > 0) {
        ck_assert_msg(err.where.line == line && err.where.col == col,
                      "at %d:%d, expected %d:%d: %s", err.where.line, err.where.col, line, col,
                      buf);
        ck_assert_str_eq(err.where.file, "t.yaml");
    }
    ck_assert_msg(strstr(err.msg, msg), "'%s' not in: %s", msg, buf);
}


static void check_err(const salto_error* err, int line, int col, const char* text) {
    char buf[1024];
    salto_error_format(err, buf, sizeof buf);
    ck_assert_msg(err->status == SALTO_ERR_INVALID, "status %d: %s", err->status, buf);
    ck_assert_msg(err->where.line == line && err->where.col == col, "at %d:%d, expected %d:%d: %s",
                  err->where.line, err->where.col, line, col, buf);
    ck_assert_msg(strstr(buf, text), "'%s' not in: %s", text, buf);
}

// ---- structure and locations ----

START_TEST(tree_and_locations) {
    const char* text = "name: walk\n"
                       "list: [1, 2.5, x]\n"
                       "nested:\n"
                       "  - a: 1\n"
                       "    b: {c: 'quoted'}\n"
                       "  - ~\n";
    salto_cfg* cfg = parse_ok(text);
    const salto_cfg_node* root = salto_cfg_root(cfg);
    ck_assert_str_eq(salto_cfg_file(cfg), "t.yaml");
    ck_assert_int_eq(root->kind, SALTO_CFG_MAP);
    ck_assert_int_eq(root->n, 3);
    ck_assert_ptr_null(root->parent);

    const salto_cfg_node* name = salto_cfg_child(root, "name");
    ck_assert_int_eq(name->kind, SALTO_CFG_SCALAR);
    ck_assert_str_eq(name->text, "walk");
    ck_assert_int_eq(name->loc.line, 1);
    ck_assert_int_eq(name->loc.col, 7);
    ck_assert_int_eq(name->key_loc.line, 1);
    ck_assert_int_eq(name->key_loc.col, 1);
    ck_assert_ptr_eq(name->loc.file, salto_cfg_file(cfg));

    const salto_cfg_node* list = salto_cfg_child(root, "list");
    ck_assert_int_eq(list->kind, SALTO_CFG_LIST);
    ck_assert_int_eq(list->n, 3);
    ck_assert_int_eq(list->loc.line, 2);
    ck_assert_int_eq(list->loc.col, 7);
    ck_assert_int_eq(list->child[2]->loc.col, 16);
    ck_assert_int_eq(list->child[2]->index, 2);
    ck_assert_ptr_eq(list->child[2]->parent, list);

    const salto_cfg_node* nested = salto_cfg_child(root, "nested");
    ck_assert_int_eq(nested->n, 2);
    const salto_cfg_node* c = salto_cfg_child(salto_cfg_child(nested->child[0], "b"), "c");
    ck_assert_str_eq(c->text, "quoted");
    ck_assert_int_eq(c->quoted, 1);
    ck_assert_int_eq(c->loc.line, 5);
    ck_assert_int_eq(c->loc.col, 12);
    ck_assert(salto_cfg_is_null(nested->child[1]));
    ck_assert(!salto_cfg_is_null(c));

    char buf[256];
    salto_cfg_name(c, buf, sizeof buf);
    ck_assert_str_eq(buf, "'c'");
    salto_cfg_name(list->child[1], buf, sizeof buf);
    ck_assert_str_eq(buf, "item 2 of 'list'");
    salto_cfg_name(nested->child[0], buf, sizeof buf);
    ck_assert_str_eq(buf, "item 1 of 'nested'");
    salto_cfg_name(root, buf, sizeof buf);
    ck_assert_str_eq(buf, "the document");

    ck_assert_ptr_null(salto_cfg_child(root, "missing"));
    ck_assert_ptr_null(salto_cfg_child(list, "name"));
    ck_assert_ptr_null(salto_cfg_child(NULL, "name"));
    salto_cfg_destroy(cfg);
    salto_cfg_destroy(NULL);
}
END_TEST


START_TEST(empty_and_scalar_documents) {
    salto_cfg* cfg = parse_ok("");
    const salto_cfg_node* root = salto_cfg_root(cfg);
    ck_assert_int_eq(root->kind, SALTO_CFG_SCALAR);
    ck_assert(salto_cfg_is_null(root));
    ck_assert_int_eq(root->loc.line, 1);
    ck_assert_int_eq(root->loc.col, 1);
    salto_cfg_destroy(cfg);

    cfg = parse_ok("# only a comment\n");
    ck_assert(salto_cfg_is_null(salto_cfg_root(cfg)));
    salto_cfg_destroy(cfg);

    cfg = parse_ok("42\n");
    double x = 0;
    salto_error err = {0};
    ck_assert_int_eq(salto_cfg_number(salto_cfg_root(cfg), &x, &err), SALTO_OK);
    ck_assert(x == 42.0);
    salto_cfg_destroy(cfg);

    // NULL text is an empty document
    cfg = salto_cfg_parse(NULL, 0, "t.yaml", &err);
    ck_assert_ptr_nonnull(cfg);
    salto_cfg_destroy(cfg);
}
END_TEST

// ---- typed getters ----

START_TEST(numbers) {
    salto_cfg* cfg = parse_ok("v: [1, -2.5, 3e-4, +7, .5, 1., -0, 1E3]\n");
    const salto_cfg_node* v = salto_cfg_child(salto_cfg_root(cfg), "v");
    const double want[8] = {1, -2.5, 3e-4, 7, 0.5, 1.0, -0.0, 1000};
    double got[8];
    salto_error err = {0};
    ck_assert_int_eq(salto_cfg_vec(v, got, 8, &err), SALTO_OK);
    for (int i = 0; i < 8; i++) ck_assert(memcmp(&got[i], &want[i], sizeof(double)) == 0);
    salto_cfg_destroy(cfg);

    // %.17g text reads back bit for bit
    char text[64];
    const double pi = 3.14159265358979323846;
    snprintf(text, sizeof text, "%.17g\n", pi / 7);
    cfg = parse_ok(text);
    double x = 0;
    ck_assert_int_eq(salto_cfg_number(salto_cfg_root(cfg), &x, &err), SALTO_OK);
    ck_assert(x == pi / 7);
    salto_cfg_destroy(cfg);
}
END_TEST


START_TEST(number_errors) {
    const char* text = "a: heavy\n"
                       "b:\n"
                       "c: '1.5'\n"
                       "d: .inf\n"
                       "e: 1e999\n"
                       "f: 0x10\n"
                       "g: [1]\n"
                       "h: nan\n"
                       "i: 1.5.2\n"
                       "j: e5\n";
    salto_cfg* cfg = parse_ok(text);
    const salto_cfg_node* root = salto_cfg_root(cfg);
    static const struct {
        const char* key;
        const char* msg;
    } cases[] = {
        {"a", "expected a number for 'a', found 'heavy'"},
        {"b", "expected a number for 'b', found nothing (null)"},
        {"c", "found the string '1.5'"},
        {"d", "found '.inf'"},
        {"e", "expected a finite number for 'e', found '1e999'"},
        {"f", "found '0x10'"},
        {"g", "found a list of 1 item"},
        {"h", "found 'nan'"},
        {"i", "found '1.5.2'"},
        {"j", "found 'e5'"},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        const salto_cfg_node* n = salto_cfg_child(root, cases[i].key);
        salto_error err = {0};
        double x = 123.0;
        ck_assert_int_eq(salto_cfg_number(n, &x, &err), SALTO_ERR_INVALID);
        ck_assert(x == 123.0);
        check_err(&err, i + 1, cases[i].key[0] == 'b' ? 3 : 4, cases[i].msg);
    }
    salto_cfg_destroy(cfg);
}
END_TEST


START_TEST(integers_strings_bools) {
    const char* text = "i: 42\n"
                       "j: -7\n"
                       "k: 4.5\n"
                       "l: 99999999999\n"
                       "s: hello world\n"
                       "q: ''\n"
                       "n: null\n"
                       "t: true\n"
                       "f: False\n"
                       "y: yes\n"
                       "m: {a: 1}\n";
    salto_cfg* cfg = parse_ok(text);
    const salto_cfg_node* r = salto_cfg_root(cfg);
    salto_error err = {0};
    int v = 0;
    ck_assert_int_eq(salto_cfg_int(salto_cfg_child(r, "i"), &v, &err), SALTO_OK);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(salto_cfg_int(salto_cfg_child(r, "j"), &v, &err), SALTO_OK);
    ck_assert_int_eq(v, -7);
    ck_assert_int_eq(salto_cfg_int(salto_cfg_child(r, "k"), &v, &err), SALTO_ERR_INVALID);
    check_err(&err, 3, 4, "expected an integer for 'k', found '4.5'");
    salto_error e2 = {0};
    ck_assert_int_eq(salto_cfg_int(salto_cfg_child(r, "l"), &v, &e2), SALTO_ERR_INVALID);
    check_err(&e2, 4, 4, "within the range of int");

    const char* s = NULL;
    salto_error e3 = {0};
    ck_assert_int_eq(salto_cfg_string(salto_cfg_child(r, "s"), &s, &e3), SALTO_OK);
    ck_assert_str_eq(s, "hello world");
    ck_assert_int_eq(salto_cfg_string(salto_cfg_child(r, "q"), &s, &e3), SALTO_OK);
    ck_assert_str_eq(s, "");
    ck_assert_int_eq(salto_cfg_string(salto_cfg_child(r, "n"), &s, &e3), SALTO_ERR_INVALID);
    check_err(&e3, 7, 4, "expected a string for 'n', found nothing (null)");
    salto_error e4 = {0};
    ck_assert_int_eq(salto_cfg_string(salto_cfg_child(r, "m"), &s, &e4), SALTO_ERR_INVALID);
    check_err(&e4, 11, 4, "found a map");

    int b = -1;
    salto_error e5 = {0};
    ck_assert_int_eq(salto_cfg_bool(salto_cfg_child(r, "t"), &b, &e5), SALTO_OK);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(salto_cfg_bool(salto_cfg_child(r, "f"), &b, &e5), SALTO_OK);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(salto_cfg_bool(salto_cfg_child(r, "y"), &b, &e5), SALTO_ERR_INVALID);
    check_err(&e5, 10, 4, "expected true or false for 'y', found 'yes'");

    salto_error e6 = {0};
    ck_assert_int_eq(salto_cfg_expect(salto_cfg_child(r, "s"), SALTO_CFG_LIST, &e6),
                     SALTO_ERR_INVALID);
    check_err(&e6, 5, 4, "expected a list for 's', found 'hello world'");
    salto_cfg_destroy(cfg);
}
END_TEST


START_TEST(vectors) {
    const char* text = "ok: [1, 2, 3]\n"
                       "short: [1, 2]\n"
                       "bad: [1, x, 3]\n"
                       "scalar: 3\n"
                       "nested: [[1, 2, 3]]\n";
    salto_cfg* cfg = parse_ok(text);
    const salto_cfg_node* r = salto_cfg_root(cfg);
    double v[3];
    salto_error err = {0};
    ck_assert_int_eq(salto_cfg_vec(salto_cfg_child(r, "ok"), v, 3, &err), SALTO_OK);
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3);
    ck_assert_int_eq(salto_cfg_vec(salto_cfg_child(r, "short"), v, 3, &err), SALTO_ERR_INVALID);
    check_err(&err, 2, 8, "expected a list of 3 numbers for 'short', found a list of 2 items");
    salto_error e2 = {0};
    ck_assert_int_eq(salto_cfg_vec(salto_cfg_child(r, "bad"), v, 3, &e2), SALTO_ERR_INVALID);
    check_err(&e2, 3, 10, "expected a number for item 2 of 'bad', found 'x'");
    salto_error e3 = {0};
    ck_assert_int_eq(salto_cfg_vec(salto_cfg_child(r, "scalar"), v, 3, &e3), SALTO_ERR_INVALID);
    check_err(&e3, 4, 9, "found '3'");
    salto_error e4 = {0};
    ck_assert_int_eq(salto_cfg_vec(salto_cfg_child(r, "nested"), v, 1, &e4), SALTO_ERR_INVALID);
    check_err(&e4, 5, 10, "expected a number for item 1 of 'nested', found a list of 3 items");
    salto_cfg_destroy(cfg);
}
END_TEST


START_TEST(required_keys) {
    salto_cfg* cfg = parse_ok("body:\n  name: arm\n  com: [0, 0, 0]\n");
    const salto_cfg_node* body = salto_cfg_child(salto_cfg_root(cfg), "body");
    salto_error err = {0};
    ck_assert_ptr_nonnull(salto_cfg_require(body, "name", &err));
    ck_assert_ptr_null(salto_cfg_require(body, "mass", &err));
    check_err(&err, 2, 3, "missing required key 'mass' in 'body'");
    salto_error e2 = {0};
    ck_assert_ptr_null(salto_cfg_require(salto_cfg_child(body, "name"), "x", &e2));
    check_err(&e2, 2, 9, "expected a map for 'name'");
    salto_cfg_destroy(cfg);
}
END_TEST

// ---- keys ----

START_TEST(unknown_keys) {
    static const char* const allowed[] = {"name", "mass", "com", "inertia", NULL};
    salto_cfg* cfg = parse_ok("a: {name: x, mas: 1}\n"
                              "b: {name: x, COM: 1}\n"
                              "c: {name: x, colour: red}\n"
                              "d: {name: x, inertia: 1, masss: 2}\n");
    const salto_cfg_node* r = salto_cfg_root(cfg);
    salto_error err = {0};
    ck_assert_int_eq(salto_cfg_check_keys(salto_cfg_child(r, "a"), allowed, &err),
                     SALTO_ERR_INVALID);
    check_err(&err, 1, 14, "unknown key 'mas' in 'a'");
    ck_assert_str_eq(err.note, "did you mean 'mass'?");

    salto_error e2 = {0};
    ck_assert_int_eq(salto_cfg_check_keys(salto_cfg_child(r, "b"), allowed, &e2),
                     SALTO_ERR_INVALID);
    check_err(&e2, 2, 14, "unknown key 'COM'");
    ck_assert_str_eq(e2.note, "did you mean 'com'?");

    salto_error e3 = {0};
    ck_assert_int_eq(salto_cfg_check_keys(salto_cfg_child(r, "c"), allowed, &e3),
                     SALTO_ERR_INVALID);
    check_err(&e3, 3, 14, "unknown key 'colour'");
    ck_assert_str_eq(e3.note, "");

    salto_error e4 = {0};
    ck_assert_int_eq(salto_cfg_check_keys(salto_cfg_child(r, "d"), allowed, &e4),
                     SALTO_ERR_INVALID);
    check_err(&e4, 4, 26, "unknown key 'masss'");
    ck_assert_str_eq(e4.note, "did you mean 'mass'?");

    // the note is formatted on its own line at the same place
    char buf[512];
    salto_error_format(&e4, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "\nt.yaml:4:26: note: did you mean 'mass'?"), "%s", buf);
    salto_cfg_destroy(cfg);
}
END_TEST


START_TEST(suggestions) {
    static const char* const words[] = {"revolute", "prismatic", NULL, "mass", "com"};
    ck_assert_str_eq(salto_cfg_suggest("revolut", words, 5), "revolute");
    ck_assert_str_eq(salto_cfg_suggest("prismtaic", words, 5), "prismatic"); // 2 edits
    ck_assert_str_eq(salto_cfg_suggest("MASS", words, 5), "mass");
    ck_assert_str_eq(salto_cfg_suggest("cm", words, 5), "com");
    ck_assert_ptr_null(salto_cfg_suggest("helical", words, 5));
    ck_assert_ptr_null(salto_cfg_suggest("x", NULL, 0));
    ck_assert_ptr_null(salto_cfg_suggest(NULL, words, 5));

    // very long words never match and never overflow
    char longw[300];
    memset(longw, 'a', sizeof longw - 1);
    longw[sizeof longw - 1] = '\0';
    const char* const lw[] = {longw};
    ck_assert_ptr_null(salto_cfg_suggest("aaa", lw, 1));
    ck_assert_ptr_eq(salto_cfg_suggest(longw, lw, 1), longw); // equal ignoring case
}
END_TEST


START_TEST(enums) {
    static const char* const shapes[] = {"capsule", "box", "sphere", NULL};
    salto_cfg* cfg = parse_ok("a: box\nb: shpere\nc: [box]\nd: cylinder\n");
    const salto_cfg_node* r = salto_cfg_root(cfg);
    int k = -1;
    salto_error e = {0};
    ck_assert_int_eq(salto_cfg_enum(salto_cfg_child(r, "a"), shapes, "shape", &k, &e), SALTO_OK);
    ck_assert_int_eq(k, 1);

    salto_error e2 = {0};
    ck_assert_int_eq(salto_cfg_enum(salto_cfg_child(r, "b"), shapes, "shape", &k, &e2),
                     SALTO_ERR_INVALID);
    ck_assert_int_eq(k, 1); // untouched on error
    ck_assert_int_eq(e2.where.line, 2);
    ck_assert_int_eq(e2.where.col, 4);
    ck_assert_str_eq(e2.msg, "unknown shape 'shpere' (expected one of: capsule, box, sphere)");
    ck_assert_str_eq(e2.note, "did you mean 'sphere'?");

    salto_error e3 = {0};
    ck_assert_int_eq(salto_cfg_enum(salto_cfg_child(r, "c"), shapes, "shape", &k, &e3),
                     SALTO_ERR_INVALID);
    ck_assert_int_eq(e3.where.line, 3);

    salto_error e4 = {0};
    ck_assert_int_eq(salto_cfg_enum(salto_cfg_child(r, "d"), shapes, "shape", &k, &e4),
                     SALTO_ERR_INVALID);
    ck_assert_str_eq(e4.note, ""); // nothing close
    salto_cfg_destroy(cfg);
}
END_TEST


START_TEST(duplicate_keys) {
    const char* text = "a: 1\n"
                       "b: {x: 1, y: 2, x: 3}\n"
                       "a: 2\n";
    parse_fails(text, strlen(text), SALTO_ERR_INVALID, 2, 17,
                "duplicate key 'x' (first given on line 2)");

    // many keys: the first repeated key in file order is reported
    char big[20000];
    size_t k = 0;
    for (int i = 0; i < 1000; i++) k += (size_t)snprintf(big + k, sizeof big - k, "k%d: %d\n", i, i);
    k += (size_t)snprintf(big + k, sizeof big - k, "k500: 1\nk3: 2\n");
    parse_fails(big, k, SALTO_ERR_INVALID, 1001, 1, "duplicate key 'k500' (first given on line 501)");
}
END_TEST

// ---- errors from the reader ----

START_TEST(syntax_errors) {
    const char* t1 = "a: [1, 2\nb: 3\n";
    parse_fails(t1, strlen(t1), SALTO_ERR_SYNTAX, 2, 2, "did not find expected");
    const char* t2 = "a: 1\n  b: 2\n";
    parse_fails(t2, strlen(t2), SALTO_ERR_SYNTAX, 2, 4, "mapping values are not allowed");
    const char* t3 = "a: \"unterminated\n";
    parse_fails(t3, strlen(t3), SALTO_ERR_SYNTAX, 0, 0, "");
    const char* t4 = "a: 1\n---\nb: 2\n";
    parse_fails(t4, strlen(t4), SALTO_ERR_INVALID, 2, 1, "only one YAML document");
    const char* t5 = "? [a, b]\n: 1\n";
    parse_fails(t5, strlen(t5), SALTO_ERR_INVALID, 1, 3, "map keys must be scalars");
    const char* t6 = "a: \x01\x02\n";
    parse_fails(t6, 6, SALTO_ERR_SYNTAX, 0, 0, "invalid input");
    const char* t7 = "a: \xff\xfe\n";
    parse_fails(t7, 6, SALTO_ERR_SYNTAX, 0, 0, "invalid input");
    const char t8[] = "a: 1\0b: 2\n";
    parse_fails(t8, sizeof t8 - 1, SALTO_ERR_SYNTAX, 0, 0, "");
}
END_TEST


START_TEST(missing_file) {
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_load("/nonexistent/dir/walk.yaml", &err);
    ck_assert_ptr_null(cfg);
    ck_assert_int_eq(err.status, SALTO_ERR_IO);
    ck_assert_msg(strstr(err.msg, "/nonexistent/dir/walk.yaml"), "%s", err.msg);

    salto_error e2 = {0};
    ck_assert_ptr_null(salto_cfg_load(salto_test_root(), &e2)); // a directory
    ck_assert_int_eq(e2.status, SALTO_ERR_IO);

    salto_error e3 = {0};
    ck_assert_ptr_null(salto_cfg_load(NULL, &e3));
    ck_assert_int_eq(e3.status, SALTO_ERR_IO);
}
END_TEST


START_TEST(load_file) {
    const char* path = salto_test_path("tests/data/bad/wrong_type.yaml");
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_load(path, &err);
    ck_assert_msg(cfg != NULL, "%s", err.msg);
    ck_assert_str_eq(salto_cfg_file(cfg), path);
    const salto_cfg_node* bodies = salto_cfg_child(salto_cfg_root(cfg), "bodies");
    const salto_cfg_node* mass = salto_cfg_child(bodies->child[1], "mass");
    ck_assert_str_eq(mass->text, "heavy");
    ck_assert_int_eq(mass->loc.line, 16);
    ck_assert_int_eq(mass->loc.col, 11);
    ck_assert_str_eq(mass->loc.file, path);
    salto_cfg_destroy(cfg);
}
END_TEST

// ---- hostile input ----

START_TEST(anchors_and_aliases) {
    const char* text = "base: &b {mass: 1, com: [0, 0, 1]}\n"
                       "copy: *b\n"
                       "list: [&one 1, *one, *b]\n";
    salto_cfg* cfg = parse_ok(text);
    const salto_cfg_node* r = salto_cfg_root(cfg);
    const salto_cfg_node* copy = salto_cfg_child(r, "copy");
    ck_assert_int_eq(copy->kind, SALTO_CFG_MAP);
    ck_assert_int_eq(copy->loc.line, 2); // the copy is located at the alias
    ck_assert_int_eq(copy->loc.col, 7);
    const salto_cfg_node* com = salto_cfg_child(copy, "com");
    ck_assert_int_eq(com->n, 3);
    ck_assert_int_eq(com->loc.line, 1); // its children where they were written
    ck_assert_ptr_eq(com->parent, copy);
    ck_assert_ptr_eq(salto_cfg_child(r, "list")->child[1]->parent, salto_cfg_child(r, "list"));
    ck_assert_str_eq(salto_cfg_child(r, "list")->child[1]->text, "1");
    ck_assert_int_eq(salto_cfg_child(r, "list")->child[2]->kind, SALTO_CFG_MAP);
    salto_cfg_destroy(cfg);

    const char* t2 = "a: *nowhere\n";
    parse_fails(t2, strlen(t2), SALTO_ERR_INVALID, 1, 4, "unknown anchor 'nowhere'");
    const char* t3 = "a: &x [1, *x]\n";
    parse_fails(t3, strlen(t3), SALTO_ERR_INVALID, 1, 11, "refers to a value that contains it");
    const char* t4 = "a: &k key\n*k : 1\n";
    parse_fails(t4, strlen(t4), SALTO_ERR_INVALID, 2, 1, "aliases cannot be map keys");
    const char* t5 = "a: &k key\nb: {*k : 1}\n";
    parse_fails(t5, strlen(t5), SALTO_ERR_INVALID, 2, 5, "aliases cannot be map keys");
}
END_TEST


// "billion laughs": each level doubles ten times; the node budget stops the expansion
START_TEST(alias_bomb) {
    const char* text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                       "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                       "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    parse_fails(text, strlen(text), SALTO_ERR_INVALID, 0, 0, "more than");
}
END_TEST


START_TEST(deep_nesting) {
    // flow style
    const int depth = 100000;
    char* text = malloc(2 * (size_t)depth + 1);
    memset(text, '[', (size_t)depth);
    memset(text + depth, ']', (size_t)depth);
    text[2 * depth] = '\0';
    parse_fails(text, 2 * (size_t)depth, SALTO_ERR_INVALID, 1, SALTO_CFG_MAX_DEPTH + 1,
                "nest deeper than");
    free(text);

    // block style, just within the limit and just beyond
    for (int d = SALTO_CFG_MAX_DEPTH; d <= SALTO_CFG_MAX_DEPTH + 1; d++) {
        size_t cap = (size_t)d * (size_t)d + 100;
        char* t = malloc(cap);
        size_t k = 0;
        for (int i = 0; i < d; i++) {
            for (int s = 0; s < i; s++) t[k++] = ' ';
            k += (size_t)snprintf(t + k, cap - k, "k:\n");
        }
        for (int s = 0; s < d; s++) t[k++] = ' ';
        k += (size_t)snprintf(t + k, cap - k, "1\n");
        salto_error err = {0};
        salto_cfg* cfg = salto_cfg_parse(t, k, "t.yaml", &err);
        if (d <= SALTO_CFG_MAX_DEPTH) {
            ck_assert_msg(cfg != NULL, "depth %d: %s", d, err.msg);
        } else {
            ck_assert_ptr_null(cfg);
            ck_assert_int_eq(err.status, SALTO_ERR_INVALID);
        }
        salto_cfg_destroy(cfg);
        free(t);
    }

    // an alias whose copy would nest too deeply
    const char* t2 = "a: &a [[[[1]]]]\n";
    size_t cap = 4 * SALTO_CFG_MAX_DEPTH + 64;
    char* t3 = malloc(cap);
    size_t k = (size_t)snprintf(t3, cap, "%s", t2);
    k += (size_t)snprintf(t3 + k, cap - k, "b: ");
    for (int i = 0; i < SALTO_CFG_MAX_DEPTH - 2; i++) t3[k++] = '[';
    k += (size_t)snprintf(t3 + k, cap - k, "*a");
    for (int i = 0; i < SALTO_CFG_MAX_DEPTH - 2; i++) t3[k++] = ']';
    t3[k++] = '\n';
    parse_fails(t3, k, SALTO_ERR_INVALID, 2, SALTO_CFG_MAX_DEPTH + 2, "nest deeper than");
    free(t3);
}
END_TEST


// random bytes and mutated YAML: never a crash, always a recorded error or a tree
START_TEST(junk_never_crashes) {
    salto_test_rng rng;
    salto_test_rng_seed(&rng, 1000u + (unsigned)_i);
    const char* seed_text = "name: x\nbodies:\n  - {name: a, mass: 1, com: [0, 0, 1]}\n"
                            "  - &b {name: b, parent: a, list: [*b, 1]}\n";
    char buf[512];
    size_t len = (size_t)salto_test_uniform(&rng, 0, sizeof buf);
    int mutate = _i % 2;
    for (size_t i = 0; i < len; i++) {
        if (mutate && i < strlen(seed_text)) {
            buf[i] = seed_text[i];
            if (salto_test_uniform(&rng, 0, 1) < 0.05) {
                static const char specials[] = "[]{}:,-&*!|>'\"#%@` \n\t?";
                buf[i] = specials[(int)salto_test_uniform(&rng, 0, sizeof specials - 1)];
            }
        } else {
            buf[i] = (char)(int)salto_test_uniform(&rng, 0, 256);
        }
    }
    salto_error err = {0};
    salto_cfg* cfg = salto_cfg_parse(buf, len, "junk.yaml", &err);
    if (cfg) {
        ck_assert_int_eq(err.status, SALTO_OK);
        ck_assert_ptr_nonnull(salto_cfg_root(cfg));
    } else {
        ck_assert_int_ne(err.status, SALTO_OK);
        ck_assert(err.msg[0] != '\0');
    }
    salto_cfg_destroy(cfg);
}
END_TEST

// ---- allocation failure ----

START_TEST(parse_out_of_memory) {
    const char* text = "a: &x {b: [1, 2, 3], c: 'text'}\n"
                       "d: *x\n"
                       "e: {k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6}\n"
                       "f: [[1], [2], [3], [4], [5], [6], [7], [8], [9]]\n";
    int succeeded = 0;
    for (long n = 1; n < 10000 && !succeeded; n++) {
        salto_test_counter cnt = {0, 0, n};
        salto_alloc_hooks h = {salto_test_counting_malloc, salto_test_counting_free, &cnt};
        salto_set_alloc_hooks(&h);
        salto_error err = {0};
        salto_cfg* cfg = salto_cfg_parse(text, strlen(text), "t.yaml", &err);
        if (cfg) {
            ck_assert_msg(cnt.calls < n, "allocation %ld failed, but parsing succeeded", n);
            succeeded = 1;
        } else {
            ck_assert_msg(err.status == SALTO_ERR_NOMEM, "allocation %ld: status %d: %s", n,
                          err.status, err.msg);
        }
        salto_cfg_destroy(cfg);
        salto_set_alloc_hooks(NULL);
        ck_assert_msg(cnt.live == 0, "allocation %ld: %ld blocks leaked", n, cnt.live);
    }
    ck_assert(succeeded);
}
END_TEST


// overrides: values by dotted path, list elements by name or index, new keys and maps
START_TEST(overrides) {
    salto_cfg* cfg = parse_ok("phases:\n"
                              "  - {name: swing, duration: 0.9}\n"
                              "  - {name: flight, duration: 0.6}\n"
                              "spline: {control_points: 30}\n");
    salto_error err = {0};
    ck_assert_int_eq(salto_cfg_set(cfg, "phases.flight.duration", "0.66", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(cfg, "phases.0.duration", "1.0", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(cfg, "spline.slices", "40", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(cfg, "solver.ipopt.mu_init", "1e-3", &err), SALTO_OK);
    const salto_cfg_node* root = salto_cfg_root(cfg);
    const salto_cfg_node* ph = salto_cfg_child(root, "phases");
    ck_assert_str_eq(salto_cfg_child(ph->child[1], "duration")->text, "0.66");
    ck_assert_str_eq(salto_cfg_child(ph->child[0], "duration")->text, "1.0");
    // the replaced value keeps its place in the file; an added key takes its map's
    ck_assert_int_eq(salto_cfg_child(ph->child[1], "duration")->loc.line, 3);
    const salto_cfg_node* sp = salto_cfg_child(root, "spline");
    ck_assert_str_eq(salto_cfg_child(sp, "slices")->text, "40");
    ck_assert_int_eq(salto_cfg_child(sp, "slices")->loc.line, 4);
    const salto_cfg_node* ip = salto_cfg_child(salto_cfg_child(root, "solver"), "ipopt");
    ck_assert_int_eq(ip->kind, SALTO_CFG_MAP);
    ck_assert_str_eq(salto_cfg_child(ip, "mu_init")->text, "1e-3");
    double v = 0;
    ck_assert_int_eq(salto_cfg_number(salto_cfg_child(ip, "mu_init"), &v, &err), SALTO_OK);
    ck_assert_double_eq_tol(v, 1e-3, 1e-18);

    // paths that lead nowhere or to a list or map
    static const struct {
        const char* path;
        const char* msg;
    } bad[] = {{"phases.landing.duration", "no 'landing' here"},
               {"phases.7.duration", "no '7' here"},
               {"phases", "only single values"},
               {"spline", "or the whole map to null"},
               {"spline.control_points.x", "no 'x' here"},
               {"phases..duration", "empty"},
               {"", "PATH=VALUE"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        salto_error e2 = {0};
        ck_assert_int_eq(salto_cfg_set(cfg, bad[k].path, "1", &e2), SALTO_ERR_INVALID);
        ck_assert_msg(strstr(e2.msg, bad[k].msg), "'%s': '%s' not in '%s'", bad[k].path,
                      bad[k].msg, e2.msg);
    }
    // a list or map value (YAML flow), in place of a value or as a new key; placed where the
    // value it replaced was
    ck_assert_int_eq(salto_cfg_set(cfg, "spline.control_points", "[1, 2, 3]", &err), SALTO_OK);
    const salto_cfg_node* l = salto_cfg_child(salto_cfg_child(salto_cfg_root(cfg), "spline"), "control_points");
    ck_assert_int_eq(l->kind, SALTO_CFG_LIST);
    ck_assert_int_eq(l->n, 3);
    ck_assert_str_eq(l->child[2]->text, "3");
    ck_assert_int_eq(l->loc.line, 4);
    ck_assert_int_eq(l->child[1]->loc.line, 4);
    ck_assert_ptr_eq(l->child[1]->parent, l);
    ck_assert_int_eq(salto_cfg_set(cfg, "phases.flight", "{name: flight, duration: 0.7}", &err), SALTO_OK);
    const salto_cfg_node* fl = salto_cfg_child(salto_cfg_root(cfg), "phases")->child[1];
    ck_assert_int_eq(fl->kind, SALTO_CFG_MAP);
    ck_assert_str_eq(salto_cfg_child(fl, "duration")->text, "0.7");
    ck_assert_int_eq(salto_cfg_set(cfg, "solver.ipopt.extra", "{a: [1, 2]}", &err), SALTO_OK);
    salto_error e4 = {0};
    ck_assert_int_eq(salto_cfg_set(cfg, "spline.slices", "[1, 2", &e4), SALTO_ERR_INVALID);
    ck_assert_msg(strstr(e4.msg, "is not a YAML value"), "%s", e4.msg);

    // a map or list set to null
    ck_assert_int_eq(salto_cfg_set(cfg, "spline", "null", &err), SALTO_OK);
    ck_assert(salto_cfg_is_null(salto_cfg_child(salto_cfg_root(cfg), "spline")));
    ck_assert_int_eq(salto_cfg_set(cfg, "phases", "~", &err), SALTO_OK);
    ck_assert(salto_cfg_is_null(salto_cfg_child(salto_cfg_root(cfg), "phases")));
    // an empty value is null too (--set key=), for a map and for a single value
    ck_assert_int_eq(salto_cfg_set(cfg, "solver.ipopt", "", &err), SALTO_OK);
    const salto_cfg_node* solver = salto_cfg_child(salto_cfg_root(cfg), "solver");
    ck_assert(salto_cfg_is_null(salto_cfg_child(solver, "ipopt")));
    ck_assert_int_eq(salto_cfg_set(cfg, "character", "", &err), SALTO_OK);
    ck_assert(salto_cfg_is_null(salto_cfg_child(salto_cfg_root(cfg), "character")));
    salto_cfg_destroy(cfg);
}
END_TEST


// two trees are the same values: kinds, keys, texts and quoting, child by child
static void assert_same_tree(const salto_cfg_node* a, const salto_cfg_node* b) {
    char where[200];
    salto_cfg_name(a, where, sizeof where);
    ck_assert_msg(a->kind == b->kind, "%s: kind %d against %d", where, a->kind, b->kind);
    ck_assert_msg((a->key == NULL) == (b->key == NULL), "%s: key", where);
    if (a->key) ck_assert_str_eq(a->key, b->key);
    if (a->kind == SALTO_CFG_SCALAR) {
        ck_assert_msg(strcmp(a->text, b->text) == 0, "%s: '%s' against '%s'", where, a->text, b->text);
        ck_assert_msg(a->quoted == b->quoted, "%s: quoting of '%s'", where, a->text);
        return;
    }
    ck_assert_int_eq(a->n, b->n);
    for (int i = 0; i < a->n; i++) assert_same_tree(a->child[i], b->child[i]);
}


// salto_cfg_write: a document with every kind of value (block and flow collections, empty
// ones, nulls, quoted strings with escapes and ':' or '#', odd keys, a replaced value) reads
// back as the same tree; so does every shipped problem
START_TEST(write_round_trip) {
    const char* text =
        "name: gymnast\n"
        "mass: 1.5e2\n"
        "empty:\n"
        "tilde: ~\n"
        "quoted: \"a: b # c\"\n"
        "single: 'it''s'\n"
        "escapes: \"tab\\there\\nnew \\\"q\\\" back\\\\slash\"\n"
        "blank: \"\"\n"
        "\"odd key: 1\": yes\n"
        "list: [1, -2.5, {a: 1, b: [x, y]}, [], {}]\n"
        "nested:\n"
        "  - {name: flight, duration: 0.6}\n"
        "  - name: landing\n"
        "    contact: {type: ground, sites: [heel, toe]}\n"
        "block: |\n"
        "  two\n"
        "  lines\n";
    salto_cfg* a = parse_ok(text);
    salto_error err = {0};
    ck_assert_int_eq(salto_cfg_set(a, "nested.flight.duration", "0.7", &err), SALTO_OK);
    // values set that plain YAML cannot hold as they are (a path with " #", ": ", a leading
    // indicator or blank) are written quoted and read back the same; plain ones stay plain
    ck_assert_int_eq(salto_cfg_set(a, "name", "/tmp/a #b/c.yaml", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(a, "mass", "x: y", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(a, "tilde", "- dash", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(a, "blank", " lead", &err), SALTO_OK);
    ck_assert_int_eq(salto_cfg_set(a, "single", "-2.5e3", &err), SALTO_OK);
    ck_assert(!salto_cfg_child(salto_cfg_root(a), "single")->quoted);
    ck_assert(salto_cfg_child(salto_cfg_root(a), "name")->quoted);
    char* out = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    salto_cfg_write(f, salto_cfg_root(a));
    fclose(f);
    salto_cfg* b = parse_ok(out);
    assert_same_tree(salto_cfg_root(a), salto_cfg_root(b));
    const salto_cfg_node* d = salto_cfg_child(salto_cfg_root(b), "nested")->child[0];
    ck_assert_str_eq(salto_cfg_child(d, "duration")->text, "0.7");
    free(out);
    salto_cfg_destroy(a);
    salto_cfg_destroy(b);

    static const char* const shipped[] = {"problems/highbar_dismount.yaml", "problems/monkey_bars.yaml",
                                          "problems/leap.yaml", "problems/back_tuck.yaml",
                                          "data/characters/humanoid22.yaml"};
    for (int k = 0; k < 5; k++) {
        salto_cfg* c = salto_cfg_load(salto_test_path(shipped[k]), &err);
        ck_assert_ptr_nonnull(c);
        out = NULL;
        f = open_memstream(&out, &len);
        salto_cfg_write(f, salto_cfg_root(c));
        fclose(f);
        salto_cfg* c2 = parse_ok(out);
        assert_same_tree(salto_cfg_root(c), salto_cfg_root(c2));
        free(out);
        salto_cfg_destroy(c);
        salto_cfg_destroy(c2);
    }
}
END_TEST


Suite* config_suite(void) {
    Suite* s = suite_create("config");
    TCase* tc = tcase_create("tree");
    tcase_add_test(tc, tree_and_locations);
    tcase_add_test(tc, empty_and_scalar_documents);
    tcase_add_test(tc, load_file);
    tcase_add_test(tc, overrides);
    suite_add_tcase(s, tc);

    tc = tcase_create("getters");
    tcase_add_test(tc, numbers);
    tcase_add_test(tc, number_errors);
    tcase_add_test(tc, integers_strings_bools);
    tcase_add_test(tc, vectors);
    tcase_add_test(tc, required_keys);
    tcase_add_test(tc, unknown_keys);
    tcase_add_test(tc, suggestions);
    tcase_add_test(tc, write_round_trip);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, duplicate_keys);
    tcase_add_test(tc, syntax_errors);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, anchors_and_aliases);
    tcase_add_test(tc, enums);
    tcase_add_test(tc, alias_bomb);
    tcase_add_test(tc, deep_nesting);
    tcase_add_loop_test(tc, junk_never_crashes, 0, 400);
    tcase_add_test(tc, parse_out_of_memory);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
