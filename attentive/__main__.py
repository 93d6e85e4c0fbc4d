"""`python -m attentive ...`: the command line (attentive/cli/__init__.py), so that `torchrun -m attentive train ...`
runs it."""
from .cli import run

if __name__ == "__main__":
    run()
