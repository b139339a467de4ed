/* parse_file: the parser over the scanner's tokens. Apart from lexer.l, so
   that the generated lexer only gives tokens and the generated parser only
   asks for them (no call goes back the other way). */
#include "parse.h"

#include <stdio.h>
#include <stdlib.h>

#include "lexer.h"
#include "parser.h"

ast_file *parse_file(arena *a, diag_engine *d, source_set *sources, uint32_t file)
{
    parse_ctx p = {0};
    p.arena = a;
    p.diag = d;
    p.src = sources->files[file];
    p.file = file;
    p.result = arena_alloc(a, sizeof *p.result);
    p.result->file = file;
    if (lex_open(&p) != 0) {
        fprintf(stderr, "pipec: out of memory\n");
        exit(2);
    }
    pipe_yyparse(p.scanner, &p);
    lex_close(&p);
    return p.result;
}
