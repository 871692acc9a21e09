// test_dynamics.c: placeholder
#include "test_suites.h"

Suite* dynamics_suite(void) {
    return suite_create("dynamics");
}
