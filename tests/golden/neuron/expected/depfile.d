bundle: \
  case.pipe \
  tools/pretrain.py \
  tools/serve.py
