#!/usr/bin/python3
"""profile_fixtures.py: regenerate the small model files in testdata/profile/.

    /usr/bin/python3 tests/profile_fixtures.py testdata/profile

The outputs are committed (a few KB each) so that the profile tests run where
torch is absent; rerun this only to change them, then review the goldens.
PyTorch, ONNX and NumPy files come from the real writers (Debian python3-torch,
python3-onnx, python3-numpy); safetensors, GGUF, the TF tensor bundle, zip64
and the corrupt files are built byte by byte here.
"""
import io
import json
import os
import struct
import sys
import zipfile
import zlib

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(__file__))
from profile_models import gguf_str, pb_field, save_gguf, save_tf_index, sstable_block, varint  # noqa: E402

OUT = sys.argv[1]
torch.manual_seed(1)


def path(name):
    return os.path.join(OUT, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


def small_model():
    return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 2))


def zip_bytes(members, zip64=False, method=0):
    """members: [(name, bytes)]; zip64 saturates every 32-bit field (zip64 extras + records)"""
    out, cdir = b"", b""
    for name, data in members:
        nb = name.encode()
        crc = zlib.crc32(data)
        body = data
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            body = c.compress(data) + c.flush()
        off = len(out)
        if zip64:
            lextra = struct.pack("<HHQQ", 1, 16, len(data), len(body))
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(nb), len(lextra)) + nb + lextra + body
            cextra = struct.pack("<HHQQQ", 1, 24, len(data), len(body), off)
            cdir += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0, crc,
                                0xFFFFFFFF, 0xFFFFFFFF, len(nb), len(cextra), 0, 0, 0, 0,
                                0xFFFFFFFF) + nb + cextra
        else:
            out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(body),
                               len(data), len(nb), 0) + nb + body
            cdir += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc,
                                len(body), len(data), len(nb), 0, 0, 0, 0, 0, off) + nb
    cd_off = len(out)
    out += cdir
    if zip64:
        z64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, len(members), len(members),
                           len(cdir), cd_off)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    else:
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(cdir),
                           cd_off, 0)
    return out


def rezip(src, rename=None, zip64=False):
    with zipfile.ZipFile(src) as z:
        members = []
        for info in z.infolist():
            name = info.filename
            if rename:
                name = rename + name[name.index("/"):]
            members.append((name, z.read(info)))
    return zip_bytes(members, zip64=zip64)


def safetensors_bytes(tensors, meta=True):
    """tensors: [(name, dtype, shape, nbytes)]; the JSON lists them in reverse data order"""
    header, off = {}, 0
    if meta:
        header["__metadata__"] = {"format": "pt"}
    spans = []
    for name, dt, shape, nb in tensors:
        spans.append((name, {"dtype": dt, "shape": shape, "data_offsets": [off, off + nb]}))
        off += nb
    for name, d in reversed(spans):
        header[name] = d
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    return struct.pack("<Q", len(h)) + h + bytes(off)


def main():
    os.makedirs(OUT, exist_ok=True)
    m = small_model()
    sd = m.state_dict()

    # PyTorch: zip (root folder = file stem), legacy, nested checkpoint, other root, zip64
    torch.save(sd, path("tiny.pt"))
    torch.save(sd, path("tiny_legacy.pt"), _use_new_zipfile_serialization=False)
    opt = torch.optim.Adam(m.parameters())
    m(torch.randn(5, 4)).sum().backward()
    opt.step()
    torch.save({"epoch": 3, "model": {"state_dict": m.state_dict()}, "optimizer": opt.state_dict()},
               path("checkpoint.pt"))
    write("renamed_root.pt", rezip(path("tiny.pt"), rename="some folder"))
    write("zip64.pt", rezip(path("tiny.pt"), zip64=True))
    torch.save(sd, path("proto4.pt"), pickle_protocol=4)
    lin = nn.Linear(3, 3, bias=False)  # tied weights: one storage, two names
    torch.save({"encoder.weight": lin.weight, "decoder.weight": lin.weight}, path("tied.pt"))

    # ONNX: initializers, a Constant node, an If subgraph with its own initializer,
    # a sparse initializer, external data, packed and unpacked dims
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array(np.zeros((3, 4), np.float32), "W")
    b = numpy_helper.from_array(np.zeros((3,), np.float32), "B")
    ext = TensorProto()
    ext.name = "E"
    ext.data_type = TensorProto.FLOAT
    ext.dims.extend([2, 5])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "tiny.onnx.data"), ("offset", "0"), ("length", "40")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    sp_vals = numpy_helper.from_array(np.ones((2,), np.float32), "S")
    sp_idx = numpy_helper.from_array(np.array([0, 7], np.int64), "S_idx")
    sparse = helper.make_sparse_tensor(sp_vals, sp_idx, [4, 4])
    const = helper.make_node("Constant", [], ["shape_c"],
                             value=numpy_helper.from_array(np.array([1, 3], np.int64)))
    then_g = helper.make_graph([helper.make_node("Identity", ["T"], ["y1"])], "then", [],
                               [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [2, 2])],
                               initializer=[numpy_helper.from_array(np.zeros((2, 2), np.float32), "T")])
    else_g = helper.make_graph([helper.make_node("Identity", ["B"], ["y2"])], "else", [],
                               [helper.make_tensor_value_info("y2", TensorProto.FLOAT, [3])])
    ifn = helper.make_node("If", ["cond"], ["out_if"], then_branch=then_g, else_branch=else_g)
    gemm = helper.make_node("Gemm", ["x", "W", "B"], ["y"], transB=1)
    g = helper.make_graph([const, gemm, ifn], "tiny",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
                           helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
                          initializer=[w, b, ext], sparse_initializer=[sparse])
    model = helper.make_model(g, producer_name="profile_fixtures")
    write("tiny.onnx", model.SerializeToString())

    # NumPy
    np.save(path("tiny.npy"), np.zeros((3, 4), np.float32))
    with open(path("bigendian_v2.npy"), "wb") as f:
        hdr = b"{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3, 4), }"
        hdr += b" " * (64 - 12 - len(hdr) - 1) + b"\n"
        f.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", len(hdr)) + hdr + bytes(8 * 24))
    np.save(path("scalar.npy"), np.float32(3.5))
    arrays = {"conv/weight": np.zeros((8, 3, 3, 3), np.float32), "conv/bias": np.zeros(8, np.float32),
              "fc.weight": np.zeros((10, 8), np.float16), "bn.running_mean": np.zeros(8, np.float32)}
    np.savez(path("tiny.npz"), **arrays)
    np.savez_compressed(path("tiny_z.npz"), **arrays)
    mem = io.BytesIO()
    np.save(mem, np.zeros((5, 2), np.int32))
    write("zip64.npz", zip_bytes([("w.npy", mem.getvalue())], zip64=True))

    # safetensors: keys out of data order, __metadata__, padded header
    write("tiny.safetensors", safetensors_bytes(
        [("embed.weight", "F32", [16, 4], 256), ("norm.weight", "BF16", [4], 8),
         ("head.weight", "F16", [4, 16], 128), ("scalar", "I64", [], 8),
         ("empty", "F32", [0, 4], 0), ("bn.num_batches_tracked", "I64", [], 8)]))

    # a sharded checkpoint: index JSON + two shards (read as one model)
    os.makedirs(path("sharded"), exist_ok=True)
    shards = {"model-00001-of-00002.safetensors": [("embed.weight", "F32", [32, 4], 512)],
              "model-00002-of-00002.safetensors": [("head.weight", "F32", [4, 8], 128),
                                                   ("head.bias", "F32", [8], 32)]}
    wm = {}
    for fn, ts in shards.items():
        write(os.path.join("sharded", fn), safetensors_bytes(ts, meta=False))
        wm.update({t[0]: fn for t in ts})
    write("sharded/model.safetensors.index.json",
          json.dumps({"metadata": {"total_size": 672}, "weight_map": dict(sorted(wm.items()))},
                     indent=2).encode())
    write("bad_index.json", json.dumps({"weight_map": {"w": "missing-00001.safetensors"}}).encode())

    # GGUF v3 (with a token array and alignment) and v2, plus a quantized tensor
    gsd = {"token_embd.weight": torch.zeros(32, 8), "blk.0.attn_q.weight": torch.zeros(8, 8),
           "output_norm.weight": torch.zeros(8)}
    save_gguf(gsd, path("tiny.gguf"))
    head = b"GGUF" + struct.pack("<IQQ", 2, 1, 1) + gguf_str("general.name") + struct.pack("<I", 8)
    head += gguf_str("q")
    head += gguf_str("q4.weight") + struct.pack("<I", 2) + struct.pack("<QQ", 64, 2) + struct.pack("<IQ", 2, 0)
    head += b"\0" * ((32 - len(head) % 32) % 32)
    write("q4_v2.gguf", head + bytes(4 * 18))

    # TensorFlow tensor bundle with TF2 object names, optimizer slots and counters
    tf = {"model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE": torch.zeros(4, 3),
          "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE": torch.zeros(3),
          "model/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE":
              torch.zeros(4, 3),
          "save_counter/.ATTRIBUTES/VARIABLE_VALUE": torch.zeros((), dtype=torch.int64)}
    save_tf_index_named(tf, path("tiny.index"))

    # HDF5 (Keras 2 .h5 layout) as h5py writes it: default (superblock 0, symbol-table
    # groups), libver='latest' (superblock 3, OHDR headers, link messages), a 512-byte
    # user block, a dense group (refused), and Keras 3 .keras zips (stored; deflated)
    import h5py

    def keras_like(f, layers=2):
        f.attrs["keras_version"] = "2.11.0"
        g = f.create_group("model_weights")
        for i in range(layers):
            lg = g.create_group(f"dense_{i}").create_group(f"dense_{i}")
            lg.create_dataset("kernel:0", data=np.zeros((4 + i, 3), np.float32))
            lg.create_dataset("bias:0", data=np.zeros((3,), np.float32))
        bn = g.create_group("bn").create_group("bn")
        bn.create_dataset("gamma:0", data=np.zeros(3, np.float16))
        bn.create_dataset("moving_mean:0", data=np.zeros(3, np.float32))
        o = f.create_group("optimizer_weights").create_group("Adam")
        o.create_dataset("iter:0", data=np.int64(3))
        o.create_dataset("names", data=[b"a", b"bc"])

    with h5py.File(path("keras.h5"), "w") as f:
        keras_like(f)
    with h5py.File(path("latest.h5"), "w", libver="latest") as f:
        keras_like(f)
    with h5py.File(path("userblock.h5"), "w", userblock_size=512) as f:
        keras_like(f)
    with h5py.File(path("bad_dense.h5"), "w", libver="latest") as f:
        keras_like(f, layers=10)
    h5 = open(path("keras.h5"), "rb").read()
    cfg = json.dumps({"class_name": "Sequential"}).encode()
    with zipfile.ZipFile(path("keras3.keras"), "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", b"{}")
        z.writestr("config.json", cfg)
        z.writestr("model.weights.h5", h5)
    with zipfile.ZipFile(path("bad_deflated.keras"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.json", cfg)
        z.writestr("model.weights.h5", h5)
    write("bad_truncated.h5", h5[: len(h5) // 3])

    # ---- bad files ----
    good = open(path("tiny.pt"), "rb").read()
    write("bad_truncated.pt", good[: len(good) // 2])
    i = good.rfind(b"PK\x01\x02")
    write("bad_zipdir.pt", good[:i] + b"PK\x01\x09" + good[i + 4:])
    pk = b"\x80\x02}q\x00(X\x01\x00\x00\x00a\xffu."
    write("bad_opcode.pt", zip_bytes([("bad_opcode/data.pkl", pk), ("bad_opcode/version", b"3\n")]))
    # ONNX: the graph's initializer (field 5) sent as a varint
    graph = pb_field(2, 2, b"g") + varint(5 << 3 | 0) + varint(1)
    write("bad_wiretype.onnx", pb_field(1, 0, 8) + pb_field(7, 2, graph))
    write("bad_truncated.onnx", open(path("tiny.onnx"), "rb").read()[:150])
    write("bad_header.safetensors", struct.pack("<Q", 1 << 40) + b'{"a":1}')
    write("bad_offsets.safetensors", safetensors_bytes([("w", "F32", [1000, 1000], 4000000)])[:200])
    write("bad_count.gguf", b"GGUF" + struct.pack("<IQQ", 3, 1 << 60, 0))
    hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000), }"
    hdr += b" " * (64 - 10 - len(hdr) - 1) + b"\n"
    write("bad_size.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr + bytes(16))
    write("bad_unknown.bin", b"this is not a model file\n")


def save_tf_index_named(sd, p):
    """like save_tf_index, but the names are used as they are"""
    tf_types = {torch.float32: 1, torch.int64: 9}
    entries, off = [], 0
    for k, v in sd.items():
        size = v.numel() * v.element_size()
        shape = b"".join(pb_field(2, 2, pb_field(1, 0, d)) for d in v.shape)
        e = pb_field(1, 0, tf_types[v.dtype]) + pb_field(2, 2, shape) + pb_field(4, 0, off) + pb_field(5, 0, size)
        entries.append((k.encode(), e))
        off += size
    entries.append((b"_CHECKPOINTABLE_OBJECT_GRAPH", pb_field(1, 0, 7) + pb_field(2, 2, b"")))
    entries.sort()
    header = pb_field(1, 0, 1) + pb_field(3, 2, pb_field(1, 0, 1))
    data = sstable_block([(b"", header)] + entries, restart_every=2)
    out = data + bytes(5)
    meta = sstable_block([])
    meta_off = len(out)
    out += meta + bytes(5)
    index = sstable_block([(entries[-1][0] + b"\xff", varint(0) + varint(len(data)))])
    index_off = len(out)
    out += index + bytes(5)
    footer = varint(meta_off) + varint(len(meta)) + varint(index_off) + varint(len(index))
    footer += bytes(40 - len(footer)) + struct.pack("<Q", 0xDB4775248B80FB57)
    with open(p, "wb") as f:
        f.write(out + footer)


if __name__ == "__main__":
    main()
