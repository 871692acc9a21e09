// test_suites.h: one Check suite per library module
#ifndef SALTO_TEST_SUITES_H
#define SALTO_TEST_SUITES_H

#include <check.h>

Suite* base_suite(void);
Suite* config_suite(void);
Suite* character_suite(void);
Suite* spatial_suite(void);
Suite* model_suite(void);
Suite* kinematics_suite(void);
Suite* dynamics_suite(void);
Suite* aggregate_suite(void);
Suite* problem_suite(void);
Suite* bspline_suite(void);
Suite* nlp_suite(void);
Suite* motion_suite(void);
Suite* output_suite(void);
Suite* validate_suite(void);
Suite* sim_suite(void);
Suite* ragdoll_suite(void);
Suite* react_suite(void);
Suite* export_suite(void);
Suite* batch_suite(void);
Suite* kkt_suite(void);

#endif
