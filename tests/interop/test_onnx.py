"""ONNX export of the drop-ins (docs/interop.md): onnxruntime agrees with predict and
predict_proba; skl2onnx.to_onnx works once nbayes is imported, in either import order, and
importing nbayes imports no skl2onnx; what does not export says why."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal

skl2onnx = pytest.importorskip("skl2onnx")
ort = pytest.importorskip("onnxruntime")

import nbayes  # noqa: E402

NAMES = ("MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB", "GaussianNB")
SETTINGS = settings(
    max_examples=int(os.environ.get("NBAYES_MAX_EXAMPLES", "12")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def tolerance(name: str, dtype) -> float:
    """float32: its precision. float64: to rounding, but BernoulliNB, whose graph takes
    log(1.000000001 - p) for log(1 - p) (skl2onnx's guard against log 0, for scikit-learn's
    model too: an error of 1e-9 / (1 - p)), and CategoricalNB, whose graph is float32."""
    exact = dtype == np.float64 and name not in ("BernoulliNB", "CategoricalNB")
    return 1e-12 if exact else 1e-5


def run(onx, X: np.ndarray) -> list:
    options = ort.SessionOptions()
    options.log_severity_level = 3  # ComplementNB's graph keeps an unused initializer
    session = ort.InferenceSession(
        onx.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, {session.get_inputs()[0].name: X})


def data(name: str, rng: np.random.Generator, n: int = 40, d: int = 5) -> np.ndarray:
    if name == "GaussianNB":
        return rng.normal(size=(n, d)) * [1, 10, 100, 0.1, 1][:d]
    return rng.integers(0, 5, size=(n, d)).astype(np.float64)


def assert_agrees(model, X: np.ndarray, labels, proba, atol: float) -> None:
    assert_allclose(proba, model.predict_proba(X), rtol=0, atol=atol)
    expected = model.predict(X)
    # rows whose two best classes are within the float type's rounding may go either way
    p = np.sort(model.predict_proba(X), axis=1)
    tie = p[:, -1] - p[:, -2] <= 4 * atol if p.shape[1] > 1 else np.zeros(len(X), bool)
    assert np.all((np.asarray(labels) == expected) | tie)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_onnxruntime_agrees_with_predict_and_predict_proba(name, dtype):
    rng = np.random.default_rng(0)
    X = data(name, rng)
    y = np.array(["spam", "ham", "eggs"])[rng.integers(0, 3, len(X))]
    model = getattr(nbayes, name)().fit(X, y)
    Xt = X.astype(dtype)
    if name == "CategoricalNB" and dtype == np.float64:
        with pytest.raises(ValueError, match="Export with the category codes as int64"):
            nbayes.to_onnx(model, Xt[:1])
        Xt = X.astype(np.int64)  # its input type: codes
    onx = nbayes.to_onnx(model, Xt[:1], options={"zipmap": False})
    labels, proba = run(onx, Xt)
    assert_agrees(model, X, labels, proba, atol=tolerance(name, Xt.dtype))
    if dtype == np.float64:
        return  # ONNX's ZipMap takes float32 only (so for scikit-learn's models too)
    # the default output: one {label: probability} per row, as for scikit-learn's model
    labels, maps = run(skl2onnx.to_onnx(model, Xt[:1]), Xt)
    proba = np.array([[row[c] for c in model.classes_] for row in maps])
    assert_agrees(model, X, labels, proba, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_onnx_export_of_any_fit_agrees(name, data):
    n = data.draw(st.integers(2, 30))
    d = data.draw(st.integers(1, 5))
    if name == "GaussianNB":
        X = data.draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-500, 500))) / 50.0
    else:
        X = data.draw(hnp.arrays(np.int64, (n, d), elements=st.integers(0, 6))).astype(float)
    codes = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, 3)))
    y = data.draw(st.sampled_from([codes * 5 - 7, np.array(["a", "b", "c", "d"])[codes]]))
    model = getattr(nbayes, name)().fit(X, y, sample_weight=np.arange(1, n + 1) / n)
    if name == "CategoricalNB":
        X = X.astype(np.int64)  # (float64 input: refused, see above)
    if name == "GaussianNB" and (model.var_ <= 0).any():
        with pytest.raises(ValueError, match="a variance is 0"):
            nbayes.to_onnx(model, X[:1])
        return
    labels, proba = run(nbayes.to_onnx(model, X[:1], options={"zipmap": False}), X)
    assert_agrees(model, X, labels, proba, atol=tolerance(name, X.dtype))


def test_models_converted_from_sklearn_and_updated_export():
    from sklearn.naive_bayes import BernoulliNB

    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(30, 4)).astype(np.float32)
    y = rng.integers(0, 2, 30)
    model = nbayes.BernoulliNB.from_sklearn(BernoulliNB(binarize=1.0).fit(X, y))
    model.update(X[:5], np.full(5, 7))  # a class scikit-learn's partial_fit would refuse
    labels, proba = run(nbayes.to_onnx(model, X[:1], options={"zipmap": False}), X)
    assert_agrees(model, X, labels, proba, atol=1e-5)


def test_options_for_one_model_and_pipelines():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3)).astype(np.float32)
    y = rng.integers(0, 3, 40)
    model = nbayes.GaussianNB().fit(X, y)
    # options keyed by the model (id), and output_class_labels
    opts = {id(model): {"zipmap": False, "output_class_labels": True}}
    labels, proba, class_labels = run(skl2onnx.to_onnx(model, X[:1], options=opts), X)
    assert_agrees(model, X, labels, proba, atol=1e-5)
    assert_array_equal(class_labels, model.classes_)  # the labels, in column order
    pipe = make_pipeline(MinMaxScaler(), nbayes.MultinomialNB()).fit(X, y)
    labels, proba = run(skl2onnx.to_onnx(pipe, X[:1], options={"zipmap": False}), X)
    assert_agrees(pipe, X, labels, proba, atol=1e-5)


@pytest.mark.parametrize(
    ("y", "out"),
    [
        (np.array([-3, 40, 40, -3, 7]), np.int64),  # any signed integers
        (np.array([True, False, True, True, False]), np.int64),  # bools come out as 0/1
        (np.array([2.0, 4.0, 2.0, 4.0, 4.0]), np.int64),  # integral floats: as integers
        (np.array(["b", "a", "c", "a", "b"], dtype=object), object),
    ],
)
def test_label_types(y, out):
    X = np.array([[1, 0], [0, 3], [2, 2], [1, 1], [0, 4]], dtype=np.float32)
    model = nbayes.MultinomialNB().fit(X, y)
    labels, proba = run(nbayes.to_onnx(model, X, options={"zipmap": False}), X)
    assert labels.dtype == out
    assert_array_equal(labels, model.predict(X))  # equal values (True == 1)
    assert_allclose(proba, model.predict_proba(X), atol=1e-6)


def test_what_does_not_export_says_why():
    X = np.array([[1.0, 0.0], [0.0, 3.0]], dtype=np.float32)
    with pytest.raises(ValueError, match="scikit-learn has no PoissonNB"):
        nbayes.to_onnx(nbayes.PoissonNB().fit(X, [0, 1]), X)
    with pytest.raises(ValueError, match="scikit-learn has no PoissonNB"):
        skl2onnx.to_onnx(nbayes.PoissonNB().fit(X, [0, 1]), X)
    with pytest.raises(ValueError, match="labelled categories"):
        nbayes.to_onnx(nbayes.CategoricalNB().fit([["red"], ["blue"]], [0, 1]), X[:, :1])
    with pytest.raises(ValueError, match="a KernelNB has no ONNX converter"):
        nbayes.to_onnx(nbayes.KernelNB().fit(X, [0, 1]), X)
    big = nbayes.MultinomialNB().fit(X, [0, 2**25])
    with pytest.raises(ValueError, match=r"exact up to 16777216 with float32 input.*float64"):
        nbayes.to_onnx(big, X)
    X64 = X.astype(np.float64)
    labels, _ = run(nbayes.to_onnx(big, X64, options={"zipmap": False}), X64)
    assert_array_equal(labels, [0, 2**25])  # exact with float64 input
    with pytest.raises(ValueError, match="unsigned integers"):
        nbayes.to_onnx(nbayes.MultinomialNB().fit(X, np.array([1, 2], dtype=np.uint8)), X)


# ---------------------------------------------------- what users type, in a fresh process
USER_CODE = """
import numpy as np
X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]], dtype=np.float32)
model = nbayes.MultinomialNB().fit(X, ["ham", "spam", "ham"])
onx = skl2onnx.to_onnx(model, X[:1], options={"zipmap": False})
import onnxruntime
session = onnxruntime.InferenceSession(onx.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
labels, proba = session.run(None, {"X": X})
assert list(labels) == list(model.predict(X)), labels
assert np.allclose(proba, model.predict_proba(X), atol=1e-6)
print("ok")
"""


def python(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.slow
def test_skl2onnx_converts_once_nbayes_is_imported_first():
    code = """
    import sys
    import nbayes
    assert "skl2onnx" not in sys.modules and "nbayes.interop.onnx" not in sys.modules
    import skl2onnx
    """
    assert python(textwrap.dedent(code) + USER_CODE).split() == ["ok"]


@pytest.mark.slow
def test_skl2onnx_converts_when_imported_before_nbayes():
    code = """
    import skl2onnx
    import nbayes
    """
    assert python(textwrap.dedent(code) + USER_CODE).split() == ["ok"]
