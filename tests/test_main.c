// test_main.c: the Check runner for every suite (select one with CK_RUN_SUITE=name)
#include <stdlib.h>

#include "test_suites.h"

int main(void) {
    SRunner* sr = srunner_create(base_suite());
    srunner_add_suite(sr, config_suite());
    srunner_add_suite(sr, character_suite());
    srunner_add_suite(sr, spatial_suite());
    srunner_add_suite(sr, model_suite());
    srunner_add_suite(sr, kinematics_suite());
    srunner_add_suite(sr, dynamics_suite());
    srunner_add_suite(sr, aggregate_suite());
    srunner_add_suite(sr, problem_suite());
    srunner_add_suite(sr, bspline_suite());
    srunner_add_suite(sr, nlp_suite());
    srunner_add_suite(sr, motion_suite());
    srunner_add_suite(sr, output_suite());
    srunner_add_suite(sr, validate_suite());
    srunner_add_suite(sr, sim_suite());
    srunner_add_suite(sr, ragdoll_suite());
    srunner_add_suite(sr, react_suite());
    srunner_add_suite(sr, export_suite());
    srunner_add_suite(sr, batch_suite());
    srunner_add_suite(sr, kkt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
