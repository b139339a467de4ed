"""Accelerate with pipe's tracker on 2 CPU ranks: accelerator.log reaches the
run's metrics (rank 0's), non-numbers are skipped, the configuration is a
table; log_image on rank 1 does nothing."""
import torch
from accelerate import Accelerator

import pipe
from pipe.accelerate import PipeTracker

accelerator = Accelerator(log_with=PipeTracker(), cpu=True)
accelerator.init_trackers("train", config={"lr": 0.1, "optimizer": "sgd", "epochs": 4})
model = torch.nn.Linear(2, 1)
for epoch in range(4):
    loss = torch.tensor(1.0 / (epoch + 1))
    accelerator.log({"train/loss": loss, "epoch time": 0.5 * epoch, "note": "text is skipped",
                     "rank": accelerator.process_index}, step=epoch)
png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
print("rank", accelerator.process_index, "image", pipe.log_image("per rank", png))
accelerator.end_training()
