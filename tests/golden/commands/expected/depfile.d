bundle: \
  case.pipe \
  tools \
  tools/lib/helpers.py \
  tools/prepare.py \
  README.txt
