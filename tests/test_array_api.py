"""GaussianNB under ``sklearn.config_context(array_api_dispatch=True)`` (issue 15, item 7).

scikit-learn's array-API mode needs ``SCIPY_ARRAY_API=1`` before scipy is imported, which
the rest of the suite has done long before: without it, one test runs this module (and the
array-API checks of tests/test_common.py for GaussianNB) in a subprocess with it set.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nbayes import GaussianNB

X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]])
Y = np.array([1, 1, 1, 2, 2, 2])


def test_float32_stays_float32() -> None:
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB

    X32 = X.astype(np.float32)
    ours, theirs = GaussianNB().fit(X32, Y), SkGaussianNB().fit(X32, Y)
    for name in ("theta_", "var_", "class_prior_", "class_count_"):
        assert getattr(ours, name).dtype == getattr(theirs, name).dtype == np.float32, name
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-6)
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        got, want = getattr(ours, method)(X32), getattr(theirs, method)(X32)
        assert got.dtype == want.dtype == np.float32, method
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # the statistics keep float64 (merge, unlearn, model files)
    assert ours._stats.mean.dtype == np.float64
    assert GaussianNB().fit(X, Y).theta_.dtype == np.float64


#: this module's array-API tests, and scikit-learn's array-API checks of GaussianNB
SELECTED = "(GaussianNB and array_api) or test_gnb or refuses or learning_calls"

if os.environ.get("SCIPY_ARRAY_API") != "1":

    def test_array_api_in_a_subprocess() -> None:
        pytest.importorskip("array_api_strict")
        if np.lib.NumpyVersion(np.__version__) < "2.0.0":
            # (scikit-learn's _convert_to_numpy cannot take array_api_strict's second device)
            pytest.skip("scikit-learn's own array-API checks fail on numpy 1.x")
        here = Path(__file__)
        env = {**os.environ, "SCIPY_ARRAY_API": "1"}
        run = subprocess.run(
            [
                sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n0", str(here),
                str(here.parent / "test_common.py"), "-k", SELECTED,
            ],  # -n0: in that process (it is one of the suite's test processes already)
            env=env, capture_output=True, text=True, timeout=600, cwd=here.parent.parent,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        # 8 compliance cases, 2 more here, and scikit-learn's array-API checks of GaussianNB
        # on array_api_strict (the torch and cupy ones are skipped: not installed)
        counted = re.search(r"(\d+) passed", run.stdout)
        assert counted is not None and int(counted.group(1)) >= 14, run.stdout[-2000:]

else:
    from sklearn import config_context
    from sklearn.utils._array_api import yield_namespace_device_dtype_combinations

    xp_strict = pytest.importorskip("array_api_strict")
    COMBOS = [c for c in yield_namespace_device_dtype_combinations() if c[0] == "array_api_strict"]

    def _device(x: object) -> object:
        from nbayes._template.array_api import _compat

        return _compat().device(x)

    def _np(x: object) -> np.ndarray:
        from nbayes._template.array_api import to_numpy

        with config_context(array_api_dispatch=True):
            return np.asarray(to_numpy(x))

    # scikit-learn's test_gnb_array_api_compliance, on nbayes's GaussianNB
    @pytest.mark.parametrize("use_str_y", [False, True])
    @pytest.mark.parametrize("use_sample_weight", [False, True])
    @pytest.mark.parametrize(("namespace", "device_name", "dtype_name"), COMBOS)
    def test_gnb_array_api_compliance(
        use_str_y: bool, use_sample_weight: bool, namespace: str, device_name: str,
        dtype_name: str,
    ) -> None:  # fmt: skip
        device = xp_strict.Device(device_name)
        X_np = X.astype(dtype_name)
        X_xp = xp_strict.asarray(X_np, device=device)
        if use_str_y:
            y_np = np.array(["a", "a", "a", "b", "b", "b"])
            y_xp_or_np = y_np.copy()
        else:
            y_np = Y.astype(dtype_name)
            y_xp_or_np = xp_strict.asarray(y_np, device=device)
        sample_weight = np.array([1, 2, 3, 1, 2, 3]) if use_sample_weight else None

        clf_np = GaussianNB().fit(X_np, y_np, sample_weight=sample_weight)
        with config_context(array_api_dispatch=True):
            clf_xp = GaussianNB().fit(X_xp, y_xp_or_np, sample_weight=sample_weight)
            for name in ("class_count_", "class_prior_", "theta_", "var_"):
                attr = getattr(clf_xp, name)
                assert attr.dtype == X_xp.dtype, name
                assert _device(attr) == _device(X_xp), name
                np.testing.assert_allclose(_np(attr), getattr(clf_np, name), rtol=1e-6)
            pred = clf_xp.predict(X_xp)
            if not use_str_y:
                assert _device(pred) == _device(X_xp)
                pred = _np(pred)
            np.testing.assert_array_equal(pred, clf_np.predict(X_np))
            assert pred.dtype == clf_np.predict(X_np).dtype
            for method in ("predict_proba", "predict_log_proba"):
                out = getattr(clf_xp, method)(X_xp)
                assert out.dtype == X_xp.dtype
                assert _device(out) == _device(X_xp)
                want = getattr(clf_np, method)(X_np)
                np.testing.assert_allclose(_np(out), want, rtol=1e-5, atol=1e-6)

    def test_predict_refuses_another_namespace() -> None:
        X_xp = xp_strict.asarray(X.astype("float64"))
        with config_context(array_api_dispatch=True):
            model = GaussianNB().fit(X_xp, xp_strict.asarray(Y))
            for method in ("predict", "predict_proba", "predict_log_proba"):
                with pytest.raises(ValueError, match=f"GaussianNB.{method}.*same namespace"):
                    getattr(model, method)(X)

    @pytest.mark.parametrize(
        "name", ["MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB", "PoissonNB"]
    )
    def test_the_other_models_refuse_another_namespace_with_advice(name: str) -> None:
        # they failed deep inside ("'DType' object has no attribute 'kind'")
        import nbayes

        X_xp, y_xp = xp_strict.asarray(X.astype("float64") + 2), xp_strict.asarray(Y)
        with config_context(array_api_dispatch=True):
            with pytest.raises(TypeError, match=f"{name} reads numpy arrays.*array_api_strict"):
                getattr(nbayes, name)().fit(X_xp, y_xp)
            model = getattr(nbayes, name)().fit(X + 2, Y)
            with pytest.raises(TypeError, match="only GaussianNB reads other array namespaces"):
                model.predict(X_xp)

    def test_learning_calls_take_array_api_inputs() -> None:
        X_xp = xp_strict.asarray(X.astype("float64"))
        y_xp = xp_strict.asarray(Y)
        with config_context(array_api_dispatch=True):
            model = GaussianNB().partial_fit(X_xp, y_xp, classes=xp_strict.asarray([1, 2]))
            model.update(X_xp, y_xp).unlearn(X_xp, y_xp)
            merged = model.merge(GaussianNB().fit(X_xp, y_xp))
            assert type(merged.theta_) is type(X_xp)
            assert merged.score(X_xp, y_xp) == 1.0
        reference = GaussianNB().fit(np.vstack([X, X]), np.concatenate([Y, Y]))
        np.testing.assert_allclose(_np(merged.var_), reference.var_)


def test_float16_and_long_double_inputs_answer_in_float64() -> None:
    """README, drop-in: float16 and long double X are computed in float64 (scikit-learn
    keeps their type); float32 stays float32 as scikit-learn's."""
    import numpy as np

    from nbayes import GaussianNB

    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.arange(20) % 2
    for dtype, want in ((np.float16, np.float64), (np.longdouble, np.float64),
                        (np.float32, np.float32)):  # fmt: skip
        model = GaussianNB().fit(X.astype(dtype), y)
        assert model.theta_.dtype == want and model.predict_proba(X.astype(dtype)).dtype == want
