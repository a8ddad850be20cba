"""Secrets never leave the program (issue 50): a real program whose call holds secrets by name
(arguments, a nested dict key, an attribute) and by value (a card number inside a longer string,
a JWT, an AWS key id) is looked at through every surface; no secret shows on any, the other
values do. The secrets reach the program through its environment, so its source (which the
pages show) holds none of them."""

import json
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import CLIENT_DIR, Program, pause_program, start_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, in-process

from breakroom import redaction  # noqa: E402

CARD = "4111 1111 1111 1111"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
AWS = "AKIAQ3EGRZ7TL5VPMX2K"
SECRETS = {
    "T_PW": "Sw0rdf1sh-pw-7731",
    "T_ATTR": "tok-attr-99812",
    "T_NEST": "nest-pw-4471",
}
SECRET_TEXTS = [*SECRETS.values(), CARD, CARD.replace(" ", ""), JWT, AWS]
ENV = {**SECRETS, "T_USER": "bob-the-user", "T_NOTE": f"paid with card {CARD} today, jwt {JWT}, key {AWS}"}

PROGRAM = """
    import os
    import breakroom

    class Account:
        def __init__(self, user, api_token):
            self.user = user
            self.api_token = api_token

    @breakroom.breakpoint
    def charge(user, password, note, account, config, amount=4242):
        return amount

    print("charged", charge(
        os.environ["T_USER"],
        os.environ["T_PW"],
        os.environ["T_NOTE"],
        Account("alice-account", os.environ["T_ATTR"]),
        {"host": "db.local", "password": os.environ["T_NEST"]},
    ))
"""

FRAME_PROGRAM = """
    import os
    import breakroom

    class Account:
        def __init__(self, user, api_token):
            self.user = user
            self.api_token = api_token

    def charge(user, password, note):
        account = Account("alice-account", os.environ["T_ATTR"])
        config = {"host": "db.local", "password": os.environ["T_NEST"]}
        amount = 4242
        breakroom.set_trace()
        return amount

    charge(os.environ["T_USER"], os.environ["T_PW"], os.environ["T_NOTE"])
"""


def assert_clean(text, where):
    for secret in SECRET_TEXTS:
        assert secret not in text, f"{secret!r} shows in {where}: {text[:2000]}"


def fetch_text(server, path):
    with urllib.request.urlopen(server.url + path, timeout=30) as resp:
        return resp.read().decode("utf-8", "replace")


@pytest.fixture
def redacting_server():
    srv = start_server("--eval-timeout", "10")
    yield srv
    srv.process.terminate()
    srv.process.wait(5)


# ---- the rules themselves ---------------------------------------------------------------------


def test_the_client_and_the_server_hold_the_same_default_rules(redacting_server):
    status, policy = redacting_server.get("/api/policy")
    assert status == 200, policy
    assert policy["names"] == list(redaction.DEFAULT_NAMES)
    assert policy["values"] == list(redaction.DEFAULT_VALUES)
    assert policy["cards"] is True
    assert policy["no_debug"] == []


def test_rules_in_the_program_redact_names_values_and_key_value_text():
    rules = redaction.Rules(redaction.DEFAULT_NAMES, redaction.DEFAULT_VALUES, True)
    assert rules.text(f"card {CARD}!") == ("card [redacted]!", 1)
    assert rules.text("card 4111 1111 1111 1112")[1] == 0  # fails the Luhn check
    assert rules.text(f"{JWT} and {AWS}")[0] == "[redacted] and [redacted]"
    assert rules.text("DB_PASSWORD=hunter2 USER=bob")[0] == "DB_PASSWORD=[redacted] USER=bob"
    assert rules.text("{'user': 'bob', 'api_key': 'k1'}")[0] == "{'user': 'bob', 'api_key': '[redacted]'}"
    assert rules.name_matches("X-Auth-Token") and not rules.name_matches("amount")


# ---- a paused call, on every surface --------------------------------------------------------------


def test_a_paused_calls_secrets_show_on_no_surface_while_the_rest_does(redacting_server):
    server = redacting_server
    p = pause_program(server, PROGRAM, "charge", env=ENV)
    try:
        paused = server.get("/api/paused")[1]
        text = json.dumps(paused)
        assert_clean(text, "/api/paused")
        assert "bob-the-user" in text and "[redacted]" in text

        # REPL answers: by name (plain, attribute, item) and by value.
        assert p.output("password") == "[redacted]"
        assert p.output("account.api_token") == "[redacted]"
        assert p.output("config['password']") == "[redacted]"
        assert p.output("user") == "'bob-the-user'"
        note = p.output("note")
        assert_clean(note, "the REPL's note")
        assert note.startswith("'paid with card [redacted] today")
        config = p.output("config")
        assert config == "{'host': 'db.local', 'password': '[redacted]'}"
        assert p.output("account.user") == "'alice-account'"

        # The variables panel and its expansions.
        status, panel = server.get(f"/api/repl/{p.session_id}/variables")
        assert status == 200, panel
        rows = {row["name"]: row for row in panel["variables"]}
        assert rows["password"]["repr"] == "[redacted]"
        assert rows["user"]["repr"] == "'bob-the-user'"
        assert panel["redacted"] >= 2
        assert_clean(json.dumps(panel), "the variables panel")
        status, expanded = server.post(
            f"/api/repl/{p.session_id}/variables/expand", {"path": rows["account"]["path"]}
        )
        assert status == 200, expanded
        children = {c["name"]: c for c in expanded["children"]}
        assert children["api_token"]["repr"] == "[redacted]"
        assert children["user"]["repr"] == "'alice-account'"
        assert expanded["redacted"] == 1
        status, expanded = server.post(f"/api/repl/{p.session_id}/variables/expand", {"path": rows["config"]["path"]})
        assert_clean(json.dumps(expanded), "the config expansion")
        # A path made by hand through a secret's name shows nothing of it.
        status, by_hand = server.post(
            f"/api/repl/{p.session_id}/variables/expand", {"path": [["var", "account"], ["attr", "api_token"]]}
        )
        assert_clean(json.dumps(by_hand), "an expansion under a secret's name")

        # Completion hints.
        status, done = server.post(f"/api/repl/{p.session_id}/complete", {"code": "config['", "cursor_pos": 8})
        assert status == 200, done
        assert_clean(json.dumps(done), "completion")

        # The pages.
        assert_clean(fetch_text(server, "/"), "/")
        assert_clean(fetch_text(server, f"/repl/{p.session_id}"), f"/repl/{p.session_id}")
        assert_clean(fetch_text(server, "/repls"), "/repls")
        status, found = server.get("/api/repl/sessions?search=redacted")
        assert status == 200, found
        assert_clean(json.dumps(found), "/api/repl/sessions?search=")
        for secret in SECRET_TEXTS:
            status, found = server.get("/api/repl/sessions?search=" + urllib.parse.quote(secret[:12]))
            assert status == 200 and not found.get("sessions"), (secret, found)

        p.resume()
        code, out, err = p.finish()
        assert code == 0, err
        assert "charged 4242" in out
    finally:
        p.program.kill()


