bundle: \
  ddp.pipe \
  src/make_data.c \
  src/data.c \
  src/mlp.c \
  src/formats.c \
  src/data.h \
  src/formats.h \
  src/mlp.h \
  src/train.c \
  src/compare.c
