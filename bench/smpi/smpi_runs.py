"""What one run of toporr_collective_time left in its directory, as the SMPI reports read it."""
import json
import os


def read_cells(path):
    """cells.txt: {(mode, bytes): us} of the `cell` lines, {mode: reason} of the `skip` lines."""
    cells, skips = {}, {}
    for line in open(path):
        words = line.split()
        if not words:
            continue
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if words[0] == "cell":
            cells[(fields["mode"], int(fields["bytes"]))] = float(fields["us"])
        elif words[0] == "skip":
            skips[fields["mode"]] = line.split("reason=", 1)[1].strip().strip('"')
    return cells, skips


def read_decisions(path):
    """report.jsonl's decision lines (none when the file is missing)."""
    if not os.path.exists(path):
        return []
    return [d for d in map(json.loads, filter(str.strip, open(path)))
            if d.get("event") == "decision"]
