"""Trains a small MLP classifier with Hugging Face Accelerate.

Written as for `accelerate launch train.py ...`: the number of processes,
the CPU or GPU and the mixed precision come from the launcher's environment,
and pipe's @run_with_accelerate sets that environment the same way. The
model goes to --output-dir, as `save_pretrained` would write it.
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset


def log_metric(name, step, value):
    """Appends to pipe's PIPE_METRICS file when there is one (a pipe step)."""
    path = os.environ.get("PIPE_METRICS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{name} {step} {value}\n")


def build_model(features, classes, hidden=64):
    return torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes)
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, help="a .npy table: features, then the label")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--output-dir", required=True)
    args = parser.parse_args()

    accelerator = Accelerator()
    set_seed(args.seed)
    table = np.load(args.data)
    x = torch.from_numpy(table[:, :-1].copy())
    y = torch.from_numpy(table[:, -1].copy()).long()
    features, classes = x.shape[1], int(y.max()) + 1
    accelerator.print(
        f"{len(y)} points, {features} features, {classes} classes; {accelerator.num_processes} processes, "
        f"{accelerator.distributed_type}, mixed precision {accelerator.mixed_precision}"
    )

    model = build_model(features, classes)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(args.epochs):
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
        accelerator.print(f"epoch {epoch} loss {mean:.4f}")
        if accelerator.is_main_process:
            log_metric("loss", epoch, mean)

    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        os.makedirs(args.output_dir, exist_ok=True)
        torch.save(accelerator.unwrap_model(model).state_dict(), os.path.join(args.output_dir, "model.pt"))
        with open(os.path.join(args.output_dir, "config.json"), "w", encoding="utf-8") as f:
            json.dump({"features": features, "classes": classes, "hidden": 64}, f)
    accelerator.end_training()


if __name__ == "__main__":
    main()
