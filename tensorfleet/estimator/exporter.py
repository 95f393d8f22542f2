"""``tf.estimator.Exporter`` and its three kinds: what ``train_and_evaluate`` exports.

After each evaluation ``train_and_evaluate`` hands every exporter of the
``EvalSpec`` the estimator, ``<model_dir>/export/<exporter name>``, the
checkpoint just evaluated and its metrics. The SavedModel exporters write a
timestamped directory there through ``Estimator.export_saved_model``:

* ``LatestExporter``: after every evaluation, keeping the newest ``exports_to_keep``;
* ``FinalExporter``: once, after the final evaluation;
* ``BestExporter``: when ``compare_fn`` says the metrics beat the best so far
  (seeded from the evaluation event files a previous run left in ``model_dir``),
  keeping the newest ``exports_to_keep``.
"""

from __future__ import annotations

import abc
import glob
import logging
import os
import shutil
from typing import Any, Callable, Dict, List, Optional

from tensorfleet import errors
from tensorfleet.training.summary_io import summary_iterator

logger = logging.getLogger(__name__)


class Exporter(abc.ABC):
    """Exports a model after an evaluation (an abstract base: subclasses define ``name``
    and ``export``)."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The directory name under ``<model_dir>/export``; unique within an ``EvalSpec``."""

    @abc.abstractmethod
    def export(self, estimator: Any, export_path: str, checkpoint_path: Optional[str],
               eval_result: Optional[Dict[str, Any]], is_the_final_export: bool) -> Any:
        """Exports ``estimator`` at ``checkpoint_path`` under ``export_path``; returns what
        it exported (a SavedModel directory) or None."""


class _SavedModelExporter(Exporter):
    """Writes a SavedModel served through ``serving_input_receiver_fn``."""

    def __init__(self, name: str, serving_input_receiver_fn: Callable[..., Any],
                 assets_extra: Optional[Dict[str, str]] = None, as_text: bool = False):
        if not name or not isinstance(name, str):
            raise ValueError(f"Exporter name must be a non-empty string, got {name!r}")
        if not callable(serving_input_receiver_fn):
            raise ValueError(f"serving_input_receiver_fn must be callable, got "
                             f"{serving_input_receiver_fn!r}")
        if assets_extra is not None and not isinstance(assets_extra, dict):
            raise ValueError(f"assets_extra must be a dict of destination -> source path, got "
                             f"{assets_extra!r}")
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = bool(as_text)

    @property
    def name(self) -> str:
        return self._name

    def _write(self, estimator: Any, export_path: str, checkpoint_path: Optional[str]) -> bytes:
        return estimator.export_saved_model(export_path, self._serving_input_receiver_fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)

    def export(self, estimator: Any, export_path: str, checkpoint_path: Optional[str],
               eval_result: Optional[Dict[str, Any]], is_the_final_export: bool) -> bytes:
        """Writes a SavedModel under ``export_path`` and returns its directory."""
        return self._write(estimator, export_path, checkpoint_path)


def _check_keep(exports_to_keep: Optional[int]) -> None:
    if exports_to_keep is not None and (isinstance(exports_to_keep, bool) or
                                        not isinstance(exports_to_keep, int) or
                                        exports_to_keep <= 0):
        raise ValueError(f"`exports_to_keep`, if provided, must be a positive number. Got "
                         f"{exports_to_keep!r}")


def _garbage_collect(export_path: str, exports_to_keep: Optional[int]) -> List[str]:
    """Deletes all but the newest ``exports_to_keep`` timestamped exports; returns the
    deleted directories."""
    if exports_to_keep is None or not os.path.isdir(export_path):
        return []
    stamped = sorted((int(d), d) for d in os.listdir(export_path)
                     if d.isdigit() and os.path.isdir(os.path.join(export_path, d)))
    removed = []
    for _, d in stamped[:max(0, len(stamped) - exports_to_keep)]:
        path = os.path.join(export_path, d)
        try:
            shutil.rmtree(path)
            removed.append(path)
        except OSError as e:  # an export someone else is reading stays; the next pass retries
            logger.warning("Can not delete %s: %s", path, e)
    return removed


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation and keeps the ``exports_to_keep`` newest exports
    (all of them when None)."""

    def __init__(self, name: str, serving_input_receiver_fn: Callable[..., Any],
                 assets_extra: Optional[Dict[str, str]] = None, as_text: bool = False,
                 exports_to_keep: Optional[int] = 5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        _check_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    def export(self, estimator: Any, export_path: str, checkpoint_path: Optional[str],
               eval_result: Optional[Dict[str, Any]], is_the_final_export: bool) -> bytes:
        """Writes a SavedModel, then deletes the exports beyond ``exports_to_keep``."""
        result = self._write(estimator, export_path, checkpoint_path)
        _garbage_collect(export_path, self._exports_to_keep)
        return result


class FinalExporter(_SavedModelExporter):
    """Exports once, after the final evaluation."""

    def export(self, estimator: Any, export_path: str, checkpoint_path: Optional[str],
               eval_result: Optional[Dict[str, Any]], is_the_final_export: bool
               ) -> Optional[bytes]:
        """Writes a SavedModel when ``is_the_final_export``; returns None otherwise."""
        if not is_the_final_export:
            return None
        logger.info("Performing the final export in the end of training.")
        return self._write(estimator, export_path, checkpoint_path)


def _loss_smaller(best_eval_result: Dict[str, Any], current_eval_result: Dict[str, Any]) -> bool:
    """The default ``compare_fn`` of ``BestExporter``: the current loss is smaller."""
    for what, result in (("best_eval_result", best_eval_result),
                         ("current_eval_result", current_eval_result)):
        if not result or "loss" not in result:
            raise ValueError(f"{what} cannot be empty or no loss is found in it.")
    return current_eval_result["loss"] < best_eval_result["loss"]


def _read_eval_results(pattern: str) -> List[Dict[str, Any]]:
    """The scalar metrics of every evaluation recorded in event files matching ``pattern``."""
    results = []
    for path in sorted(glob.glob(pattern)):
        try:
            for event in summary_iterator(path):
                if not event.HasField("summary"):
                    continue
                values = {v.tag: v.simple_value for v in event.summary.value
                          if v.HasField("simple_value")}
                if values:
                    values["global_step"] = event.step
                    results.append(values)
        except (OSError, errors.OpError) as e:
            logger.warning("Can not read evaluation events from %s: %s", path, e)
    return results


class BestExporter(_SavedModelExporter):
    """Exports when an evaluation beats the best one so far.

    Args:
      name: the export directory's name under ``<model_dir>/export``.
      serving_input_receiver_fn: builds the served model's inputs.
      event_file_pattern: evaluation event files, relative to ``model_dir``, whose
        metrics (those of other global steps than the evaluation being exported)
        seed the best result when the exporter first runs (None: start with no
        best, so the first evaluation is exported).
      compare_fn: ``compare_fn(best_eval_result, current_eval_result)``, True when
        the current one is better; by default, when its ``loss`` is smaller.
      assets_extra, as_text: passed to ``export_saved_model``.
      exports_to_keep: how many of the newest exports to keep (None: all).
    """

    def __init__(self, name: str = "best_exporter",
                 serving_input_receiver_fn: Optional[Callable[..., Any]] = None,
                 event_file_pattern: Optional[str] = "eval/*.tfevents.*",
                 compare_fn: Callable[[Dict[str, Any], Dict[str, Any]], bool] = _loss_smaller,
                 assets_extra: Optional[Dict[str, str]] = None, as_text: bool = False,
                 exports_to_keep: Optional[int] = 5):
        if not callable(compare_fn):
            raise ValueError(f"`compare_fn` must be callable, got {compare_fn!r}")
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        _check_keep(exports_to_keep)
        self._compare_fn = compare_fn
        self._event_file_pattern = event_file_pattern
        self._exports_to_keep = exports_to_keep
        self._model_dir: Optional[str] = None
        self._best_eval_result: Optional[Dict[str, Any]] = None

    def _seed_best(self, model_dir: str, eval_result: Optional[Dict[str, Any]]) -> None:
        self._model_dir = model_dir
        self._best_eval_result = None
        if not self._event_file_pattern:
            return
        # The evaluation being exported has already written its own events; it must
        # not count as an earlier best, or the first evaluation would never export.
        current_step = (eval_result or {}).get("global_step")
        for result in _read_eval_results(os.path.join(model_dir, self._event_file_pattern)):
            if current_step is not None and result["global_step"] == current_step:
                continue
            if self._best_eval_result is None or self._compare_fn(self._best_eval_result,
                                                                  result):
                self._best_eval_result = result

    def export(self, estimator: Any, export_path: str, checkpoint_path: Optional[str],
               eval_result: Optional[Dict[str, Any]], is_the_final_export: bool
               ) -> Optional[bytes]:
        """Writes a SavedModel when ``eval_result`` is the best so far; returns None
        otherwise."""
        if self._model_dir != estimator.model_dir:
            self._seed_best(estimator.model_dir, eval_result)
        if eval_result is None:
            return None
        if self._best_eval_result is not None and \
                not self._compare_fn(self._best_eval_result, eval_result):
            return None
        logger.info("Exporting a better model (%s instead of %s).", eval_result,
                    self._best_eval_result)
        self._best_eval_result = dict(eval_result)
        result = self._write(estimator, export_path, checkpoint_path)
        _garbage_collect(export_path, self._exports_to_keep)
        return result


def check_exporters(exporters: Any) -> tuple:
    """``EvalSpec``'s ``exporters`` (None, an Exporter or a sequence of them) as a tuple.

    Raises:
      TypeError: something that is not an Exporter.
      ValueError: two exporters with the same name.
    """
    if exporters is None:
        return ()
    if isinstance(exporters, Exporter):
        exporters = (exporters,)
    try:
        exporters = tuple(exporters)
    except TypeError:
        raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or `None`,"
                        f" found {exporters!r}.") from None
    names = set()
    for e in exporters:
        if not isinstance(e, Exporter):
            raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or "
                            f"`None`, found {e!r}.")
        if not e.name or e.name in names:
            raise ValueError(f"`exporters` must have unique, non-empty names; {e.name!r} is "
                             f"repeated or empty.")
        names.add(e.name)
    return exporters


def run_exporters(estimator: Any, exporters: Any, checkpoint_path: Optional[str],
                  eval_result: Optional[Dict[str, Any]], is_the_final_export: bool) -> List[Any]:
    """Calls every exporter after an evaluation; returns their results in order."""
    results = []
    for e in exporters:
        export_path = os.path.join(estimator.model_dir, "export", e.name)
        results.append(e.export(estimator, export_path, checkpoint_path, eval_result,
                                is_the_final_export))
    return results


__all__ = ["Exporter", "LatestExporter", "FinalExporter", "BestExporter", "check_exporters",
           "run_exporters"]
