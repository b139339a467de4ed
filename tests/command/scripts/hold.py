"""Joins a gloo process group and holds it for a while: two invocations
that run at the same time must not clash on their ports."""
import json
import os
import sys
import time

import torch.distributed as dist

tag, out = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo")
start = time.time()
dist.barrier()
time.sleep(3)
dist.barrier()
end = time.time()
if dist.get_rank() == 0:
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tag": tag, "start": start, "end": end, "port": os.environ["MASTER_PORT"]}, f)
dist.destroy_process_group()
