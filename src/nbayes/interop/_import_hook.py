"""skl2onnx converts the drop-ins once nbayes and skl2onnx are both imported, in either order.

``import nbayes`` calls :func:`watch`: if skl2onnx is imported already, the converters are
registered at once (:func:`nbayes.interop.onnx.register`); otherwise a finder on
``sys.meta_path`` (as :mod:`nbayes._compat`'s) waits for ``import skl2onnx``, lets skl2onnx's
own loader run it, registers, and takes itself off ``sys.meta_path``. Until then every
import costs it one string comparison, and ``import nbayes`` imports neither skl2onnx nor
:mod:`nbayes.interop.onnx`.

This module imports only :mod:`sys`, so it sits at the bottom of the layers, and names
:mod:`nbayes.interop.onnx` (a tool above the models) by its name, as ``nbayes/__init__.py``
names the layers above it: the package root is imported by every layer.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["watch"]

#: the module that registers the converters (imported by name when skl2onnx is there)
_REGISTRAR = "nbayes.interop.onnx"


def watch() -> None:
    """Register nbayes's ONNX converters now if skl2onnx is imported, else when it is."""
    if "skl2onnx" in sys.modules:
        _register()
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())


def _register() -> None:
    """Register, or warn why not: a failure must not break ``import skl2onnx`` (nor
    ``import nbayes``); ``nbayes.to_onnx`` raises the error itself."""
    from importlib import import_module

    try:
        import_module(_REGISTRAR).register()
    except Exception as exc:  # an incompatible skl2onnx, a broken install
        import warnings

        from ..exceptions import NBayesWarning

        warnings.warn(
            f"nbayes could not register its ONNX converters with skl2onnx ({exc!r}): "
            "skl2onnx.to_onnx will not convert nbayes's models; nbayes.to_onnx(model, X) "
            "raises the error.",
            NBayesWarning,
            stacklevel=2,
        )


class _AfterImport:
    """Finder of skl2onnx that has skl2onnx's own loader load it, then registers.

    It finds nothing itself: it asks the finders after it for skl2onnx's spec and wraps the
    loader. (No importlib.abc base: importing that module would cost ``import nbayes``
    ~10 ms; the import system needs only the methods.) The import lock of ``skl2onnx``
    makes its look-ups one at a time.
    """

    def __init__(self) -> None:
        self._busy = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "skl2onnx" or self._busy:
            return None
        self._busy = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is not self and hasattr(finder, "find_spec"):
                    spec = finder.find_spec(fullname, path, target)
                    if spec is not None:
                        break
        finally:
            self._busy = False
        if spec is None or spec.loader is None:
            return None
        spec.loader = _ThenRegister(spec.loader)  # type: ignore[assignment]
        return spec

    def __repr__(self) -> str:
        return "<nbayes: registers its ONNX converters when skl2onnx is imported>"


class _ThenRegister:
    """skl2onnx's loader, then the registration; the module keeps its own loader."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        for finder in [f for f in sys.meta_path if isinstance(f, _AfterImport)]:
            sys.meta_path.remove(finder)  # its work is done
        _register()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
