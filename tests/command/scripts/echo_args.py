"""Writes what it was given to its output: the arguments, the environment
pipe sets for a command step (and the .pipe file's), and the folder it
runs in."""
import json
import os
import sys

out = sys.argv[sys.argv.index("--out") + 1]
with open(out, "w", encoding="utf-8") as f:
    json.dump(
        {
            "argv": sys.argv[1:],
            "PIPE_PARAM_TEXT": os.environ.get("PIPE_PARAM_TEXT"),
            "PIPE_OUTPUT_OUT": os.environ.get("PIPE_OUTPUT_OUT"),
            "PIPE_SCRATCH_DIR": os.environ.get("PIPE_SCRATCH_DIR"),
            "scratch_empty": os.listdir(os.environ["PIPE_SCRATCH_DIR"]) == [],
            "PIPE_TEST_BODY": os.environ.get("PIPE_TEST_BODY"),
            "PIPE_TEST_IMAGE": os.environ.get("PIPE_TEST_IMAGE"),
            "cwd": os.getcwd(),
            "helper": open("scripts/helpers/data.txt", encoding="utf-8").read().strip(),
        },
        f,
    )
