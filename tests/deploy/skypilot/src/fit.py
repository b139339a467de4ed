"""A command step of store.pipe: its image has torch (the requirements)."""
import sys

import torch

torch.save(torch.zeros(1), sys.argv[2])
