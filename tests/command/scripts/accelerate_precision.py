"""An Accelerate script as `accelerate launch` runs it: the mixed precision
and the distributed setup come from the launcher's environment."""
import json
import sys

import torch
from accelerate import Accelerator

accelerator = Accelerator()
layer = torch.nn.Linear(4, 2)
seen = {}
layer.register_forward_hook(lambda module, args, out: seen.update(dtype=str(out.dtype)))
model = accelerator.prepare(torch.nn.Sequential(layer))
y = model(torch.ones(3, 4, device=accelerator.device))  # autocast applies inside, fp32 comes out
total = accelerator.reduce(torch.tensor([1.0], device=accelerator.device), reduction="sum")
accelerator.print("precision", accelerator.mixed_precision, "computed in", seen["dtype"])
if accelerator.is_main_process:
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump({"mixed_precision": accelerator.mixed_precision, "num_processes": accelerator.num_processes,
                   "distributed_type": str(accelerator.distributed_type), "inner_dtype": seen["dtype"],
                   "device": str(accelerator.device), "total": total.item()}, f)
