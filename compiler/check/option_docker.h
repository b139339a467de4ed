/* @docker's options checked beyond their kinds (the CHECK column of
   pipe/settings.def names these): a requirement that is a pip option
   (E0209: pipec passes each entry to pip after `--`), and a registry that
   images could not be named under (E0201). */
#ifndef PIPEC_OPTION_DOCKER_H
#define PIPEC_OPTION_DOCKER_H

#include "option_values.h"

option_check option_check_requirements;
option_check option_check_registry;

#endif
