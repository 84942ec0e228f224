"""Interoperability: the drop-ins and scikit-learn's models, and ONNX export (docs/interop.md).

* :mod:`nbayes.interop.sklearn`: ``to_sklearn()`` and ``from_sklearn()`` of the five drop-ins
  that scikit-learn also has: a model's statistics as its counterpart's fitted attributes,
  and back.
* :mod:`nbayes.interop.onnx`: ONNX export through skl2onnx (``nbayes.to_onnx``, or
  ``skl2onnx.to_onnx`` once nbayes is imported); skl2onnx is imported only when used.

Nothing is imported here: ``import nbayes`` reads :mod:`nbayes.interop.onnx` (standard library
only until ONNX is used), and neither module may pull in the other's dependencies.
"""

from __future__ import annotations
