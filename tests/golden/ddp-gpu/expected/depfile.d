bundle: \
  ddp.pipe \
  src/gpu_steps.c \
  src/data.c \
  src/mlp.c \
  src/formats.c \
  src/data.h \
  src/formats.h \
  src/mlp.h \
  src/train_gpu.cu
