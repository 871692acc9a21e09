// test_kinematics.c: placeholder
#include "test_suites.h"

Suite* kinematics_suite(void) {
    return suite_create("kinematics");
}
