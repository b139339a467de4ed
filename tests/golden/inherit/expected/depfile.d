bundle: \
  case.pipe
