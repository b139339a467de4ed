bundle: \
  case.pipe \
  src/steps.c \
  src/ping.c
