"""Result CID Storage: eval results are stored by CID when they can be
serialized, and are null (never an error) when they cannot."""

import re


def test_eval_result_stored_as_cid_when_serializable(frame_pause):
    body = frame_pause.eval("{'items': items, 'total': total}")
    assert re.fullmatch(r"[0-9a-f]{128}", body["result_cid"] or "")


def test_eval_result_cid_none_when_not_serializable(frame_pause):
    body = frame_pause.eval("import threading; threading.Lock()")
    assert body["is_error"] is False
    assert body["output"].startswith("<unlocked _thread.lock object")
    assert body["result_cid"] is None


def test_eval_result_cid_viewable_in_object_browser(frame_pause):
    cid = frame_pause.eval("[total, label, None]")["result_cid"]
    status, value = frame_pause.server.get(f"/api/objects/{cid}")
    assert status == 200
    assert value["cid"] == cid
    assert value["display"] == "[6, 'order', None]"
    assert value["size"] > 0


def test_eval_error_result_has_no_cid(frame_pause):
    body = frame_pause.eval("1 / 0")
    assert body["is_error"] and body["result_cid"] is None


def test_transcript_entry_includes_result_cid_field(frame_pause):
    s = frame_pause.new_session()
    cid = frame_pause.eval("total", s)["result_cid"]
    frame_pause.eval("x = 1", s)
    entries = frame_pause.server.session(s)["transcript"]
    assert [e["result_cid"] for e in entries] == [cid, None]
