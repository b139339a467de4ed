"""The torchrun half of bench/launch.sh: join the gloo process group, one
barrier, leave. torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT."""
import torch.distributed as dist

dist.init_process_group("gloo")
dist.barrier()
dist.destroy_process_group()
