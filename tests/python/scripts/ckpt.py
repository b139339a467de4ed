"""checkpoint_dir() and latest_checkpoint() under @checkpoint: the first run
has no checkpoint yet; a checkpoint written here is the next run's latest
(the test stops this step once, with PIPE_TEST_FAIL, so that it runs again)."""
import json
import os

import pipe

ckpt = pipe.checkpoint_dir()
latest = pipe.latest_checkpoint()
os.makedirs(os.path.join(ckpt, "epoch_1"), exist_ok=True)
with open(os.path.join(ckpt, "epoch_1", "state.txt"), "w") as f:
    f.write("1")
if os.environ.get("PIPE_TEST_FAIL") and not latest:
    raise SystemExit("stopping after the first checkpoint")
with open(pipe.output_path("out"), "w") as f:
    json.dump({"dir": ckpt, "latest": latest}, f)
