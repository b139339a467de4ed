"""torch.distributed with env:// over the ranks pipe starts: a gloo
all-reduce, and the launch environment as torchrun sets it."""
import json
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")  # env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
names = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK",
         "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT",
         "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE",
         "ACCELERATE_MIXED_PRECISION", "ACCELERATE_USE_CPU", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
         "PIPE_RDZV_PORT"]
print("rank %d of %d: sum %g" % (rank, world, t.item()))
if rank == 0:  # every rank gets the same output path, as under torchrun
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump({"sum": t.item(), "world": world, "rank": rank,
                   "env": {n: os.environ.get(n) for n in names}}, f)
dist.destroy_process_group()
