#include "cli/cli.h"

int main(int argc, char **argv) { return pipec_main(argc, argv); }
