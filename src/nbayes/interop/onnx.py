"""ONNX export of the drop-ins, through skl2onnx's converters of scikit-learn's models.

Each drop-in that scikit-learn also has is registered with skl2onnx's public
``update_registered_converter``, under its own alias (``NbayesMultinomialNB``, ...), with
skl2onnx's shape calculator of classifiers and a converter that hands skl2onnx's Naive Bayes
converter the model's ``to_sklearn()`` (:mod:`nbayes.interop.sklearn`): the graph is the one
skl2onnx writes for scikit-learn's model of the same statistics, with the same options
(``zipmap``, ``nocl``, ``output_class_labels``).

The registration happens

* by :func:`register` (idempotent), which :func:`to_onnx` (``nbayes.to_onnx``) calls;
* by itself once both nbayes and skl2onnx are imported, in either order
  (:mod:`nbayes.interop._import_hook`, which ``import nbayes`` installs). So
  ``skl2onnx.to_onnx(model, X)`` works on a drop-in as on scikit-learn's model, and
  ``import nbayes`` never imports skl2onnx, nor this module.

Not exported, with the reason (:class:`ValueError` from the conversion): ``PoissonNB``
(scikit-learn has no Poisson model, so skl2onnx no converter for it), a ``CategoricalNB``
fitted on labelled categories or exported with float64 input (skl2onnx's graph for it
is invalid: use int64 codes), and class labels that skl2onnx's converter would return
wrong (it stores numeric labels as int32 and passes them through the input's float type:
integers beyond 2^24 with float32 input, beyond 2^31 - 1 with float64; unsigned integers).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["register", "to_onnx"]

#: the drop-ins skl2onnx's Naive Bayes converter exports (through their to_sklearn())
EXPORTED = ("BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB")

#: skl2onnx's options of its Naive Bayes converters, offered for the drop-ins alike
_OPTIONS: dict[str, Any] = {
    "zipmap": [True, False, "columns"],
    "output_class_labels": [False, True],
    "nocl": [True, False],
}

_registered = False


def _skl2onnx() -> ModuleType:
    try:
        import skl2onnx
    except ImportError as exc:
        raise ImportError(
            "ONNX export requires skl2onnx (and onnxruntime to run the result): "
            "pip install 'nbayes[onnx]'"
        ) from exc
    return skl2onnx


def register() -> None:
    """Register the drop-ins' ONNX converters with skl2onnx (once; later calls do nothing).

    After it, ``skl2onnx.to_onnx(model, X)`` and ``skl2onnx.convert_sklearn`` convert the
    drop-ins, alone or in a scikit-learn pipeline. ``import nbayes`` arranges for it to run
    when skl2onnx is imported (:mod:`nbayes.interop._import_hook`): calling it yourself is
    only needed where that hook was taken off ``sys.meta_path``. Requires skl2onnx
    (``pip install 'nbayes[onnx]'``).
    """
    global _registered
    if _registered:  # (registering twice is harmless: the same entries again)
        return
    skl2onnx = _skl2onnx()
    from skl2onnx.common.shape_calculator import calculate_linear_classifier_output_shapes

    from .. import naive_bayes

    for name in EXPORTED:
        skl2onnx.update_registered_converter(
            getattr(naive_bayes, name),
            f"Nbayes{name}",
            calculate_linear_classifier_output_shapes,
            _convert,
            options=_OPTIONS,
        )
    # registered to say why not (skl2onnx's own message asks for a converter)
    skl2onnx.update_registered_converter(
        naive_bayes.PoissonNB, "NbayesPoissonNB", _refuse_shapes, _convert, parser=_refuse
    )
    _registered = True


def to_onnx(model: Any, X: Any = None, **kwargs: Any) -> Any:
    """The ONNX model of a fitted drop-in: :func:`skl2onnx.to_onnx` after :func:`register`.

    Parameters
    ----------
    model : MultinomialNB, BernoulliNB, ComplementNB, CategoricalNB or GaussianNB
        Fitted; or a scikit-learn pipeline holding one.
    X : array-like, default=None
        Example input: its type (float32, float64, int64) and width give the ONNX input's
        (or pass ``initial_types``).
    **kwargs
        skl2onnx.to_onnx's other arguments (``target_opset``, ``options`` such as
        ``{"zipmap": False}`` for the probabilities as one tensor, ...).

    Returns
    -------
    onnx.ModelProto
        Run by onnxruntime, it returns the labels of ``predict`` and the probabilities of
        ``predict_proba`` (to float32 precision with float32 input).

    Examples
    --------
    >>> import numpy as np
    >>> import nbayes
    >>> X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]], dtype=np.float32)
    >>> model = nbayes.MultinomialNB().fit(X, ["ham", "spam", "ham"])
    >>> onx = nbayes.to_onnx(model, X, options={"zipmap": False})  # doctest: +SKIP
    >>> import onnxruntime  # doctest: +SKIP
    >>> session = onnxruntime.InferenceSession(onx.SerializeToString())  # doctest: +SKIP
    >>> session.run(None, {"X": X})[0]  # doctest: +SKIP
    array(['ham', 'spam', 'ham'], dtype=object)
    """
    _check_exportable(model)
    register()
    return _skl2onnx().to_onnx(model, X, **kwargs)


def _check_exportable(model: Any) -> None:
    """A clear error for an nbayes model skl2onnx has no converter for (other models, a
    pipeline: skl2onnx says)."""
    cls = type(model)
    if not cls.__module__.startswith("nbayes.") or cls.__module__ == "nbayes.naive_bayes":
        return
    raise ValueError(
        f"nbayes.to_onnx exports the drop-ins {', '.join(EXPORTED)}; a {cls.__name__} has "
        "no ONNX converter."
    )


# --------------------------------------------------------------------------------------
# the converter: skl2onnx's, given to_sklearn()'s model
# --------------------------------------------------------------------------------------


def _convert(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of a drop-in: the converter of scikit-learn's model of the same
    statistics, which takes the drop-in's place in the graph being built."""
    from skl2onnx.common.data_types import DoubleTensorType
    from skl2onnx.operator_converters.naive_bayes import convert_sklearn_naive_bayes

    model = operator.raw_operator
    sk = model.to_sklearn()
    double = isinstance(operator.inputs[0].type, DoubleTensorType)
    if double and type(sk).__name__ == "CategoricalNB":
        # its graph computes in float32 whatever the input, and declares float64 outputs:
        # onnxruntime refuses to load it (so for scikit-learn's model too)
        raise ValueError(
            "Cannot export a CategoricalNB with float64 input: skl2onnx's converter builds an "
            "invalid graph for it. Export with the category codes as int64 (or float32), "
            "e.g. nbayes.to_onnx(model, X.astype(np.int64))."
        )
    if type(sk).__name__ == "GaussianNB" and not (sk.var_[sk.class_count_ > 0] > 0).all():
        raise ValueError(
            "Cannot export this GaussianNB to ONNX: a variance is 0 (a constant feature in a "
            "class, with var_smoothing=0 or constant data), which nbayes reads as a point mass "
            "and skl2onnx's graph as log(0). Set var_smoothing > 0 (set_params: no refit)."
        )
    _check_labels(type(model).__name__, sk.classes_, double)
    options = scope.get_options(model)  # the user's options for this model
    scope.replace_raw_operator(model, sk, f"Sklearn{type(sk).__name__}")
    if options:
        scope.add_options(id(sk), options)
    convert_sklearn_naive_bayes(scope, operator, container)


def _check_labels(name: str, classes: Any, double: bool) -> None:
    """Refuse numeric class labels that skl2onnx's Naive Bayes converter returns wrong: it
    stores them as int32 and passes the chosen one through the input's float type."""
    kind = classes.dtype.kind
    if kind in "OUS" or len(classes) == 0:  # strings: stored as they are
        return
    if kind == "u":
        raise ValueError(
            f"Cannot export this {name} to ONNX: its class labels are unsigned integers "
            f"({classes.dtype}), which skl2onnx's Naive Bayes converter cannot store. Fit on "
            "signed integers (y.astype(np.int64)) or strings."
        )
    limit = 2**31 - 1 if double else 2**24
    largest = float(abs(classes.astype(np.float64)).max()) if kind in "if" else 1.0
    if largest > limit:
        raise ValueError(
            f"Cannot export this {name} to ONNX: skl2onnx's Naive Bayes converter stores class "
            f"labels as int32 and returns them through the input's float type, exact up to "
            f"{limit} with {'float64' if double else 'float32'} input; the labels reach "
            f"{largest:.0f}. Encode them (sklearn.preprocessing.LabelEncoder gives 0 .. n-1)"
            f"{'' if double else ', or export with float64 input'}."
        )


def _refuse(scope: Any, model: Any, inputs: Any, custom_parsers: Any = None) -> Any:
    raise ValueError(
        f"Cannot export this {type(model).__name__} to ONNX: skl2onnx converts scikit-learn's "
        f"Naive Bayes models, and scikit-learn has no {type(model).__name__}. Exported: "
        f"{', '.join(EXPORTED)}."
    )


def _refuse_shapes(operator: Any) -> None:  # pragma: no cover - the parser refuses first
    _refuse(None, operator.raw_operator, None)
