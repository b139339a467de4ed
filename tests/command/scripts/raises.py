"""Rank 1 raises: the step fails naming rank 1 and showing its traceback."""
import os
import time


def check_shard(rank):
    if rank == 1:
        raise ValueError("shard 1 is corrupt")


check_shard(int(os.environ["RANK"]))
time.sleep(30)  # rank 0 waits; pipe stops it when rank 1 fails
