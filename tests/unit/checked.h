/* A .pipe text checked as `pipec check` checks a file, for the C unit tests
 * in tests/unit: check_text writes it to checked_dir/main.pipe (other files
 * with write_text), loads and checks it into a checked; done frees it. The
 * test sets checked_dir to a folder of its own (mkdtemp) first. Include from
 * the single .c file of a test program, after check.h. */
#ifndef PIPEC_TESTS_CHECKED_H
#define PIPEC_TESTS_CHECKED_H

#include <stdio.h>

#include "check/program.h"
#include "session/session.h"
#include "util/diag.h"

static const char *checked_dir;

typedef struct checked {
    arena a;
    source_set src;
    diag_engine d;
    program pg;
} checked;

static void write_text(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", checked_dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void check_text(checked *c, const char *text)
{
    write_text("main.pipe", text);
    arena_init(&c->a);
    source_set_init(&c->src);
    diag_init(&c->d, &c->a, &c->src);
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/main.pipe", checked_dir);
    check_options opts;
    session_check_options(&opts, false);
    bool ok = program_load(&c->pg, &c->a, &c->d, &c->src, path, &opts, err, sizeof err);
    CHECK(ok);
}

static void done(checked *c)
{
    program_free(&c->pg);
    source_set_free(&c->src);
    arena_free(&c->a);
}

#endif
