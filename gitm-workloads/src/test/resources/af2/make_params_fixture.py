#!/usr/bin/env python3
"""Writes the af2 workload's parameter-file fixtures: tiny AlphaFold2 monomer parameter files in the published
format (numpy .npz of float32 arrays named 'haiku/module/path//param', the Evoformer blocks stacked on a leading
axis), with a few arrays of other parts of the model that the workload ignores, and a text listing of every array
(name, shape, values as float.hex) that the Java test compares the loader against. Also a file of dtype variants
and malformed arrays for the loader's error tests.

Run from this folder: python3 make_params_fixture.py   (numpy only; deterministic)
"""
import numpy as np

B, CM, CZ, HM, HZ, CO, CT, F, CS = 2, 8, 4, 2, 2, 2, 4, 2, 6
DM, DZ = CM // HM, CZ // HZ
EVO = "alphafold/alphafold_iteration/evoformer/"
BLK = EVO + "evoformer_iteration/"
rng = np.random.default_rng(20261130)
params = {}


def put(name, shape, kind="w"):
    if kind == "scale":
        a = 1.0 + 0.1 * rng.standard_normal(shape)
    elif kind == "small":
        a = 0.1 * rng.standard_normal(shape)
    else:
        a = 0.4 * rng.standard_normal(shape)
    params[name] = a.astype(np.float32)


def linear(module, i, o, stacked=True):
    put(module + "//weights", ((B,) if stacked else ()) + (i, o))
    put(module + "//bias", ((B,) if stacked else ()) + (o,), "small")


def norm(module, c):
    put(module + "//scale", (B, c), "scale")
    put(module + "//offset", (B, c), "small")


def attention(module, c, h, d):
    norm(module + "/query_norm", c)
    for p in ("query_w", "key_w", "value_w", "gating_w"):
        put(module + "/attention//" + p, (B, c, h, d))
    put(module + "/attention//gating_b", (B, h, d), "scale")
    put(module + "/attention//output_w", (B, h, d, c))
    put(module + "/attention//output_b", (B, c), "small")


def tri_mult(module):
    norm(module + "/layer_norm_input", CZ)
    for side in ("left", "right"):
        linear(module + "/" + side + "_projection", CZ, CT)
        linear(module + "/" + side + "_gate", CZ, CT)
    norm(module + "/center_layer_norm", CT)
    linear(module + "/output_projection", CT, CZ)
    linear(module + "/gating_linear", CZ, CZ)


linear(EVO + "preprocess_1d", 22, CM, stacked=False)
linear(EVO + "preprocess_msa", 49, CM, stacked=False)
linear(EVO + "left_single", 22, CZ, stacked=False)
linear(EVO + "right_single", 22, CZ, stacked=False)
linear(EVO + "pair_activiations", 65, CZ, stacked=False)
attention(BLK + "msa_row_attention_with_pair_bias", CM, HM, DM)
norm(BLK + "msa_row_attention_with_pair_bias/feat_2d_norm", CZ)
put(BLK + "msa_row_attention_with_pair_bias//feat_2d_weights", (B, CZ, HM))
attention(BLK + "msa_column_attention", CM, HM, DM)
norm(BLK + "msa_transition/input_layer_norm", CM)
linear(BLK + "msa_transition/transition1", CM, F * CM)
linear(BLK + "msa_transition/transition2", F * CM, CM)
norm(BLK + "outer_product_mean/layer_norm_input", CM)
linear(BLK + "outer_product_mean/left_projection", CM, CO)
linear(BLK + "outer_product_mean/right_projection", CM, CO)
put(BLK + "outer_product_mean//output_w", (B, CO, CO, CZ))
put(BLK + "outer_product_mean//output_b", (B, CZ), "small")
tri_mult(BLK + "triangle_multiplication_outgoing")
tri_mult(BLK + "triangle_multiplication_incoming")
for node in ("starting", "ending"):
    attention(BLK + "triangle_attention_" + node + "_node", CZ, HZ, DZ)
    put(BLK + "triangle_attention_" + node + "_node//feat_2d_weights", (B, CZ, HZ))
norm(BLK + "pair_transition/input_layer_norm", CZ)
linear(BLK + "pair_transition/transition1", CZ, F * CZ)
linear(BLK + "pair_transition/transition2", F * CZ, CZ)
linear(EVO + "single_activations", CM, CS, stacked=False)
# parts of the published model that the workload does not run
put(EVO + "prev_pair_norm//scale", (CZ,), "scale")
put(EVO + "extra_msa_stack/msa_column_global_attention/attention//key_w", (4, 8, 8))
put("alphafold/alphafold_iteration/structure_module/single_layer_norm//scale", (CS,), "scale")

np.savez("af2-tiny-params.npz", **params)
np.savez_compressed("af2-tiny-params-compressed.npz", **params)
with open("af2-tiny-params.txt", "w") as out:
    out.write("# name shape values(float.hex), from make_params_fixture.py\n")
    for name, a in params.items():
        out.write(name + " " + ",".join(str(s) for s in a.shape) + " "
                  + " ".join(float(x).hex() for x in a.ravel()) + "\n")

v = np.array([[0.5, -1.25, 3.0], [1e-3, 2.0, -0.0]])
np.savez("af2-npy-variants.npz",
         f4_little=v.astype("<f4"), f4_big=v.astype(">f4"), f8=v.astype("<f8"), f2=v.astype("<f2"),
         scalar=np.float32(7.5), ints=np.arange(6, dtype="<i4").reshape(2, 3),
         fortran=np.asfortranarray(v.astype("<f4")))
