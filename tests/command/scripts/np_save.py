"""Saves an array to its output as numpy users first write it.

  np_save.py OUT plain    np.save(OUT, a): numpy adds .npy, OUT stays missing
  np_save.py OUT file     np.save(open(OUT, "wb"), a): the exact path
"""
import sys

import numpy as np

out, how = sys.argv[1], sys.argv[2]
a = np.arange(3.0)
if how == "plain":
    np.save(out, a)
else:
    np.save(open(out, "wb"), a)
