"""An Accelerate training script that resumes (accelerate_resume.sh;
docs/checkpoints.md has the recipe): 2 CPU ranks in bf16, as `accelerate
launch` runs it. After each epoch every rank saves its part of the state
with accelerator.save_state (rank 0 the model and the optimizer, each rank
its random_states_N.pkl) into PIPE_CHECKPOINT_DIR/.epoch_N.tmp; after a
barrier rank 0 fsyncs and renames it to epoch_N. At start it loads
PIPE_CHECKPOINT_LATEST when there is one (with a seedable sampler, as
Accelerate advises for resuming, each epoch's order depends only on its
number). SIGTERM (a Ctrl-C, a preemption)
ends the training after the epoch's checkpoint. MARKER/progress holds the
epochs done; OUT gets the last epoch's loss and a digest of the weights.

  python3 accelerate_resume.py --epochs N --epoch-ms MS --marker DIR --out FILE
"""
import argparse
import hashlib
import json
import os
import signal
import sys
import time

import torch
import torch.nn.functional as F
from accelerate import Accelerator, DataLoaderConfiguration
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset

stop = False


def on_term(_sig, _frame):
    global stop  # pylint: disable=global-statement
    stop = True


def fsync_path(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save(accelerator, ckpt, epoch):
    """DIR/.epoch_N.tmp from every rank, then renamed by rank 0: complete or absent."""
    name = f"epoch_{epoch}"
    tmp = os.path.join(ckpt, f".{name}.tmp")
    accelerator.save_state(tmp)
    if accelerator.is_main_process:
        with open(os.path.join(tmp, "pipe_epoch.json"), "w", encoding="utf-8") as f:
            json.dump({"epoch": epoch}, f)
    accelerator.wait_for_everyone()  # every rank's part is written
    if accelerator.is_main_process:
        for root, _dirs, files in os.walk(tmp):
            for file in files:
                fsync_path(os.path.join(root, file))
            fsync_path(root)
        os.rename(tmp, os.path.join(ckpt, name))
        fsync_path(ckpt)
    accelerator.wait_for_everyone()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--epoch-ms", type=int, default=0)
    parser.add_argument("--marker", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, on_term)

    # A seedable sampler shuffles each epoch by its number: a resumed epoch
    # sees the batches an uninterrupted run would have.
    accelerator = Accelerator(dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True))
    set_seed(7)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 16, generator=g)
    y = (x @ torch.randn(16, 4, generator=g)).argmax(1)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    ckpt = os.environ["PIPE_CHECKPOINT_DIR"]
    latest = os.environ.get("PIPE_CHECKPOINT_LATEST")
    start = 0
    if latest:
        accelerator.load_state(latest)
        with open(os.path.join(latest, "pipe_epoch.json"), encoding="utf-8") as f:
            start = json.load(f)["epoch"]
        states = sorted(n for n in os.listdir(latest) if n.startswith("random_states_"))
        accelerator.print(f"resumed from {os.path.basename(latest)} at epoch {start}; random states: {' '.join(states)}")

    mean = None
    for epoch in range(start, args.epochs):
        loader.set_epoch(epoch)
        model.train()
        total, count = torch.zeros(()), torch.zeros(())
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            accelerator.backward(loss)
            optimizer.step()
            total += loss.detach().float() * len(yb)
            count += len(yb)
        mean = (accelerator.reduce(total, reduction="sum") / accelerator.reduce(count, reduction="sum")).item()
        accelerator.print(f"epoch {epoch} loss {mean!r}")
        time.sleep(args.epoch_ms / 1000)  # a longer epoch
        save(accelerator, ckpt, epoch + 1)
        if accelerator.is_main_process:
            with open(os.path.join(args.marker, "progress"), "w", encoding="utf-8") as f:
                f.write(f"{epoch + 1}\n")
        # Stop together: a SIGTERM reaches the ranks at slightly different moments.
        if accelerator.reduce(torch.tensor(float(stop)), reduction="sum").item() > 0:
            accelerator.print(f"stopped after epoch {epoch}, saved")
            accelerator.end_training()
            sys.exit(1)

    if accelerator.is_main_process:
        weights = accelerator.unwrap_model(model).state_dict()
        digest = hashlib.sha256(b"".join(t.detach().cpu().numpy().tobytes() for t in weights.values())).hexdigest()
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"loss": repr(mean), "epochs": args.epochs, "weights": digest}, f)
    accelerator.end_training()


if __name__ == "__main__":
    main()
