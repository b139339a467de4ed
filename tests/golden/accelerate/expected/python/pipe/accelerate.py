"""An Accelerate tracker that logs into the run's metrics (docs/python.md):

    from accelerate import Accelerator
    from pipe.accelerate import PipeTracker

    accelerator = Accelerator(log_with=PipeTracker())
    accelerator.init_trackers("train", config={"lr": 1e-3})
    accelerator.log({"loss": loss.item()}, step=epoch)

Accelerate is imported here only, when this submodule is; `import pipe`
needs nothing but the standard library.
"""

import numbers

from accelerate.tracking import GeneralTracker

import pipe

__all__ = ["PipeTracker"]


def _scalar(value):
    """A float for a number (Python, numpy or a one-element tensor), else None."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, numbers.Real):
        return float(value)
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", 0) == 0:
        try:
            got = item()
        except (TypeError, ValueError, RuntimeError):
            return None
        return float(got) if isinstance(got, numbers.Real) else None
    return None


class PipeTracker(GeneralTracker):
    """Scalars given to `accelerator.log` become the run's metrics (rank 0's,
    as Accelerate's trackers are main-process only); other values (strings,
    lists, images) are skipped. Names that the runtime refuses (a space, a
    comma) have those characters replaced by `_`. The configuration given to
    `init_trackers` is logged as a table `config` (one row per key)."""

    name = "pipe"
    requires_logging_directory = False
    main_process_only = True

    def __init__(self, run_name="pipe"):
        super().__init__()
        self.run_name = run_name

    @property
    def tracker(self):
        return None

    def store_init_configuration(self, values):
        rows = []
        for key, value in dict(values or {}).items():
            if value is None or isinstance(value, (bool, str, numbers.Real)):
                cell = value
            else:
                cell = str(value)
            rows.append({"name": str(key), "value": cell})
        if rows:
            pipe.log_table("config", rows)

    def log(self, values, step=None, **kwargs):
        for key, value in dict(values).items():
            number = _scalar(value)
            if number is None:
                continue
            pipe.log_metric(pipe.sanitize_metric_name(key), number, step=step)
