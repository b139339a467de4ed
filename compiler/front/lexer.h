/* The scanner's lifetime (lexer.l): parse_file (parse.c) opens one over a
   file's text, runs the parser, which asks it for tokens, and closes it. */
#ifndef PIPEC_LEXER_H
#define PIPEC_LEXER_H

#include "parse.h"

/* A scanner over p->src's text, in p->scanner; -1 when there is no memory
   for it. */
int lex_open(parse_ctx *p);
/* Frees the scanner and its buffer. */
void lex_close(parse_ctx *p);

#endif
