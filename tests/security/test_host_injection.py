"""A host injected through a parameter that is not a URL (issue 32): Lex builds its
endpoint from ``region``, so ``region: "eu-west-1.evil.example#"`` points the signed
request at the editor's host while no URL in chatbot.yaml names it (the launch check
reads URLs). The transport still refuses the request: it carries the bound session token
and key id, which may go only to the owner's Lex host."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sparring._policy import ExecutionPolicy, scoped
from sparring._ssrf import NetworkPolicy, install_policy, installed_policy
from sparring.connectors import create_connector, load_chatbot_config

LEX_HOST = "runtime-v2-lex.eu-west-1.amazonaws.com"
SECRETS = {
    "AWS_ACCESS_KEY_ID": "AKIDOWNEREXAMPLE01",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYOWNERKEY",
    "AWS_SESSION_TOKEN": "owner-session-token-0123456789",
}


async def test_a_region_that_names_another_host_sends_no_secret(tmp_path: Path) -> None:
    pytest.importorskip("botocore")
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        textwrap.dedent(
            """\
            connector: lex
            params:
              bot: BOT123
              region: "eu-west-1.evil.example#"
              access_key_id: ${AWS_ACCESS_KEY_ID}
              secret_access_key: ${AWS_SECRET_ACCESS_KEY}
              session_token: ${AWS_SESSION_TOKEN}
            """
        )
    )
    bound = {name: frozenset({LEX_HOST}) for name in SECRETS}
    policy = ExecutionPolicy(run_code=False, secrets=SECRETS, secret_hosts=bound)
    before = installed_policy()
    install_policy(NetworkPolicy())
    try:
        with scoped(policy):
            connector = create_connector(load_chatbot_config(chatbot))
            conversation = await connector.open()
            with pytest.raises(Exception, match=r"may be sent only to runtime-v2-lex") as raised:
                reply = await conversation.send("hello")
                raise AssertionError(f"sent: {reply}")  # a reply means it left
            await connector.aclose()
    finally:
        install_policy(before)
    assert "evil.example" in str(raised.value)
    assert all(value not in str(raised.value) for value in SECRETS.values())
