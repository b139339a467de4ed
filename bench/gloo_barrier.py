"""The script of bench/command_launch.sh, run by pipe (a command step) and by
torchrun alike: join a gloo process group (env://), pass one barrier, leave.
Its own time, from its first line to its last, goes to BENCH_TIMES/rank-N,
so that the launcher's overhead is the total minus the slowest rank's own.
It leaves with os._exit: the interpreter's teardown of torch (the same
under either launcher, and no launcher's doing) is not timed."""
import time

start = time.time()
import os  # noqa: E402  (the clock starts before anything is imported)

import torch.distributed as dist  # noqa: E402

dist.init_process_group("gloo")
dist.barrier()
dist.destroy_process_group()
with open(os.path.join(os.environ["BENCH_TIMES"], "rank-" + os.environ["RANK"]), "w", encoding="utf-8") as f:
    f.write(f"{start} {time.time()}\n")
os._exit(0)
