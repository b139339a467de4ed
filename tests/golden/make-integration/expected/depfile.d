bundle: \
  training.pipe \
  steps.pipe \
  src/make_points.c \
  src/line.h \
  src/fit.c \
  src/evaluate.c
