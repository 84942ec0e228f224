"""Model files on the command line: loading one, the checks before writing one (never over
the data, never over a file that is not a model), saving, and what kind of model it is.

Nothing here computes anything about a model: commands call the library for that.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

import numpy as np

from nbayes.cli._common import UI, CLIError, load_model
from nbayes.cli._guarded import guarded_write

T = TypeVar("T")

__all__ = [
    "check_model_output",
    "load_for_prediction",
    "save_model",
    "warn_one_class",
]


def load_for_prediction(path: str, journaled: bool = True) -> Any:
    """A model file ready to predict: for a TextClassifier its scorer
    (:func:`nbayes.load_scorer`: numpy only, no estimator, no scikit-learn), for
    any other model the estimator (:func:`load_model`). Both predict and explain alike.
    ``journaled``: with the updates a server acknowledged that the file lacks (a
    TextClassifier's estimator then, which learns them: its scorer cannot)."""
    from nbayes.exceptions import ModelFileError
    from nbayes.io.persist import load_scorer, model_type

    if not os.path.exists(path):
        raise CLIError(f"No model file {path!r}: train one first with `nbayes train`.")
    scorer = None
    try:  # the header says which load: a large file is read once, not twice
        if model_type(path) == "TextClassifier":
            scorer = load_scorer(path)
    except ModelFileError:
        pass  # the full load reports the problem in its own words
    if scorer is None or (journaled and _journaled_updates(path)):
        return load_model(path, journaled)
    return scorer


def _journaled_updates(path: str) -> bool:
    """Whether a server journaled updates beside ``path`` (that the file may lack: the
    full load reads which, hashing the file once)."""
    from nbayes.cli._served import journal_beside

    if not os.path.exists(journal_beside(path)):
        return False
    from nbayes.serve.journal import holds_updates

    try:
        return holds_updates(path)
    except OSError:
        return True  # (the full load says it cannot read it)


def _input_paths(inputs: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """``(path, is_folder)`` for each existing file or folder the DATA arguments name
    (glob patterns expanded; standard input skipped)."""
    import glob

    for item in inputs:
        if item == "-":
            continue
        matches = [item] if os.path.exists(item) else sorted(glob.glob(item, recursive=True))
        for path in matches:
            yield path, os.path.isdir(path)


def add_output(parser: Any, metavar: str = "MODEL", never: str = "") -> None:
    """``-o/--output`` (the model file a command writes) and ``--force``; ``never``: what
    ``--force`` still never replaces, in words."""
    parser.add_argument("-o", "--output", required=True, metavar=metavar,
                        help="model file to write")  # fmt: skip
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace {metavar} even if it exists and is not an nbayes model file{never}",
    )


def check_model_output(
    path: str, inputs: Iterable[str] = (), *, flag: str = "-o", force: bool = False
) -> None:
    """Refuse to write a model to ``path`` over one of the ``inputs`` (a DATA file, or a
    file in a DATA folder), into a DATA folder (the model would be read as a document
    next time), over a folder, or over an existing file that is not an nbayes model
    (unless ``force``). Replacing a model file is fine: the new one replaces it
    atomically."""
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise CLIError(f"{flag} {path!r} is a folder: give the path of a model file to write.")
    for item, folder in _input_paths(inputs):
        real = os.path.realpath(item)
        if folder:
            if target.startswith(real.rstrip(os.sep) + os.sep):
                raise CLIError(
                    f"Refusing to write the model {path!r} inside the data folder {item!r} (it "
                    f"would be read as a document next time): choose a {flag} outside it."
                )
        elif real == target or (os.path.exists(path) and os.path.samefile(item, path)):
            raise CLIError(
                f"Refusing to write the model over the input data {item!r}: choose another "
                f"{flag} (the data would be lost)."
            )
    from nbayes.io.persist import is_model_file

    if os.path.exists(path) and not force and not is_model_file(path):
        raise CLIError(
            f"Refusing to replace {path!r}: it exists and is not an nbayes model file. Choose "
            f"another {flag}, or pass --force to replace it."
        )
    check_output_folder(path)


def check_output_folder(path: str) -> None:
    """Raise a CLIError unless the folder ``path`` is to be written in is one."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        what = "is a file, not a folder" if os.path.exists(directory) else "does not exist"
        raise CLIError(f"Cannot write {path!r}: {directory!r} {what}.")


def save_model(
    model: Any,
    path: str,
    inputs: Iterable[str] = (),
    *,
    flag: str = "-o",
    force: bool = False,
    lock_with: UI | None = None,
) -> None:
    """Write ``model`` to ``path`` atomically, after :func:`check_model_output` (commands
    also call that before they start, so that a refusal costs no training).

    ``lock_with``: a command that writes a new model over ``path`` (``train -o``) takes the
    model's lock first, as registrations and updates do (they hold it already and leave
    this None): a model a server is serving is refused, and a registration in progress is
    waited for instead of lost under the new file, or the new file under it."""
    if lock_with is not None and os.path.exists(path):
        from nbayes.cli._model_lock import model_lock

        with model_lock(path, lock_with):
            save_model(model, path, inputs, flag=flag, force=force)
        return
    from nbayes.io.persist import save, save_text_statistics
    from nbayes.text import TextSettings

    def write() -> None:
        if isinstance(model, TextSettings):  # a TextClassifier's statistics (train)
            save_text_statistics(model.get_params(), model.statistics, path)
        else:
            save(model, path)

    check_model_output(path, inputs, flag=flag, force=force)
    guarded_write(path, write)


def warn_one_class(ui: UI, model: Any, path: str) -> None:
    """Warn when ``model`` has examples of one class only: it predicts that class for
    everything (probability 1), which is rarely what was meant."""
    counts = np.asarray(model.class_count_, dtype=np.float64)
    present = [c for c, n in zip(model.classes_.tolist(), counts.tolist(), strict=True) if n > 0]
    if len(present) == 1:
        ui.warn(
            f"{path} has examples of one class only ({present[0]!r}): it predicts "
            f"{present[0]!r} for everything. Give it examples of at least two classes."
        )
