#!/usr/bin/python3
"""profile_onnx_check.py: compare `dlsched profile -f json` rows (stdin) of ONNX files
with what the onnx package reports for the same files.

    dlsched profile -f json FILES... | /usr/bin/python3 tests/profile_onnx_check.py

For each file: tensors and params of the weights (initializers, sparse initializers
by their dense shape, and the initializers of subgraphs; string tensors and names
that dlsched counts as buffers or optimizer state left out), then largest_share.
Prints one line per mismatch and "checked N" at the end.
"""
import json
import re
import sys

import onnx

BUFFERS = ("running_mean", "running_var", "num_batches_tracked", "save_counter",
           "global_step", "moving_mean", "moving_variance")


def role_weight(name):
    """the rules of lib/model/model.c role_from_name()"""
    base = re.sub(r":[0-9]+$", "", name)
    for b in BUFFERS:
        if base == b or base.endswith("." + b) or base.endswith("/" + b):
            return False
    if "_CHECKPOINTABLE_OBJECT_GRAPH" in name or ".OPTIMIZER_SLOT" in name:
        return False
    return not any(p.startswith("optim") for p in re.split(r"[./]", name))


def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def walk(g, out):
    for t in g.initializer:
        if t.data_type != onnx.TensorProto.STRING:
            out.append((t.name or "initializer", numel(t.dims)))
    for s in g.sparse_initializer:
        if s.values.data_type != onnx.TensorProto.STRING:
            out.append((s.values.name or "sparse", numel(s.dims)))
    for node in g.node:
        for a in node.attribute:
            if a.HasField("g"):
                walk(a.g, out)
            for sub in a.graphs:
                walk(sub, out)
    return out


def main():
    checked = bad = 0
    for line in sys.stdin:
        row = json.loads(line)
        m = onnx.load(row["file"], load_external_data=False)
        sizes = [n for name, n in walk(m.graph, []) if role_weight(name)]
        total = sum(sizes)
        share = max(sizes) / total if total else 0
        want = (len(sizes), total)
        got = (row["tensors"], row["params"])
        if want != got or abs(share - row["largest_share"]) > 5e-6 * max(share, 1):
            print(f"{row['file']}: onnx says {want} {share:.6f}, dlsched {got} "
                  f"{row['largest_share']}")
            bad += 1
        checked += 1
    print(f"checked {checked}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
