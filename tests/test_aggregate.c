// test_aggregate.c: placeholder
#include "test_suites.h"

Suite* aggregate_suite(void) {
    return suite_create("aggregate");
}
