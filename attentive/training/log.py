"""The metrics log's names where training has always imported them; the log itself is attentive/folders/metrics_log.py
(below training, because the analysis report reads it too)."""
from ..folders.metrics_log import LOG, append_record, read_metrics_log, start_run

__all__ = ["LOG", "append_record", "read_metrics_log", "start_run"]
