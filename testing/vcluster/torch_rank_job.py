"""A torchrun job's process for torch_vcluster_test.py: takes its rank from toporr
(toporr.torch.init_process_group over Gloo), checks an all_reduce in the new group, and the
process of new rank 0 writes every process's (launch rank, new rank, host, warnings) to
argv[1] as JSON. It leaves without destroy_process_group (see the end)."""
import json
import os
import socket
import sys
import warnings

import torch
import torch.distributed as dist
import toporr.torch

launch = int(os.environ["RANK"])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    new = toporr.torch.init_process_group("gloo", size=64 << 20)
world = dist.get_world_size()
assert dist.get_rank() == new and int(os.environ["RANK"]) == new
total = torch.tensor([float(launch)])
dist.all_reduce(total)
assert total.item() == world * (world - 1) / 2, total
rows = [None] * world
dist.all_gather_object(rows, {"launch": launch, "new": new, "host": socket.gethostname(),
                              "warnings": [str(w.message) for w in caught]})
if new == 0:
    with open(sys.argv[1], "w") as f:
        json.dump(rows, f)
# No destroy_process_group: under torch 2.6 it waits on the store, which launch rank 0 serves
# and may already have taken away. The barrier keeps every process until all have answered.
dist.barrier()
