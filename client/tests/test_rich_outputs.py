"""Rich values in the REPL (issue 52): eval answers carry Jupyter-shaped outputs built from the
display protocol and from the data types the client knows (pandas, numpy, matplotlib, PIL),
bounded; the REPL page shows them escaped (tables, images) or sandboxed (unknown HTML); MCP
hands images to agents; huge values answer at once."""

import asyncio
import base64
import struct
import urllib.error
import urllib.request

import pytest

# The real libraries and the official MCP SDK; scripts/setup.sh installs them (a missing one
# fails these tests rather than skipping them).
import matplotlib  # noqa: F401
import numpy  # noqa: F401
import pandas  # noqa: F401
import PIL  # noqa: F401
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import pause_program

DATA = """
    import breakroom
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd
    from PIL import Image

    class Shouting:
        def _repr_html_(self):
            return '<script>document.title = "owned"</script><img src=x onerror="alert(1)"><b>loud</b>'

    class Leaky:
        def _repr_html_(self):
            return "<p>key AKIAIOSFODNN7EXAMPLE in use</p>"

    def inspect():
        accounts = pd.DataFrame({"user": ["ann", "bob"], "password": ["hunter2-swordfish", "correct-horse"]})
        leaky = Leaky()
        fig, ax = plt.subplots()
        ax.plot([1, 3, 2])
        df = pd.DataFrame({"n": range(5000), "square": [i * i for i in range(5000)], "name": [f"row{i}" for i in range(5000)]})
        arr = np.linspace(0.0, 1.0, 1_000_000)
        grid = np.arange(600 * 400, dtype=float).reshape(600, 400)
        img = Image.new("RGB", (40, 30), (200, 10, 10))
        big = list(range(10_000_000))
        rows = [{"id": i, "ok": i % 2 == 0} for i in range(250)]
        shouting = Shouting()
        breakroom.set_trace()

    inspect()
"""


@pytest.fixture(scope="module")
def data(server):
    # Importing pandas, numpy, matplotlib and PIL takes seconds on a busy machine.
    paused = pause_program(server, DATA, "inspect", timeout=90)
    yield paused
    paused.program.kill()


def png_size(b64):
    raw = base64.b64decode(b64, validate=True)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", raw[:8]
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


def only(answer):
    assert not answer["is_error"], answer
    assert len(answer["outputs"]) == 1, answer["outputs"]
    output = answer["outputs"][0]
    assert output["output_type"] == "execute_result"
    return output["data"]


def test_a_matplotlib_figure_answers_a_real_png(data):
    forms = only(data.eval("fig"))
    width, height = png_size(forms["image/png"])
    assert (width, height) == (512, 384)  # 6.4 × 4.8 in at 80 dpi
    assert forms["text/plain"].startswith("<Figure size 640x480")


def test_a_dataframe_answers_its_first_rows_as_a_table_with_its_shape_and_dtypes(data):
    table = only(data.eval("df"))["application/vnd.breakroom.table+json"]
    assert (table["row_count"], table["column_count"], table["columns"]) == (5000, 3, ["n", "square", "name"])
    assert len(table["rows"]) == 100 and table["rows"][99] == ["99", "9801", "row99"]
    assert table["index"][:3] == ["0", "1", "2"]
    text_dtype = str(pandas.DataFrame({"name": ["a"]}).dtypes["name"])  # object, or str from pandas 3
    assert table["dtypes"] == {"n": "int64", "square": "int64", "name": text_dtype}


def test_an_array_answers_its_summary_and_a_downsampled_plot(data):
    forms = only(data.eval("arr"))
    assert forms["text/markdown"] == "array of shape (1000000,), dtype float64\nmin 0, max 1, mean 0.5"
    assert png_size(forms["image/png"]) == (480, 160)
    grid = only(data.eval("grid"))
    assert png_size(grid["image/png"]) == (200 * 2, 200 * 2)  # 600×400 cells sampled to 200×200, 2 px each
    assert grid["application/vnd.breakroom.table+json"]["row_count"] == 600


def test_a_pil_image_answers_a_png_of_it(data):
    assert png_size(only(data.eval("img"))["image/png"]) == (40, 30)


def test_a_list_of_dicts_is_a_table(data):
    table = only(data.eval("rows"))["application/vnd.breakroom.table+json"]
    assert (table["columns"], table["row_count"], table["rows"][1]) == (["id", "ok"], 250, ["1", "False"])


def test_a_huge_list_answers_bounded_text_without_pickling_it(data):
    answer = data.eval("big")
    assert not answer["is_error"] and "outputs" not in answer
    assert len(answer["output"]) <= 100_100 and answer["output"].endswith(" more")
    assert answer["result_cid"] is None  # ten million ints are not pickled for a stored value
    assert data.output("len(big)") == "10000000"


def test_display_adds_outputs_and_stays_out_of_the_program(data):
    session = data.new_session()
    answer = data.eval("display(img); display('plain words'); 7", session)
    kinds = [(o["output_type"], sorted(o["data"])) for o in answer["outputs"]]
    assert kinds == [("display_data", ["image/png", "text/plain"]), ("display_data", ["text/plain"])]
    assert answer["output"] == "7"
    assert data.output("__import__('sys').modules['__main__'].__dict__.get('display')", session) == "None"
    # Not one of the program's names: the variables panel does not list it.
    status, panel = data.server.get(f"/api/repl/{session}/variables")
    assert status == 200, panel
    assert "display" not in str([v.get("name") for v in panel.get("locals", [])])


def test_unknown_html_is_answered_as_html_for_the_page_to_sandbox(data):
    # The page's side (a sandboxed iframe, no dialog, the title unchanged) is end2end/tests/rich.spec.ts.
    forms = only(data.eval("shouting"))
    assert forms["text/html"].startswith("<script>") and forms["text/plain"].startswith("<__main__.Shouting")


def test_an_agent_gets_a_plot_as_image_content(data, server):
    async def ask():
        async with streamable_http_client(f"{server.url}/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("breakpoint_repl_eval", {"pause_id": data.pause_id, "expression": "fig"})

    result = asyncio.run(ask())
    images = [c for c in result.content if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert png_size(images[0].data) == (512, 384)


def test_a_tables_pages_are_read_from_the_live_object_sorted_there_when_asked(data, server):
    session = data.new_session()
    [output] = data.eval("df", session)["outputs"]
    table = output["metadata"]["breakroom"]["table"]
    assert table["rows"] == 5000 and table["url"].startswith(f"/api/repl/{session}/table/")
    status, page = server.get(f"{table['url']}?offset=4300&limit=100")  # page 44
    assert status == 200, page
    assert (page["offset"], page["limit"], page["row_count"], len(page["rows"])) == (4300, 100, 5000, 100)
    assert page["index"][0] == "4300" and page["rows"][-1] == ["4399", str(4399 * 4399), "row4399"]
    status, page = server.get(f"{table['url']}?limit=2&sort=square&descending=true")
    assert status == 200 and page["rows"] == [["4999", str(4999 * 4999), "row4999"], ["4998", str(4998 * 4998), "row4998"]]
    # The program's object, not a copy: a change made in the REPL shows on the next page.
    data.eval("df.loc[0, 'name'] = 'renamed'", session)
    assert server.get(f"{table['url']}?limit=1")[1]["rows"] == [["0", "0", "renamed"]]


def test_table_pages_refuse_bad_paging_and_name_what_is_gone(data, server):
    session = data.new_session()
    url = data.eval("rows", session)["outputs"][0]["metadata"]["breakroom"]["table"]["url"]
    for query, code in [("limit=0", "invalid_pagination"), ("limit=1001", "invalid_pagination"),
                        ("offset=-1", "invalid_pagination"), ("descending=maybe", "invalid_sort"),
                        ("sort=nope", "invalid_sort")]:
        status, body = server.get(f"{url}?{query}")
        assert (status, body["error"]) == (400, code), (query, body)
    status, body = server.get(f"/api/repl/{session}/table/t999")
    assert (status, body["error"]) == (404, "table_gone"), body
    assert "gone" in body["message"]


def test_a_tables_own_page_lists_every_row_a_page_at_a_time_and_sorts(data, server):
    session = data.new_session()
    [output] = data.eval("df", session)["outputs"]
    handle = output["metadata"]["breakroom"]["table"]["handle"]
    page_url = f"/repl/{session}/table/{handle}"
    req = urllib.request.Request(server.url + page_url + "?offset=100&sort=square&descending=true")
    with urllib.request.urlopen(req) as resp:
        page = resp.read().decode()
    assert "rows 101–200 of 5000 · sorted by square, largest first" in page
    assert "<td>row4899</td>" in page and "<td>row4999</td>" not in page
    assert f'href="{page_url}?offset=0&amp;limit=100&amp;sort=square&amp;descending=true"' in page  # previous
    try:
        urllib.request.urlopen(server.url + f"/repl/{session}/table/t999")
        raise AssertionError("a gone table's page answered 200")
    except urllib.error.HTTPError as gone:
        assert gone.code == 404 and "This table is gone" in gone.read().decode()


def test_the_variables_panel_marks_what_it_can_view_and_the_view_shows_it(data, server):
    session = data.new_session()
    status, panel = server.get(f"/api/repl/{session}/variables")
    assert status == 200, panel
    marked = {row["name"] for row in panel["variables"] if row.get("viewable")}
    assert {"df", "fig", "arr", "grid", "img", "rows", "shouting"} <= marked
    assert not marked & {"big"}  # a plain list of ints has no richer form
    status, view = server.post(f"/api/repl/{session}/variables/view", {"path": [["var", "fig"]]})
    assert status == 200, view
    assert png_size(view["outputs"][0]["data"]["image/png"]) == (512, 384)
    assert view["text"].startswith("<Figure size 640x480")
    status, view = server.post(f"/api/repl/{session}/variables/view", {"path": [["var", "df"]]})
    assert view["outputs"][0]["metadata"]["breakroom"]["table"]["url"].startswith(f"/api/repl/{session}/table/")
    status, body = server.post(f"/api/repl/{session}/variables/view", {"path": [["var", "nothing_here"]]})
    assert (status, body["error"]) == (400, "invalid_path"), body
    status, body = server.post(f"/api/repl/{session}/variables/view", {})
    assert (status, body["error"]) == (400, "invalid_path"), body
    path = urllib.request.quote('[["var","df"]]', safe="")
    with urllib.request.urlopen(f"{server.url}/repl/{session}/view?path={path}") as resp:
        page = resp.read().decode()
    assert "<h1>df</h1>" in page and "5000 rows × 3 columns" in page and "all 5000 rows, sortable" in page


def test_rich_outputs_and_table_pages_go_through_the_redaction_rules(data, server):
    session = data.new_session()
    answer = data.eval("accounts", session)
    assert "hunter2" not in str(answer) and "correct-horse" not in str(answer), answer
    [output] = answer["outputs"]
    table = output["data"]["application/vnd.breakroom.table+json"]
    assert table["rows"] == [["ann", "[redacted]"], ["bob", "[redacted]"]]  # a column named like a secret
    status, page = server.get(output["metadata"]["breakroom"]["table"]["url"] + "?sort=password")
    assert status == 200 and [row[1] for row in page["rows"]] == ["[redacted]", "[redacted]"], page
    [output] = data.eval("leaky", session)["outputs"]
    assert output["data"]["text/html"] == "<p>key [redacted] in use</p>"  # an AWS key id, by value
    status, view = server.post(f"/api/repl/{session}/variables/view", {"path": [["var", "accounts"]]})
    assert "hunter2" not in str(view) and "correct-horse" not in str(view)
