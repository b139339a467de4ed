bundle: \
  classify.pipe \
  src/make_data.cpp \
  src/npy.hpp \
  train.py \
  evaluate.py
