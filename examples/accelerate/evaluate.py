"""Evaluates the trained classifier on the test table: accuracy and loss,
printed and recorded as pipe's metrics."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

from train import build_model, log_metric


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="the folder train.py wrote")
    parser.add_argument("--data", required=True)
    args = parser.parse_args()

    with open(os.path.join(args.model, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    model = build_model(config["features"], config["classes"], config["hidden"])
    model.load_state_dict(torch.load(os.path.join(args.model, "model.pt"), weights_only=True))
    model.eval()
    table = np.load(args.data)
    x = torch.from_numpy(table[:, :-1].copy())
    y = torch.from_numpy(table[:, -1].copy()).long()
    with torch.no_grad():
        logits = model(x)
    accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    loss = F.cross_entropy(logits, y).item()
    print(f"test accuracy {accuracy:.4f} loss {loss:.4f} on {len(y)} points")
    log_metric("accuracy", 0, accuracy)
    log_metric("test_loss", 0, loss)


if __name__ == "__main__":
    main()
