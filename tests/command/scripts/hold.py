"""Joins a gloo process group and holds it for a while: two invocations
that run at the same time must not clash on their ports."""
import json
import os
import sys
import time

# When the process started, not when it met the others: on a loaded machine
# importing torch alone can take longer than the hold below.
start = time.time()
import torch.distributed as dist  # noqa: E402

tag, out = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo")
dist.barrier()
time.sleep(3)
dist.barrier()
end = time.time()
if dist.get_rank() == 0:
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tag": tag, "start": start, "end": end, "port": os.environ["MASTER_PORT"]}, f)
dist.destroy_process_group()
