"""Trains the classifier with Hugging Face Accelerate on the standardized
training table. Every rank runs this script (@run_with_accelerate); the
loss and training accuracy of each epoch go through `accelerator.log` to
pipe's tracker, which records them in the run's metrics.csv. The model
folder (weights and sizes) is written by the main process."""
import json
import os

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset

import pipe
from model import build_model, load_table
from pipe.accelerate import PipeTracker


def main():
    hidden = pipe.param("hidden")
    epochs = pipe.param("epochs")
    lr = pipe.param("lr")
    seed = pipe.param("seed")

    accelerator = Accelerator(log_with=PipeTracker())
    accelerator.init_trackers("experiment", config={"hidden": hidden, "epochs": epochs, "lr": lr, "seed": seed})
    set_seed(seed)
    x, y = load_table(pipe.input_path("data"))
    features, classes = x.shape[1], int(y.max()) + 1
    accelerator.print(
        f"{len(y)} points, {features} features, {classes} classes; {accelerator.num_processes} processes, "
        f"{accelerator.distributed_type}"
    )

    model = build_model(features, classes, hidden)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(epochs):
        model.train()
        loss_sum, correct, count = torch.zeros(()), torch.zeros(()), torch.zeros(())
        for xb, yb in loader:
            optimizer.zero_grad()
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            accelerator.backward(loss)
            optimizer.step()
            loss_sum += loss.detach() * len(yb)
            correct += (logits.argmax(dim=1) == yb).sum()
            count += len(yb)
        # every rank's share, summed: the epoch's figures over the whole set
        loss_sum, correct, count = (accelerator.reduce(t, reduction="sum") for t in (loss_sum, correct, count))
        mean_loss, accuracy = (loss_sum / count).item(), (correct / count).item()
        accelerator.print(f"epoch {epoch} loss {mean_loss:.4f} accuracy {accuracy:.4f}")
        accelerator.log({"loss": mean_loss, "train_accuracy": accuracy}, step=epoch)

    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        out = pipe.output_path("model")
        os.makedirs(out, exist_ok=True)
        torch.save(accelerator.unwrap_model(model).state_dict(), os.path.join(out, "model.pt"))
        with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
            json.dump({"features": features, "classes": classes, "hidden": hidden}, f)
    accelerator.end_training()


if __name__ == "__main__":
    main()
