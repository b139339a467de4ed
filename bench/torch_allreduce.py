"""The torch half of bench/allreduce.sh: each rank all-reduces (sum) a float32
tensor of MIB MiB ITERS times with gloo, between two barriers, after WARMUP
untimed ones; rank 0 prints the algorithm bandwidth (bytes / time per
all-reduce) as `gbps VALUE`.
usage: torchrun --nproc-per-node 4 torch_allreduce.py MIB ITERS WARMUP"""
import sys
import time

import torch
import torch.distributed as dist

mib, iters, warmup = (int(a) for a in sys.argv[1:4])
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
n = mib * (1 << 20) // 4
buf = torch.full((n,), float(rank + 1), dtype=torch.float32)
dist.all_reduce(buf)
want = world * (world + 1) / 2
if not bool((buf == want).all()):
    sys.exit(f"rank {rank}: wrong sum {buf[0].item()} (expected {want})")
for _ in range(warmup - 1):
    dist.all_reduce(buf)
dist.barrier()
t0 = time.perf_counter()
for _ in range(iters):
    dist.all_reduce(buf)
dist.barrier()
t = time.perf_counter() - t0
if rank == 0:
    bytes_ = n * 4
    print(f"torch gloo: {world} ranks, {mib} MiB float32, {iters} all-reduces in {t:.3f} s")
    print(f"gbps {bytes_ * iters / t / 1e9:.4f}")
dist.destroy_process_group()
