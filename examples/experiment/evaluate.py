"""Evaluates the trained classifier on the standardized test table: the
accuracy and loss as metrics, the confusion matrix as an image and each
class's precision and recall as a table, all through the `pipe` module."""
import json
import os

import torch
import torch.nn.functional as F

import pipe
from model import build_model, load_table
from confusion import confusion_png


def main():
    model_dir = pipe.input_path("model")
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    model = build_model(config["features"], config["classes"], config["hidden"])
    model.load_state_dict(torch.load(os.path.join(model_dir, "model.pt"), weights_only=True))
    model.eval()
    x, y = load_table(pipe.input_path("data"))
    with torch.no_grad():
        logits = model(x)
    predicted = logits.argmax(dim=1)
    accuracy = (predicted == y).float().mean().item()
    loss = F.cross_entropy(logits, y).item()
    print(f"test accuracy {accuracy:.4f} loss {loss:.4f} on {len(y)} points")
    pipe.log_metric("accuracy", accuracy)
    pipe.log_metric("test_loss", loss)

    k = config["classes"]
    matrix = [[0] * k for _ in range(k)]
    for t, p in zip(y.tolist(), predicted.tolist()):
        matrix[t][p] += 1
    pipe.log_image("confusion_matrix", confusion_png(matrix))
    rows = []
    for c in range(k):
        predicted_c = sum(matrix[t][c] for t in range(k))
        support = sum(matrix[c])
        rows.append(
            {
                "class": c,
                "support": support,
                "precision": round(matrix[c][c] / predicted_c, 4) if predicted_c else None,
                "recall": round(matrix[c][c] / support, 4) if support else None,
            }
        )
    pipe.log_table("per_class", rows)


if __name__ == "__main__":
    main()
