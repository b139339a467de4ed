"""The classifier train.py fits and evaluate.py loads: a small MLP."""
import torch


def build_model(features, classes, hidden):
    return torch.nn.Sequential(
        torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, classes)
    )


def load_table(path):
    """A .npy table (features, then the label) as float32 features and labels."""
    import numpy as np

    table = np.load(path)
    x = torch.from_numpy(table[:, :-1].astype(np.float32))
    y = torch.from_numpy(table[:, -1].astype(np.int64))
    return x, y
