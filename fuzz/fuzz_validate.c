// fuzz_validate.c: libFuzzer harness for salto validate on fuzzed motions: any bytes, read as a
// motion.json or as CSV frames on the Luxo jump or the high-bar dismount (the first byte
// chooses: bit 0 the format, bit 1 the problem, bits 2-3 the re-simulation's integrator, bit 7
// raw values instead of a file: fuzz_motion_open.h), then what opens validated as
// apps/cmd_validate.c does it, coarsely (one sample per slice interval) so that an input takes
// milliseconds. The motion either validates (its verdict pass or fail) or fails with an error
// that says why; never a crash or a leak, and never a pass on a verdict that involves a NaN (a
// check's worst or RMS), nor a validation returned with f0 or a joint torque not finite.
#include "fuzz_motion_open.h"
#include "salto/validate.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv);

static fuzz_problem problems[2] = {{.rel = "problems/luxo_jump.yaml"},
                                   {.rel = "problems/highbar_dismount.yaml"}};

// the checks a validation of each problem reports with each integrator (those that apply to its
// phases: which do depends on the problem, not on the motion's values), from its initial guess
static int nchecks[2][SALTO_INTEGRATOR_COUNT];

static salto_status validate(const salto_problem_desc* p, salto_state_fn state, void* ctx,
                             salto_integrator integrator, salto_validation* v, salto_error* err) {
    salto_validate_opts opts;
    salto_validate_opts_from_problem(&opts, p);
    opts.density = 1, opts.integrator = integrator, opts.step = 0.0;
    if (salto_validate_check_opts(p, &opts, err) != SALTO_OK) abort(); // the problem's own
    return salto_validate_motion(p, state, ctx, &opts, v, err);
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
    (void)argc, (void)argv;
    fuzz_problems_load(problems, 2);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < SALTO_INTEGRATOR_COUNT; i++) {
            salto_nlp_motion nm = {problems[k].nlp, problems[k].x0};
            salto_validation v;
            salto_error err = {0};
            if (validate(problems[k].p, salto_nlp_motion_state, &nm, (salto_integrator)i, &v, &err) != SALTO_OK) abort();
            nchecks[k][i] = v.ncheck;
            salto_validation_free(&v);
        }
    }
    return 0;
}

// a verdict with a NaN hidden in it is a finding: a check that passes on a NaN, a check left
// out (every sample of it NaN: validate.c skips NaN violations as checks that do not apply;
// pass or fail, the verdict would not say so), f0 or a torque not finite
static void check_verdict(const salto_problem_desc* p, const salto_validation* v, int ncheck) {
    if (v->ncheck != ncheck) {
        fprintf(stderr, "fuzz_validate: %d checks reported (pass %d), where the problem has %d\n",
                v->ncheck, v->pass, ncheck);
        __builtin_trap();
    }
    int npassed = 0, njudged = 0;
    for (int c = 0; c < v->ncheck; c++) {
        const salto_check* k = &v->check[c];
        if (!k->judged) continue;
        njudged++;
        npassed += k->pass;
        if (k->pass && (isnan(k->worst) || isnan(k->rms) || !(k->worst <= k->threshold))) {
            fprintf(stderr, "fuzz_validate: check %s in phase '%s' passes on worst %g, rms %g\n",
                    salto_check_name(k->kind), p->phases[k->phase].name, k->worst, k->rms);
            __builtin_trap();
        }
    }
    if (njudged != v->njudged || npassed != v->npassed || v->pass != (npassed == njudged)) {
        fprintf(stderr, "fuzz_validate: %d of %d checks pass, the validation says %d of %d (pass %d)\n",
                npassed, njudged, v->npassed, v->njudged, v->pass);
        __builtin_trap();
    }
    // validate.h: SALTO_ERR_NUMERIC if a state or force is not finite, so a validation that
    // returns has f0 and the torques finite
    if (!fuzz_finite(v->f0, (size_t)v->nsample * 6) || !fuzz_finite(v->tau, (size_t)v->nsample * v->nv)) {
        fprintf(stderr, "fuzz_validate: the validation returned with f0 or a torque not finite\n");
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const int csv = data[0] & 1;
    const int pk = (data[0] >> 1) & 1;
    const fuzz_problem* fp = &problems[pk];
    static const salto_integrator integrators[4] = {SALTO_INTEGRATOR_RK4, SALTO_INTEGRATOR_EULER,
                                                    SALTO_INTEGRATOR_NONE, SALTO_INTEGRATOR_RK4};
    const salto_integrator integrator = integrators[(data[0] >> 2) & 3];
    static char paths[2][600];
    if (!paths[csv][0]) snprintf(paths[csv], sizeof paths[csv], "%s%s", fuzz_input_path(""), csv ? ".csv" : ".json");
    fuzz_motion fm;
    int opened;
    if (data[0] & 0x80) {
        opened = fuzz_motion_values(&fm, data + 1, size - 1, fp);
    } else {
        fuzz_write(paths[csv], data + 1, size - 1);
        opened = fuzz_motion_open(&fm, paths[csv], csv, fp);
    }
    if (opened) {
        const salto_problem_desc* p = fm.p;
        salto_validation v;
        memset(&v, 0, sizeof v);
        salto_error err = {0};
        if (validate(p, fm.state, fm.ctx, integrator, &v, &err) != SALTO_OK) {
            fuzz_check_error(&err);
        } else {
            check_verdict(p, &v, nchecks[pk][integrator]);
            // the verdict's words and validation.json, as salto validate writes them (the PNGs
            // are cairo's drawing: left out for speed)
            if (!salto_validation_verdict(p, &v)) abort();
            for (int c = 0; c < v.ncheck; c++) (void)salto_check_at(p->model, &v.check[c]);
            char json[700];
            snprintf(json, sizeof json, "%s.validation.json", paths[csv]);
            salto_error e2 = {0};
            if (salto_validation_write_json(p, &v, paths[csv], json, &e2) != SALTO_OK) fuzz_check_error(&e2);
        }
        salto_validation_free(&v);
    }
    fuzz_motion_close(&fm);
    return 0;
}
