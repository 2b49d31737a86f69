"""The built-in mutation operators; importing this package registers them (one module
per kind of project)."""

from sparring.mutation._operators import aiml, prompt, rasa, taskyto, taskyto_flow  # noqa: F401
