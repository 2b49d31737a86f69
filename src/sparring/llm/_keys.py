"""Which model-provider keys a job's model client may hold: a key goes only to its
provider's hosts.

A server that runs jobs for other people (the dashboard's job process) gives the model
client no key by default: ``key_grants`` decides, for the models a job names and its
``model_base_url``, which of the project's secrets the client gets (as the environment
variables LiteLLM reads). A key is granted when the host the client will send it to is
one it may go to:

- **where it goes**: the host of ``model_base_url`` when set; else a host written in the
  model name itself (``huggingface/https://host/…``); else LiteLLM's own endpoint for
  the provider (chosen by LiteLLM, not by the job: always allowed);
- **where it may go**: LiteLLM's default host for the provider (``api.openai.com`` for
  ``OPENAI_API_KEY`` with ``openai/…``) and the hosts the key's owner stated.

So an editor who sets ``model_base_url`` to a server of theirs gets no key there: the job
is refused before any work with the key, the hosts and the setting named. Which variables
a provider reads and its default host are LiteLLM's (``validate_environment``,
``get_llm_provider``, its provider configurations); specs of the other providers
(``scripted:``, ``llamacpp/``) need no key.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from unittest import mock
from urllib.parse import urlsplit

from sparring._policy import ANY_HOST
from sparring.llm._registry import DEFAULT_PROVIDER, _find_factory


@dataclass(frozen=True)
class ProviderRoute:
    """Where a LiteLLM model spec's calls go: the ``provider`` (LiteLLM's name), the
    environment variables it reads its credentials from (``keys``), LiteLLM's default
    host for it (``default_host``, ``None`` when LiteLLM names none) and the host the
    spec itself names (``named_host``: a URL written as the model name)."""

    provider: str
    keys: tuple[str, ...]
    default_host: str | None
    named_host: str | None = None


@dataclass
class KeyGrants:
    """The keys a job's model client may read (``environ``: name → value), the hosts each
    may then be sent to (``hosts``: its provider's, the stated ones and where the job sends
    it; ``sparring._policy.ANY_HOST`` when only LiteLLM knows its endpoint) and, for each
    key withheld, why (``refusals``, one sentence each)."""

    environ: dict[str, str] = field(default_factory=dict)
    hosts: dict[str, frozenset[str]] = field(default_factory=dict)
    refusals: list[str] = field(default_factory=list)


def _host(url: str | None) -> str | None:
    if not url or "://" not in url:
        return None
    host = urlsplit(url.strip()).hostname
    return host.lower().rstrip(".") if host else None


def _default_host(
    litellm: ModuleType, model: str, provider: str, api_base: str | None
) -> str | None:
    """LiteLLM's default host for ``provider`` (``None``: it names none)."""
    if (host := _host(api_base)) is not None:
        return host
    try:
        info = litellm.utils.ProviderConfigManager.get_provider_model_info(
            model, litellm.LlmProviders(provider)
        )
        if info is not None and (host := _host(info.get_api_base())) is not None:
            return host
    except Exception:  # LiteLLM has no model information for this provider
        pass
    try:
        return _host(litellm.utils.get_api_base(model=f"{provider}/{model}", optional_params={}))
    except Exception:
        return None


def provider_route(spec: str) -> ProviderRoute | None:
    """Where the model ``spec`` sends its calls (``ProviderRoute``), or ``None`` for a
    spec no key goes with (a registered provider other than LiteLLM, or one LiteLLM does
    not know). Imports LiteLLM."""
    prefix, name, _factory = _find_factory(spec.strip())
    if prefix != DEFAULT_PROVIDER:
        return None
    from sparring.llm._litellm import import_litellm

    litellm = import_litellm()
    try:
        model, provider, _key, api_base = litellm.get_llm_provider(model=name)
    except Exception:
        return None
    with mock.patch.dict(os.environ, clear=True):  # every variable it reads, none set
        try:
            keys = litellm.validate_environment(model=name).get("missing_keys", [])
        except Exception:
            keys = []
    return ProviderRoute(
        provider=str(provider),
        keys=tuple(str(k) for k in keys),
        default_host=_default_host(litellm, str(model), str(provider), api_base),
        named_host=_host(str(model)),
    )


def key_grants(
    specs: Iterable[str | None],
    base_url: str | None,
    secrets: Mapping[str, str],
    hosts: Mapping[str, frozenset[str]],
) -> KeyGrants:
    """The project's ``secrets`` the model client of a job naming the models ``specs``
    with ``model_base_url`` ``base_url`` may read (see the module docstring); ``hosts``
    are the hosts each secret's owner stated (a name absent: none)."""
    grants = KeyGrants()
    for spec in specs:
        route = provider_route(spec) if spec else None
        if route is None:
            continue
        target = _host(base_url) or route.named_host
        for name in route.keys:
            if name not in secrets or name in grants.environ:
                continue
            allowed = set(hosts.get(name, ()))
            if route.default_host is not None:
                allowed.add(route.default_host)
            if target is None or target in allowed:
                grants.environ[name] = secrets[name]
                going = allowed | ({target} if target is not None else set())
                grants.hosts[name] = frozenset(going or {ANY_HOST})
                continue
            where = ", ".join(sorted(allowed)) or "no host"
            grants.refusals.append(
                f"the project's {name} may be sent only to {where} (LiteLLM's host for "
                f"{route.provider} and the hosts its owner stated), not {target}"
            )
    return grants
