bundle: \
  pretrain.pipe \
  src/tokenize.c \
  src/lm_format.h \
  src/train_lm.c \
  src/lm_kernels.cu \
  src/lm_kernels.h \
  src/export.c
