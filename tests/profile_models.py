#!/usr/bin/python3
"""profile_models.py: build real model files (random weights) for dlsched profile tests.

    /usr/bin/python3 tests/profile_models.py OUTDIR [--only m1,m2] [--bench]

Builds torchvision resnet18, resnet50, alexnet, mobilenet_v2, vgg16, a small LSTM
language model and a small GPT, saves each in every format it can (PyTorch zip and
legacy, safetensors, .npz, ONNX, GGUF, TensorFlow .index, HDF5) and writes
OUTDIR/expected.tsv: file, tensors, params, largest_share as torch, onnx or numpy
report them for that file (weights only: BatchNorm statistics, counters and
optimizer state left out, as dlsched profile does by default).

--dlsched BIN: run `BIN profile` on each file as soon as it is written, append the
rows to OUTDIR/profile.csv and delete the file (keeps disk use and write-back small).
--bench: vgg16 only, and print the best-of-3 torch.load time of vgg16.pt in seconds.
Needs Debian python3-torch, python3-torchvision, python3-numpy and python3-onnx
(and python3-h5py for the .h5 files).
"""
import io
import json
import math
import os
import struct
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

try:
    import h5py
except ImportError:  # python3-h5py is optional: no .h5 files then
    h5py = None

torch.manual_seed(0)
SKIP_SUFFIX = ("running_mean", "running_var", "num_batches_tracked")


def is_weight(name):
    last = name.split(".")[-1]
    if last in SKIP_SUFFIX:
        return False
    return not any(p.startswith("optim") for p in name.split("."))


class LSTMLM(nn.Module):
    def __init__(self, vocab=10000, d=650, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, layers, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, x):
        y, _ = self.rnn(self.emb(x))
        return self.out(y)


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.attn(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, self.h, c // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, c // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, c // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.h)
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab=32000, d=512, layers=6, heads=8, ctx=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, x):
        t = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(t).unsqueeze(0))
        for b in self.blocks:
            h = b(h)
        return self.head(self.ln_f(h))


def _no_init(tensor, *args, **kwargs):
    return tensor


def build(name):
    # random initialisation of 138M parameters takes seconds: leave the weights as
    # allocated (their values do not matter to a metadata profile)
    saved = {}
    for f in ("kaiming_normal_", "kaiming_uniform_", "normal_", "uniform_", "constant_",
              "zeros_", "ones_", "xavier_uniform_", "trunc_normal_"):
        saved[f] = getattr(nn.init, f)
        setattr(nn.init, f, _no_init)
    try:
        return _build(name)
    finally:
        for f, fn in saved.items():
            setattr(nn.init, f, fn)


def _build(name):
    if name == "lstm_lm":
        return LSTMLM(), torch.zeros(1, 8, dtype=torch.long)
    if name == "tiny_gpt":
        return TinyGPT(), torch.zeros(1, 8, dtype=torch.long)
    m = getattr(torchvision.models, name)()
    return m, torch.zeros(1, 3, 224, 224)


def stats(items):
    """items: (name, numel) in file order -> tensors, params, largest_share (weights only)"""
    sizes = [n for name, n in items if is_weight(name)]
    total = sum(sizes)
    return len(sizes), total, (max(sizes) / total if total else 0.0)


def walk(obj, path, out):
    if isinstance(obj, torch.Tensor):
        out.append((path, obj.numel()))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            walk(v, f"{path}.{k}" if path else str(k), out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            walk(v, f"{path}.{i}" if path else str(i), out)
    elif isinstance(obj, nn.Module):
        walk(obj.state_dict(), path, out)
    return out


def torch_report(path):
    return stats(walk(torch.load(path), "", []))


def onnx_report(path):
    import onnx

    m = onnx.load(path, load_external_data=False)
    items = [(t.name, int(np.prod(t.dims)) if len(t.dims) else 1) for t in m.graph.initializer]
    return stats(items)


def npz_report(path):
    with np.load(path) as z:
        return stats([(k, z[k].size) for k in z.files])


def save_safetensors(sd, path):
    header, off, blobs = {}, 0, []
    names = {torch.float32: "F32", torch.int64: "I64", torch.float16: "F16"}
    for k, v in sd.items():
        b = v.contiguous().numpy().tobytes()
        header[k] = {"dtype": names[v.dtype], "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header, sort_keys=True).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for b in blobs:
            f.write(b)


def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def save_gguf(sd, path):
    types = {torch.float32: 0, torch.float16: 1, torch.int64: 27}
    kv = [gguf_str("general.architecture") + struct.pack("<I", 8) + gguf_str("test"),
          gguf_str("general.alignment") + struct.pack("<I", 4) + struct.pack("<I", 32),
          gguf_str("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1000)
          + b"".join(gguf_str(f"tok{i}") for i in range(1000))]
    infos, blobs, off = [], [], 0
    for k, v in sd.items():
        b = v.contiguous().numpy().tobytes()
        dims = list(reversed(v.shape))
        infos.append(gguf_str(k) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
                     + struct.pack("<IQ", types[v.dtype], off))
        blobs.append(b)
        off += (len(b) + 31) // 32 * 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kv)) + b"".join(kv) + b"".join(infos)
    with open(path, "wb") as f:
        f.write(head + b"\0" * ((32 - len(head) % 32) % 32))
        for b in blobs:
            f.write(b + b"\0" * ((32 - len(b) % 32) % 32))


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pb_field(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def sstable_block(entries, restart_every=16):
    out, restarts, prev = b"", [], b""
    for i, (k, v) in enumerate(entries):
        if i % restart_every == 0:
            restarts.append(len(out))
            shared = 0
        else:
            shared = 0
            while shared < min(len(k), len(prev)) and k[shared] == prev[shared]:
                shared += 1
        out += varint(shared) + varint(len(k) - shared) + varint(len(v)) + k[shared:] + v
        prev = k
    if not restarts:
        restarts = [0]
    out += b"".join(struct.pack("<I", r) for r in restarts) + struct.pack("<I", len(restarts))
    return out


def save_tf_index(sd, path):
    tf_types = {torch.float32: 1, torch.int64: 9, torch.float16: 19}
    entries, off = [], 0
    for k, v in sd.items():
        size = v.numel() * v.element_size()
        shape = b"".join(pb_field(2, 2, pb_field(1, 0, d)) for d in v.shape)
        e = pb_field(1, 0, tf_types[v.dtype]) + pb_field(2, 2, shape) + pb_field(4, 0, off) + pb_field(5, 0, size)
        entries.append((k.replace(".", "/").encode(), e))
        off += size
    entries.sort()
    header = pb_field(1, 0, 1) + pb_field(3, 2, pb_field(1, 0, 1))
    data = sstable_block([(b"", header)] + entries)
    out = data + b"\0\0\0\0\0"
    meta = sstable_block([])
    meta_off = len(out)
    out += meta + b"\0\0\0\0\0"
    last = entries[-1][0] if entries else b""
    index = sstable_block([(last + b"\xff", varint(0) + varint(len(data)))])
    index_off = len(out)
    out += index + b"\0\0\0\0\0"
    footer = varint(meta_off) + varint(len(meta)) + varint(index_off) + varint(len(index))
    footer += b"\0" * (40 - len(footer)) + struct.pack("<Q", 0xDB4775248B80FB57)
    with open(path, "wb") as f:
        f.write(out + footer)


def main():
    out = sys.argv[1]
    only = None
    dlsched = None
    bench = "--bench" in sys.argv
    for a in sys.argv[2:]:
        if a.startswith("--only="):
            only = a[7:].split(",")
        if a.startswith("--dlsched="):
            dlsched = a[10:]
    names = ["resnet18", "resnet50", "alexnet", "mobilenet_v2", "vgg16", "lstm_lm", "tiny_gpt"]
    if bench:
        names = ["vgg16"]
    if only:
        names = [n for n in names if n in only]
    os.makedirs(out, exist_ok=True)
    rows = []
    done = []
    csv = []

    t0 = time.perf_counter()

    def add(fname, rep):
        if os.environ.get("PROFILE_MODELS_TIMES"):
            sys.stderr.write(f"{time.perf_counter() - t0:7.2f} s {fname}\n")
        rows.append((fname,) + tuple(rep))
        done.append(fname)
        profile_and_delete()

    def profile_and_delete():
        if not dlsched:
            return
        r = subprocess.run([dlsched, "profile"] + done, cwd=out, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
        lines = r.stdout.splitlines()
        if lines and not csv:
            csv.append(lines[0])
        csv.extend(lines[1:])
        for f in done:
            os.remove(os.path.join(out, f))
            if os.path.exists(os.path.join(out, f + ".data")):
                os.remove(os.path.join(out, f + ".data"))
        done.clear()

    for name in names:
        model, x = build(name)
        model.eval()
        sd = model.state_dict()
        base = os.path.join(out, name)
        torch.save(sd, base + ".pt")
        add(name + ".pt", torch_report(base + ".pt"))
        if bench:
            best = 1e9
            for _ in range(3):
                t0 = time.perf_counter()
                torch.load(base + ".pt")
                best = min(best, time.perf_counter() - t0)
            print(f"{best:.6f}")
        torch.save(sd, base + "_legacy.pt", _use_new_zipfile_serialization=False)
        add(name + "_legacy.pt", torch_report(base + "_legacy.pt"))
        save_safetensors(sd, base + ".safetensors")
        add(name + ".safetensors", stats([(k, v.numel()) for k, v in sd.items()]))
        np.savez(base + ".npz", **{k: v.numpy() for k, v in sd.items()})
        add(name + ".npz", npz_report(base + ".npz"))
        save_gguf(sd, base + ".gguf")
        add(name + ".gguf", stats([(k, v.numel()) for k, v in sd.items()]))
        save_tf_index(sd, base + ".index")
        add(name + ".index", stats([(k, v.numel()) for k, v in sd.items()]))
        if h5py:
            # one dataset per tensor, as Keras lays weights out; h5py reports the shapes
            with h5py.File(base + ".h5", "w") as f:
                for k, v in sd.items():
                    f.create_dataset(k.replace(".", "/"), data=v.numpy())
            with h5py.File(base + ".h5", "r") as f:
                items = []
                f.visititems(lambda n, o: items.append((n.replace("/", "."), o.size))
                             if isinstance(o, h5py.Dataset) else None)
            add(name + ".h5", stats(items))
        with torch.no_grad():
            torch.onnx.export(model, x, base + ".onnx", opset_version=13)
        if name == "mobilenet_v2" and not bench:
            import onnx

            m = onnx.load(base + ".onnx")
            onnx.save_model(m, base + "_ext.onnx", save_as_external_data=True,
                            location=name + "_ext.onnx.data", size_threshold=1024)
            add(name + "_ext.onnx", onnx_report(base + "_ext.onnx"))
        add(name + ".onnx", onnx_report(base + ".onnx"))
        if bench:
            continue
        if name == "mobilenet_v2":
            np.savez_compressed(base + "_z.npz", **{k: v.numpy() for k, v in sd.items()})
            add(name + "_z.npz", npz_report(base + "_z.npz"))
        if name == "resnet18":
            # a training checkpoint: the state_dict nested beside optimizer state
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            model.train()
            model(torch.zeros(2, 3, 64, 64)).sum().backward()
            opt.step()
            ck = {"epoch": 3, "state_dict": model.state_dict(), "optimizer": opt.state_dict()}
            torch.save(ck, base + "_ckpt.pt")
            add(name + "_ckpt.pt", torch_report(base + "_ckpt.pt"))
            torch.save(sd, base + "_p4.pt", pickle_protocol=4)
            add(name + "_p4.pt", torch_report(base + "_p4.pt"))
            torch.save(model, base + "_module.pt")
            add(name + "_module.pt", torch_report(base + "_module.pt"))
            torch.jit.save(torch.jit.script(model.eval()), base + "_script.pt")
            add(name + "_script.pt", torch_report(base + "_script.pt"))
        del model, sd
    if csv:
        with open(os.path.join(out, "profile.csv"), "w") as f:
            f.write("\n".join(csv) + "\n")
    with open(os.path.join(out, "expected.tsv"), "w") as f:
        for r in rows:
            f.write(f"{r[0]}\t{r[1]}\t{r[2]}\t{r[3]:.6f}\n")


if __name__ == "__main__":
    main()
