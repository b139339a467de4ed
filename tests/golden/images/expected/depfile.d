bundle: \
  case.pipe \
  requirements.txt \
  src/prep.c \
  src/train.py
