"""The injection corpus's command step: it is built, never run."""
import sys

print(sys.argv[1:])
