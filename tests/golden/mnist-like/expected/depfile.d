bundle: \
  mnist.pipe \
  src/make_data.c \
  src/formats.c \
  src/formats.h \
  src/train.c \
  src/mlp.c \
  src/train_cuda.cu \
  src/mlp.h \
  src/train_cuda.h \
  src/evaluate.c
