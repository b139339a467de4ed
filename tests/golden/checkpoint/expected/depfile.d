bundle: \
  case.pipe \
  src/steps.c \
  tools/finetune.py
