# W0412's case: reads `lr` from the environment and `epochs` through the
# pipe module; `seed` is read nowhere.
import os

import pipe

lr = float(os.environ["PIPE_PARAM_LR"])
epochs = int(pipe.param('epochs'))
