/* `pipec lsp`: a language server for .pipe files on a pair of file
   descriptors (stdin and stdout). What it answers is in docs/lsp.md. */
#ifndef PIPEC_LSP_H
#define PIPEC_LSP_H

/* Serves until `exit`: 0 after a `shutdown` request, 1 without one (as the
   protocol says) or when the input ends first. */
int lsp_serve(int in_fd, int out_fd);

#endif
