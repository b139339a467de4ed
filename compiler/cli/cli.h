/* The `pipec` command line: parses arguments and runs one command. */
#ifndef PIPEC_CLI_H
#define PIPEC_CLI_H

/* Exit status: 0 success, 1 diagnostics with errors, 2 usage or I/O error. */
int pipec_main(int argc, char **argv);

#endif
