"""Lab 02's shared test models: built once per session, read by every test module that needs them.

The reduced configurations of :data:`lab02_tvm.models.MODELS` (``quick``): BERT 2 layers / hidden 128
(sequence 128), ResNet depths 1-1-1-1 at 64x64. Imported models and the modules passes make of them are
immutable Relax modules, so tests share them safely; a test that wants another shape builds its own.
"""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _shared_worker_pools():
    """MetaSchedule's builder and runner worker processes (each an ``import tvm``, 2.6 s on Zen 4) kept for the
    session (:func:`lab02_tvm.tuning.harness.shared_pools`): the tests tune, re-time and climb dozens of times.
    Timings and results are the workers' own either way; only how often a worker process starts differs."""
    from lab02_tvm.tuning.harness import shared_pools
    with shared_pools():
        yield


@pytest.fixture(scope="session")
def host():
    """This host's TVM target dict (``llvm`` + the host ``mcpu``; :func:`lab02_tvm.build.host_target`)."""
    from lab02_tvm.build import host_target
    return host_target()


@pytest.fixture(scope="session")
def bert_small_bundle():
    """Test-size BERT (:class:`common.models.ModelBundle`: the PyTorch model, its inputs, FLOPs)."""
    from lab02_tvm.models import build_bundle
    return build_bundle("bert", quick=True)


@pytest.fixture(scope="session")
def bert_small_im():
    """Test-size BERT imported into Relax (its PyTorch outputs are the reference): the one the tools import
    (:func:`lab02_tvm.models.imported`, kept per process)."""
    from lab02_tvm.models import imported
    return imported("bert", quick=True)


@pytest.fixture(scope="session")
def bert_small(bert_small_bundle, bert_small_im):
    """``(bundle, imported model, standard passes)`` of test-size BERT (import + passes ~5 s, once)."""
    from lab02_tvm.graph.passes import run_standard_passes
    return bert_small_bundle, bert_small_im, run_standard_passes(bert_small_im.mod)


@pytest.fixture(scope="session")
def resnet_small_bundle():
    """Test-size ResNet (depths 1-1-1-1, 64x64; :class:`common.models.ModelBundle`): its PyTorch model, inputs."""
    from lab02_tvm.models import build_bundle
    return build_bundle("resnet50", quick=True)


@pytest.fixture(scope="session")
def resnet_small_im():
    """Test-size ResNet imported into Relax (its PyTorch outputs are the reference): the one the tools import
    (:func:`lab02_tvm.models.imported`, kept per process)."""
    from lab02_tvm.models import imported
    return imported("resnet50", quick=True)


@pytest.fixture(scope="session")
def resnet_small_field(resnet_small_im):
    """Test-size ResNet's tuning module (:func:`lab02_tvm.graph.passes.tuning_module`: weights bound and folded,
    ~6 s a call) in the field method (:data:`lab02_tvm.tuning.method.FIELD`: NHWC), as records are tuned in it."""
    from lab02_tvm.tuning.method import FIELD
    return FIELD.prepared("resnet50", quick=True)[1]


@pytest.fixture(scope="session")
def resnet_small_convs(host, resnet_small_field):
    """``(target, tasks)``: this host's target on one core and the first two conv2d tasks MetaSchedule extracts
    from :func:`resnet_small_field` with weight layout rewrite (the kernels the records tests write records of)."""
    from lab02_tvm.tuning.tasks import extract_tasks
    target = {**host, "num-cores": 1}
    return target, [t for t in extract_tasks(resnet_small_field, target, True) if "conv2d" in t.name][:2]
