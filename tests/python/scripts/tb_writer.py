"""TensorBoard logs as a training script writes them: torch's SummaryWriter
into the scratch folder (simple_value) and into the output folder (the
tensor form, new_style=True); the runtime reads both into metrics.csv."""
import os

import torch

from torch.utils.tensorboard import SummaryWriter

import pipe

scratch = SummaryWriter(log_dir=os.path.join(os.environ["PIPE_SCRATCH_DIR"], "runs", "a"))
for step in range(5):
    scratch.add_scalar("tb/loss", 1.0 / (step + 1), global_step=step)
scratch.add_text("notes", "not a scalar", 0)
scratch.add_histogram("weights", torch.tensor([0.1, 0.2, 0.3]), 0)
scratch.close()

os.makedirs(pipe.output_path("out"))
out = SummaryWriter(log_dir=os.path.join(pipe.output_path("out"), "tb"))
out.add_scalar("eval/acc", 0.5, global_step=7, new_style=True)
out.add_scalar("eval/acc", 0.625, global_step=8, new_style=True)
out.close()
