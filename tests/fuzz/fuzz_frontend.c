/* Fuzz target for the whole front end: lexer, parser and checker, plus the
   formatter and every diagnostics format. Built as a libFuzzer target with
   clang (PIPEC_FUZZ=ON), and as fuzz_replay everywhere, which runs the
   same function over files given on the command line. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/diag.h"
#include "session/fmt.h"
#include "session/session.h"
#include "front/parse.h"
#include "check/program.h"
#include "util/strbuf.h"

static void discard(void *user, const char *text, size_t len)
{
    (void)user;
    (void)text;
    (void)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena a;
    source_set sources;
    diag_engine d;
    program pg;
    arena_init(&a);
    source_set_init(&sources);
    diag_init(&d, &a, &sources);
    int idx = source_add(&sources, "fuzz.pipe", (const char *)data, size);
    check_options opts;
    session_check_options(&opts, true);
    program_check_loaded(&pg, &a, &d, &sources, (uint32_t)idx, &opts);
    if (!diag_error_count(&d)) {
        strbuf out = STRBUF_INIT;
        format_file(pg.root, sources.files[idx], &out);
        sb_free(&out);
    }
    diag_flush(&d, DIAG_FORMAT_TEXT, discard, NULL);
    diag_flush(&d, DIAG_FORMAT_JSON, discard, NULL);
    diag_flush(&d, DIAG_FORMAT_SARIF, discard, NULL);
    program_free(&pg);
    source_set_free(&sources);
    arena_free(&a);
    return 0;
}
