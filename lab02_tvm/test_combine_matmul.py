"""Tests for lab02_tvm.graph.combine_matmul: Q/K/V merged into one matmul, the model unchanged.

References: NumPy (``x @ W + b`` per branch, float64) for the synthetic module and PyTorch eager (the
model's ``reference``) for BERT, through the lab's gate (:func:`lab02_tvm.build.gate_outputs`: absolute
1e-4, or 1e-4 of the output scale). A merged matmul computes each output column as the same 768-term
dot product as before, so the only differences are float32 summation order within a schedule.
"""
from __future__ import annotations

import re

import numpy as np
import tvm
from tvm import relax
from tvm.script import relax as R

from lab02_tvm.build import VMRunner, compile_module, gate_outputs
from lab02_tvm.graph.combine_matmul import bias_after_matmul, combine_parallel_matmul
from lab02_tvm.tuning.method import FIELD, Method

rng = np.random.default_rng(0)


def _matmuls(mod) -> int:
    return len(re.findall(r"R\.matmul\(", mod.script(show_meta=False)))


def _three_projections(n: int = 16, k: int = 32, bias_first: bool = True):
    """``main(x)`` -> three ``x @ W_i + b_i`` with constant weights and biases, bias first as
    ``torch.export``'s ``addmm`` imports; also returns the float64 NumPy reference."""
    x = relax.Var("x", R.Tensor((n, k), "float32"))
    ws = [rng.standard_normal((k, k)).astype("float32") for _ in range(3)]
    bs = [rng.standard_normal(k).astype("float32") for _ in range(3)]
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            outs = []
            for w, b in zip(ws, bs):
                m = bb.emit(relax.op.matmul(x, relax.const(w)))
                outs.append(bb.emit(relax.op.add(relax.const(b), m) if bias_first else relax.op.add(m, relax.const(b))))
            out = bb.emit_output(relax.Tuple(outs))
        bb.emit_func_output(out)
    xv = rng.standard_normal((n, k)).astype("float32")
    ref = [xv.astype(np.float64) @ w.astype(np.float64) + b for w, b in zip(ws, bs)]
    return bb.get(), xv, ref


def test_relax_combine_parallel_matmul_alone_merges_nothing_with_bias_first_constants():
    """The reason the module exists: upstream's pass leaves the imported form as it is."""
    mod, _, _ = _three_projections()
    assert _matmuls(relax.transform.CombineParallelMatmul()(mod)) == 3


def test_bias_after_matmul_swaps_only_adds_whose_second_operand_is_a_matmul():
    mod, _, _ = _three_projections()
    swapped = bias_after_matmul(mod).script(show_meta=False)
    adds = re.findall(r"R\.add\(([^,]+), ([^)]+)\)", swapped)
    assert len(adds) == 3 and all(a.strip().startswith("lv") and "metadata" in b for a, b in adds), adds
    # already matmul-first: unchanged
    plain, _, _ = _three_projections(bias_first=False)
    tvm.ir.assert_structural_equal(bias_after_matmul(plain), plain)


def test_combined_projections_are_one_matmul_and_compute_x_w_plus_b():
    mod, xv, ref = _three_projections()
    merged = combine_parallel_matmul(mod)
    assert _matmuls(merged) == 1
    ex, _ = compile_module(merged, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    outs = [o.numpy() for o in vm["main"](tvm.runtime.tensor(xv))]
    # 32-term float32 dot products of N(0,1) values: |error| ~ sqrt(32) * 2^-24 * |terms| ~ 1e-6; 1e-4 is the gate
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(o, r, atol=1e-4, rtol=1e-5)


def test_bert_qkv_merged_per_layer_and_the_model_passes_the_gate_against_pytorch(bert_small_bundle, bert_small_im):
    from lab02_tvm.graph.passes import tuning_module
    im = bert_small_im
    cfg = bert_small_bundle.meta["config"]  # the HF BertConfig fields the bundle was built from
    base = tuning_module(im)
    merged = combine_parallel_matmul(base)
    assert _matmuls(base) - _matmuls(merged) == 2 * cfg["num_hidden_layers"], (_matmuls(base), _matmuls(merged))
    tokens = next(iter(im.inputs.values())).size  # batch 1: the rows of each projection
    qkv = f"R.Tensor(({tokens}, {3 * cfg['hidden_size']}), dtype=\"float32\") = R.matmul"
    assert merged.script(show_meta=False).count(qkv) == cfg["num_hidden_layers"]
    ex, _ = compile_module(merged, "llvm")
    runner = VMRunner(ex, im, with_params=False)
    runner()
    gate_outputs(im, runner.outputs(), stage="combined Q/K/V")


def test_method_records_the_combine_and_reads_older_provenance_as_off():
    m = Method("NCHW", True, combine_matmul=True)
    assert Method.from_provenance({"method": m.as_dict()}) == m
    assert str(m) == "NCHW + weight layout rewrite + parallel matmuls combined"
    assert Method.from_provenance({"method": {"layout": "NHWC", "layout_rewrite": True}}) == FIELD
    assert not FIELD.combine_matmul


def test_a_folder_can_be_topped_up_with_its_method_plus_the_combine_and_not_the_reverse(tmp_path):
    from lab02_tvm.tuning.longrun import _method_with
    plus = Method("NCHW", True, combine_matmul=True)
    assert plus.extends(Method("NCHW", True))  # only new workloads: the merged matmuls
    assert not Method("NCHW", True).extends(plus)  # the folder's merged matmuls would not be in the build
    assert not Method("NHWC", True, combine_matmul=True).extends(Method("NCHW", True))  # other conv workloads
    assert _method_with({}, "bert", tmp_path) is None  # no flag: tune_records keeps the folder's method
    assert _method_with({"combine_matmul": True}, "bert", tmp_path) == Method("NHWC", True, True)  # no folder: FIELD


def test_every_workload_of_the_plain_build_is_still_a_workload_with_qkv_merged(bert_small_im):
    """What :meth:`Method.extends` relies on: a folder's records stay valid; the merge only adds workloads."""
    from lab02_tvm.graph.passes import tuning_module
    import tvm_ffi

    from lab02_tvm.tuning.tasks import extract_tasks
    base = tuning_module(bert_small_im)
    # MetaSchedule keys a record by the structural hash of the task's module (JSONDatabase's workload)
    keys = {m: {tvm_ffi.structural_hash(t.task.dispatched[0]) for t in extract_tasks(mod, "llvm", True)}
            for m, mod in (("plain", base), ("merged", combine_parallel_matmul(base)))}
    assert keys["plain"] <= keys["merged"], keys["plain"] - keys["merged"]
    assert keys["merged"] - keys["plain"]  # the merged Q/K/V matmul (and its slices) are new
