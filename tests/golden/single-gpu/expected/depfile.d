bundle: \
  train.pipe \
  steps/data.pipe \
  steps/load_data.c \
  steps/dataset.h \
  steps/split.c \
  src/train.c \
  src/train_kernels.cu \
  src/model.h \
  src/train_kernels.h \
  src/evaluate.c
