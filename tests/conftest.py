"""The test suite's markers: ``quick`` is everything but the slow tests, for a first run.

``python -m pytest -m quick`` runs the tests that are neither marked ``slow`` nor in one of
the modules below (end-to-end runs of processes, clusters, browsers, fuzzing and
property searches): the library, the file formats and the command line in a few minutes
(README: Tests). CI runs everything (``python -m pytest``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: modules whose tests start processes, servers, clusters or browsers, or search many
#: examples: not quick (their tests take seconds each on two cores)
NOT_QUICK = {
    "tests/cli/test_cli_interrupt.py",
    "tests/distributed/test_distributed.py",
    "tests/docs",
    "tests/fuzz",
    "tests/model_selection/test_model_selection.py",
    "tests/native/test_native.py",
    "tests/serve",
    "tests/test_fresh_install.py",
    "tests/test_properties.py",
}


#: test functions (all their parameters) that took 3 s or more on two cores (a full run with
#: each test's duration recorded, summed over a function's parameters): not quick either
NOT_QUICK_TESTS = frozenset({
    "tests/cli/test_cli.py::test_closed_stdout_is_one_clear_error",
    "tests/cli/test_cli.py::test_concurrent_updates_take_turns_and_none_is_lost",
    "tests/cli/test_cli_first_hour.py::test_reading_a_text_model_imports_no_scikit_learn_scipy_or_pandas",
    "tests/cli/test_cli_lean.py::test_predicting_imports_no_scikit_learn_scipy_or_pandas",
    "tests/cli/test_cli_tables.py::test_dask_workers_local_cluster",
    "tests/interop/test_onnx.py::test_onnx_export_of_any_fit_agrees",
    "tests/interop/test_onnx.py::test_skl2onnx_converts_once_nbayes_is_imported_first",
    "tests/interop/test_onnx.py::test_skl2onnx_converts_when_imported_before_nbayes",
    "tests/interop/test_sklearn.py::test_converted_model_updates_unlearns_and_merges_as_nbayes",
    "tests/interop/test_sklearn.py::test_from_sklearn_predicts_as_sklearn_and_converts_back_bit_for_bit",
    "tests/interop/test_sklearn.py::test_sklearn_partial_fit_continues_a_to_sklearn_model",
    "tests/interop/test_sklearn.py::test_to_sklearn_predicts_as_nbayes_and_converts_back",
    "tests/io/test_load_invariants.py::test_a_dense_header_is_refused_before_it_is_parsed",
    "tests/io/test_modelfile.py::test_fuzz_hypothesis_headers",
    "tests/io/test_modelfile.py::test_fuzz_random_mutations",
    "tests/io/test_modelfile.py::test_fuzz_resealed_header_mutations",
    "tests/io/test_persist.py::test_fuzz_resealed_mutations",
    "tests/io/test_registry.py::test_reading_imports_only_the_serializer_of_the_model",
    "tests/io/test_serializers_kernel_mixed.py::test_fuzz_resealed_mutations",
    "tests/spam/test_mail_hostile.py::test_hostile_mail_lets_other_threads_run",
    "tests/test_array_api.py::test_array_api_in_a_subprocess",
    "tests/test_common.py::test_sklearn_compatible_estimator",
    "tests/test_exact_derivation.py::test_a_product_equals_its_factors_multiplied_one_by_one",
    "tests/test_exact_derivation.py::test_products_compare_as_their_values",
    "tests/test_kernel.py::test_sklearn_compatible_estimator",
    "tests/test_moved_paths.py::test_old_names_work_in_a_fresh_interpreter",
    "tests/test_plot.py::test_confusion_matrix_on_given_axes_and_many_classes",
    "tests/test_plot.py::test_confusion_matrix_readable_at_20_classes",
    "tests/test_plot.py::test_informative_words_readable_at_20_classes",
    "tests/text/test_pipeline_parity.py::test_any_ngram_range_equals_the_pipeline",
    "tests/text/test_pipeline_parity.py::test_any_ngram_range_is_counted_by_the_compiled_route",
    "tests/text/test_recipes_sentiment.py::test_mark_negation_matches_reference",
    "tests/text/test_scoring.py::test_load_scorer_predicts_and_explains_as_the_loaded_estimator",
    "tests/text/test_scoring.py::test_scorer_from_statistics_equals_the_estimators_own",
    "tests/text/test_textstats.py::test_merging_packed_and_in_memory_models_is_one_fit",
    "tests/text/test_vectorizers.py::test_count_vectorizer_matches_sklearn_random_unicode",
    "tests/text/test_vectorizers.py::test_direct_count_table_growth",
})  # fmt: skip


def _not_quick(path: Path) -> bool:
    try:
        rel = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return False
    return any(rel == m or rel.startswith(m + "/") for m in NOT_QUICK)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        marks = {m.name for m in item.iter_markers()}
        if marks & {"slow", "bench"} or _not_quick(Path(str(item.path))):
            continue
        function = item.nodeid.split("[", 1)[0]
        if function in NOT_QUICK_TESTS:
            continue
        item.add_marker(pytest.mark.quick)


@pytest.fixture(autouse=True, scope="session")
def _verified_record_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The record of checked model files (``nbayes filter``'s, see
    :mod:`nbayes.io._modelfile.verified`) is kept in a folder of the test run, not in the
    user's cache (the processes the tests start inherit it)."""
    import os

    os.environ["NBAYES_CACHE_DIR"] = str(tmp_path_factory.mktemp("nbayes-cache"))


@pytest.fixture(scope="session")
def benchmark_script() -> Callable[[str], ModuleType]:
    """``benchmark_script("count_seams")``: the script ``benchmarks/count_seams.py`` as a
    module, for the tests that hold a goal its script measures (skipped when benchmarks/
    is not beside the tests, as in an unpacked sdist)."""
    import importlib.util

    def load(name: str) -> ModuleType:
        path = ROOT / "benchmarks" / f"{name}.py"
        if not path.exists():
            pytest.skip("benchmarks/ is not beside the tests")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def served_here() -> Callable[[Path, str], object]:
    """``served_here(model, url)``: a context in which this process plays ``nbayes serve``
    of ``model`` at ``url`` (its journal's ``serving`` record and the model's lock), as the
    CLI's refusals of a served model see it."""
    import os

    from nbayes.io.lock import ModelLock
    from nbayes.serve.journal import Journal, file_digest, locked, recover

    def served(model: Path, url: str) -> object:
        with locked(str(model)):
            recover(str(model))
        journal = Journal(str(model), file_digest(str(model)))
        with locked(str(model)):
            journal.catch_up()
            journal.append({"op": "serving", "pid": os.getpid(), "url": url, "workers": 1})
        journal.close()
        return ModelLock(str(model), "nbayes serve")

    return served
