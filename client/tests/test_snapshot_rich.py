"""Snapshots of data (issue 52): a snapshot of a frame holding a DataFrame, arrays and a list of
dicts keeps their tables and pictures, bounded by the breakpoint's `capture.rich_bytes`, with
secret columns masked; the snapshot page shows them escaped. Real pandas and numpy, the real
server, a program that never stops."""

import asyncio
import base64
import urllib.request

import pytest

from test_snapshots import add, line_of, printed_ticks, programs, snapshots_of, start, wait_for  # noqa: F401 (a fixture)

pytest.importorskip("pandas")
pytest.importorskip("numpy")
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

DATA = """\
    import time
    import numpy as np
    import pandas as pd

    def handle(i):
        frame = pd.DataFrame({
            "order": range(5000),
            "api_key": ["sk-test-0123456789abcdef"] * 5000,
            "note": ["<script>alert(1)</script>"] * 5000,
        })
        signal = np.sin(np.linspace(0, 20, 100_000))
        grid = np.arange(300 * 40, dtype=float).reshape(300, 40)
        rows = [{"id": n, "name": f"<b>{n}</b>"} for n in range(50)]
        return len(frame) + len(rows)  # SNAP

    i = 0
    while True:
        handle(i)
        print("tick", i, flush=True)
        i += 1
        time.sleep(0.01)
"""

PNG_HEADER = b"\x89PNG\r\n\x1a\n"


def one_snapshot(server, programs, capture=None):
    p = start(server, DATA, started=programs)
    printed_ticks(p, 2, timeout=60)  # pandas and numpy imported
    body = {"kind": "line", "file": p.path, "line": line_of(DATA, "SNAP"), "action": "snapshot", "max_hits": 1}
    if capture is not None:
        body["capture"] = capture
    bp = add(server, body)
    snaps = wait_for(lambda: snapshots_of(server, bp), timeout=30, what="a snapshot")
    status, snap = server.get(f"/api/snapshots/{snaps[0]['snapshot_id']}")
    assert status == 200, snap
    before = printed_ticks(p, 0)
    assert printed_ticks(p, before + 5) > before, "the program went on"
    return snap


def locals_of(snap):
    return {v["name"]: v["value"] for v in snap["frames"][0]["locals"]}


def forms(value):
    (output,) = value["outputs"]
    return output["data"]


def test_a_snapshot_keeps_the_tables_and_pictures_of_the_data_in_its_frame(server, programs):
    snap = one_snapshot(server, programs)
    local = locals_of(snap)

    table = forms(local["frame"])["application/vnd.breakroom.table+json"]
    assert (table["row_count"], table["column_count"], len(table["rows"])) == (5000, 3, 20)
    assert table["columns"] == ["order", "api_key", "note"]
    assert table["rows"][19][0] == "19" and table["rows"][0][2] == "<script>alert(1)</script>"
    assert {row[1] for row in table["rows"]} == {"[redacted]"}, "a column named like a secret is masked"
    assert "sk-test" not in local["frame"]["repr"] and snap["redacted"] >= 1, "in the repr too, and counted"
    assert "handle" not in str(local["frame"]["outputs"]), "no live table is claimed: the program moved on"

    signal = forms(local["signal"])
    assert base64.b64decode(signal["image/png"]).startswith(PNG_HEADER)
    assert "shape (100000,)" in signal["text/markdown"] and "max 1" in signal["text/markdown"]

    grid = forms(local["grid"])
    assert base64.b64decode(grid["image/png"]).startswith(PNG_HEADER)
    assert grid["application/vnd.breakroom.table+json"]["row_count"] == 300

    dicts = forms(local["rows"])["application/vnd.breakroom.table+json"]
    assert (dicts["row_count"], dicts["columns"], dicts["rows"][3]) == (50, ["id", "name"], ["3", "<b>3</b>"])

    assert "outputs" not in local["i"], "a number has no table or picture"
    assert snap["size_bytes"] > 10_000, "the forms are counted in the snapshot's size"


def test_the_snapshot_page_shows_the_tables_and_pictures_escaped(server, programs):
    snap = one_snapshot(server, programs)
    with urllib.request.urlopen(f"{server.url}/snapshots/{snap['snapshot_id']}", timeout=30) as resp:
        page = resp.read().decode()
    assert page.count('class="rich-table"') >= 3 or page.count("<table") >= 3, page[:2000]
    assert '<img class="rich-image" src="data:image/png;base64,' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    assert "&lt;b&gt;3&lt;/b&gt;" in page and "<b>3</b>" not in page
    assert "sk-test-0123456789abcdef" not in page


def test_an_agent_reading_the_snapshot_sees_its_pictures_as_image_content(server, programs):
    snap = one_snapshot(server, programs)

    async def ask():
        async with streamable_http_client(f"{server.url}/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("snapshot_get", {"snapshot_id": snap["snapshot_id"]})

    result = asyncio.run(ask())
    images = [c for c in result.content if c.type == "image"]
    assert [i.mime_type for i in images] == ["image/png", "image/png"], "the two arrays' pictures"
    assert all(base64.b64decode(i.data).startswith(PNG_HEADER) for i in images)


def test_rich_bytes_zero_keeps_only_the_values_and_a_small_room_says_what_it_left_out(server, programs):
    plain = locals_of(one_snapshot(server, programs, {"rich_bytes": 0}))
    assert not [name for name, value in plain.items() if "outputs" in value]
    assert plain["frame"]["type"].endswith("DataFrame")

    small = locals_of(one_snapshot(server, programs, {"rich_bytes": 3000}))
    notes = [o["metadata"]["breakroom"]["notes"][0] for v in small.values() for o in v.get("outputs", [])
             if o.get("metadata", {}).get("breakroom", {}).get("notes")]
    assert any("rich_bytes room (3000 bytes)" in n for n in notes), notes
    kept = sum(len(str(o["data"])) for v in small.values() for o in v.get("outputs", []))
    assert kept < 3000 + 2000, "what was kept stays near the room (the notes' own text aside)"


@pytest.mark.parametrize("rich_bytes", [-1, 1024 * 1024 + 1, "lots"])
def test_a_rich_bytes_outside_its_bounds_is_refused(server, rich_bytes):
    status, body = server.post("/api/breakpoints", {"kind": "line", "file": "/srv/a.py", "line": 3,
                                                     "action": "snapshot", "capture": {"rich_bytes": rich_bytes}})
    assert status == 400 and body["error"] == "invalid_capture", body
    assert "rich_bytes" in body["message"] and "from 0 to 1048576" in body["message"], body
