"""Accelerate's save_state from every rank into the output folder, as under
torchrun: rank 0 writes the model and the optimizer, each rank its own RNG
state (random_states_N.pkl). All of it must be in the committed artifact."""
import sys

import torch
from accelerate import Accelerator

accelerator = Accelerator()
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = accelerator.prepare(model, optimizer)
loss = model(torch.ones(3, 4, device=accelerator.device)).sum()
accelerator.backward(loss)
optimizer.step()
accelerator.save_state(sys.argv[1])
accelerator.wait_for_everyone()
accelerator.print("saved the state of", accelerator.num_processes, "processes to", sys.argv[1])
