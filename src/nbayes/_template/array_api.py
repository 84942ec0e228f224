"""Array-API inputs in, outputs in their namespace: what scikit-learn's GaussianNB does under
``sklearn.config_context(array_api_dispatch=True)``, and float32 kept as float32.

The statistics stay numpy float64 (merge, unlearn and model files work on them, and the
moments keep their precision); the input is brought to numpy at the boundary and what the
model answers (the fitted arrays, probabilities, numeric labels) goes back to the namespace,
device and float dtype of the data of the first fit. :class:`ArrayAPIOutputs` is a mixin put
before :class:`nbayes._template.base.BaseNB`; it uses the outputs hooks of
:class:`nbayes._template.posterior.PosteriorMixin`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from sklearn import get_config

__all__ = ["ArrayAPIOutputs", "Outputs", "check_numpy_input", "to_numpy"]


def _compat() -> Any:
    # scikit-learn ships array-api-compat (the public library) as sklearn.externals; by
    # name, as its py.typed would make mypy read the whole of sklearn as typed
    return importlib.import_module("sklearn.externals.array_api_compat")


def _foreign(x: Any) -> bool:
    """Whether x is an array of another array-API namespace, to be read under dispatch."""
    if x is None or isinstance(x, np.ndarray) or not get_config().get("array_api_dispatch"):
        return False
    compat = _compat()
    return bool(compat.is_array_api_obj(x)) and not compat.is_numpy_array(x)


def to_numpy(x: Any) -> Any:
    """A numpy copy of an array of any namespace and device (other inputs unchanged)."""
    if not _foreign(x):
        return x
    compat = _compat()
    if compat.is_torch_array(x):
        return x.detach().cpu().numpy()
    if compat.is_cupy_array(x):
        return x.get()
    return np.from_dlpack(x)


@dataclass(frozen=True)
class Outputs:
    """Where a model's answers go: ``xp`` (None: numpy) on ``device``, floats of ``dtype``."""

    xp: Any
    device: Any
    dtype: str

    @classmethod
    def of(cls, X: Any) -> Outputs:
        dtype = "float32" if str(getattr(X, "dtype", "")).endswith("float32") else "float64"
        if not _foreign(X):
            return cls(None, None, dtype)
        compat = _compat()
        return cls(compat.array_namespace(X), compat.device(X), dtype)

    def floats(self, arr: Any) -> Any:
        arr = np.asarray(arr)
        if arr.dtype.kind == "f" and arr.dtype != self.dtype:
            arr = arr.astype(self.dtype)
        return arr if self.xp is None else self.xp.asarray(arr, device=self.device)

    def labels(self, arr: np.ndarray) -> Any:
        # numeric labels follow the namespace of X, as scikit-learn's; strings stay numpy
        if self.xp is None or arr.dtype.kind not in "biuf":
            return arr
        return self.xp.asarray(arr, device=self.device)


def check_numpy_input(X: Any, who: str) -> None:
    """A TypeError for an array of another array-API namespace (torch, array_api_strict...)
    that scikit-learn's ``array_api_dispatch`` passed through: of the models, GaussianNB
    alone reads them (the others failed deep inside, on the array's dtype)."""
    if _foreign(X):
        space = getattr(type(X), "__module__", "").split(".")[0] or type(X).__name__
        raise TypeError(
            f"{who} reads numpy arrays, scipy sparse matrices and pandas or polars tables, "
            f"not {space} arrays: under scikit-learn's array_api_dispatch only GaussianNB "
            "reads other array namespaces. Convert X (numpy.asarray(X), or X.cpu().numpy() "
            "for torch) or use GaussianNB."
        )


_NUMPY = Outputs(None, None, "float64")


class ArrayAPIOutputs:
    """Mixin: learning calls read array-API inputs, answers go back to their namespace."""

    def _outputs(self) -> Outputs:
        return self.__dict__.get("_output_space", _NUMPY)

    def _float_out(self, arr: Any) -> Any:
        return self._outputs().floats(arr)

    def _labels_out(self, arr: np.ndarray) -> Any:
        return self._outputs().labels(arr)

    def _learned(self, X: Any, first: bool) -> Self:
        if first:
            self._output_space = Outputs.of(X)
        return self

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        Xn, yn, sw = to_numpy(X), to_numpy(y), to_numpy(sample_weight)
        super().fit(Xn, yn, sample_weight=sw)  # type: ignore[misc]
        return self._learned(X, True)

    def partial_fit(self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Self:
        first = not self.__sklearn_is_fitted__()  # type: ignore[attr-defined]
        args = (to_numpy(X), to_numpy(y), to_numpy(classes), to_numpy(sample_weight))
        super().partial_fit(*args)  # type: ignore[misc]
        return self._learned(X, first)

    def update(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        first = not self.__sklearn_is_fitted__()  # type: ignore[attr-defined]
        super().update(to_numpy(X), to_numpy(y), to_numpy(sample_weight))  # type: ignore[misc]
        return self._learned(X, first)

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        super().unlearn(to_numpy(X), to_numpy(y), to_numpy(sample_weight))  # type: ignore[misc]
        return self

    def _check_space(self, X: Any, method: str) -> None:
        """Under dispatch, X must come from the namespace and device of fit (as
        scikit-learn's ``check_same_namespace``)."""
        if not get_config().get("array_api_dispatch"):
            return
        fitted, given = self._outputs(), Outputs.of(X)
        if (fitted.xp, fitted.device) == (given.xp, given.device):
            return
        name = "numpy" if fitted.xp is None else fitted.xp.__name__
        raise ValueError(
            f"Inputs passed to {type(self).__name__}.{method}() must use the same namespace "
            "and the same device as those passed to fit(). The model was fitted on "
            f"{name} arrays (device {fitted.device}); X is "
            f"{'numpy' if given.xp is None else given.xp.__name__} (device {given.device}). "
            "Convert X, or refit on arrays of its namespace."
        )

    def _joint(self, X: Any) -> np.ndarray:
        return super().predict_joint_log_proba(to_numpy(X))  # type: ignore[misc]

    def predict_joint_log_proba(self, X: Any) -> Any:
        """Joint log-probability ``log P(x, y)`` per row and class (columns follow
        ``classes_``), in the namespace and float dtype of the training data."""
        self._check_space(X, "predict_joint_log_proba")
        return self._float_out(self._joint(X))

    def predict(self, X: Any) -> Any:
        self._check_space(X, "predict")
        return super().predict(X)  # type: ignore[misc]

    def predict_proba(self, X: Any) -> Any:
        self._check_space(X, "predict_proba")
        return super().predict_proba(X)  # type: ignore[misc]

    def predict_log_proba(self, X: Any) -> Any:
        self._check_space(X, "predict_log_proba")
        return super().predict_log_proba(X)  # type: ignore[misc]

    @property
    def classes_(self) -> Any:
        """Class labels known to the classifier (sorted; numeric ones in the namespace of
        the training data, as scikit-learn's)."""
        return self._labels_out(super().classes_)  # type: ignore[misc]

    @property
    def class_count_(self) -> Any:
        """Weighted number of training samples per class."""
        return self._float_out(super().class_count_)  # type: ignore[misc]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.array_api_support = True
        return tags
