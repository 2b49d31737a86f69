"""Model-provider API keys encrypted at rest with MultiFernet.

``FERNET_KEYS`` (newest first) come from ``SPARRING_WEB_FERNET_KEYS`` (or, on loopback, the
data folder). A secret is encrypted with the newest key and read with any; ``rotate_keys``
re-encrypts every row with the newest key, after which older keys can be dropped. Only the
last four characters are kept in clear (``Secret.hint``, shown as ``…abcd``).

Decryption happens in one place, ``secret_values``, called where a job is handed its keys
(the in-process worker); the values never go into a run directory, a log, the stored
settings of a run or a queue message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cryptography.fernet import Fernet, MultiFernet
from django.conf import settings
from django.db import transaction

from sparring.web.models import Project, Secret

HINT_LENGTH = 4


def _fernet() -> MultiFernet:
    keys: list[str] = list(settings.FERNET_KEYS)
    if not keys:
        raise RuntimeError("no Fernet keys configured (SPARRING_WEB_FERNET_KEYS)")
    return MultiFernet([Fernet(key.encode()) for key in keys])


def hint(value: str) -> str:
    """What may be shown of a secret: ``…`` and its last four characters (``…`` alone when
    it is too short to show any)."""
    return "…" + value[-HINT_LENGTH:] if len(value) >= 3 * HINT_LENGTH else "…"


def set_secret(
    project: Project, name: str, value: str, user: Any = None, hosts: Iterable[str] = ()
) -> Secret:
    """Store ``value`` encrypted as the project's secret ``name`` (replacing an older one),
    to be sent to ``hosts`` only (host names; none: nowhere, except a model-provider key to
    its provider's own host)."""
    token = _fernet().encrypt(value.encode())
    bound = ",".join(sorted({h.strip().lower().rstrip(".") for h in hosts if h.strip()}))
    secret, _ = Secret.objects.update_or_create(
        project=project,
        name=name,
        defaults={"ciphertext": token, "hint": hint(value), "updated_by": user, "hosts": bound},
    )
    return secret


def secret_hosts(project: Project) -> dict[str, frozenset[str]]:
    """The hosts each of the project's secrets may be sent to, by name (empty for a secret
    whose owner stated none: it is sent nowhere by a connector; a model-provider key goes
    to its provider, ``sparring.llm.key_grants``)."""
    rows = Secret.objects.filter(project=project).values_list("name", "hosts")
    return {name: frozenset(h for h in hosts.split(",") if h) for name, hosts in rows}


def secret_values(secrets: Iterable[Secret]) -> dict[str, str]:
    """The decrypted values by name — call only where a job uses them."""
    fernet = _fernet()
    return {s.name: fernet.decrypt(bytes(s.ciphertext)).decode() for s in secrets}


def rotate_keys() -> int:
    """Re-encrypt every secret with the newest key (``MultiFernet.rotate``); the number of
    rows rewritten. Raises ``cryptography.fernet.InvalidToken`` if a row cannot be read with
    any configured key (nothing is changed then)."""
    fernet = _fernet()
    count = 0
    with transaction.atomic():
        for secret in Secret.objects.select_for_update():
            token = fernet.rotate(bytes(secret.ciphertext))
            Secret.objects.filter(pk=secret.pk).update(ciphertext=token)
            count += 1
    return count
