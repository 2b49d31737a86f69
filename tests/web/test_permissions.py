"""The one permission layer (``sparring.web._permissions``): owner / editor / viewer /
stranger / anonymous × every object type × every action, and querysets that never show
another's objects."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import Model
from django.http import Http404

from sparring.web._permissions import Action, allowed, get_object, own_tokens, scope
from sparring.web._secrets import set_secret
from sparring.web.models import (
    Annotation,
    DeviceToken,
    FileKind,
    FileVersion,
    Membership,
    Project,
    ProjectFile,
    Run,
    Secret,
)

EXPECTED: dict[str, set[Action]] = {
    "owner": set(Action),
    "editor": {Action.READ, Action.EDIT, Action.RUN},
    "viewer": {Action.READ},
    "stranger": set(),
    "anonymous": set(),
}
"""What each person may do on the private project's objects (secrets excepted)."""


def _objects(project: Project, owner: Any) -> dict[str, Model]:
    file = ProjectFile.objects.create(project=project, kind=FileKind.CHATBOT, name="chatbot.yaml")
    version = FileVersion.objects.create(file=file, number=1, content="connector: echo\n")
    run = Run.objects.create(project=project, job="simulate", path="/runs/x")
    annotation = Annotation.objects.create(run=run, conversation="c1", turn=2, label="wrong")
    secret = set_secret(project, "OPENAI_API_KEY", "sk-test-0123456789abcd", owner)
    membership = Membership.objects.get(project=project, user=owner)
    return {
        "project": project,
        "file": file,
        "version": version,
        "run": run,
        "annotation": annotation,
        "secret": secret,
        "membership": membership,
    }


def _person(world: dict[str, Any], who: str) -> Any:
    return AnonymousUser() if who == "anonymous" else world[who]


@pytest.mark.parametrize("who", list(EXPECTED))
def test_every_role_may_do_exactly_its_actions_on_every_object(
    world: dict[str, Any], who: str
) -> None:
    objects = _objects(world["project"], world["owner"])
    person = _person(world, who)
    for kind, obj in objects.items():
        for action in Action:
            expected = action in EXPECTED[who]
            if kind == "secret":  # every verb on a secret is the owner's alone
                expected = who == "owner"
            assert allowed(person, action, obj) is expected, (who, kind, action)


@pytest.mark.parametrize("who", list(EXPECTED))
def test_lists_show_only_what_a_person_may_read(world: dict[str, Any], who: str) -> None:
    mine = _objects(world["project"], world["owner"])
    theirs = _objects(world["other"], world["stranger"])
    person = _person(world, who)
    for kind in mine:
        model = type(mine[kind])
        visible = set(scope(model._default_manager.all(), person).values_list("pk", flat=True))
        readable = Action.READ in EXPECTED[who] and (kind != "secret" or who == "owner")
        assert (mine[kind].pk in visible) is readable, (who, kind)
        assert (theirs[kind].pk in visible) is (who == "stranger"), (who, kind)


def test_a_public_project_is_readable_by_every_signed_in_user_and_nothing_more(
    world: dict[str, Any],
) -> None:
    public = world["public"]
    objects = _objects(public, public.memberships.get().user)
    stranger = world["stranger"]
    for kind, obj in objects.items():
        assert allowed(stranger, Action.READ, obj) is (kind != "secret"), kind
        for action in (Action.EDIT, Action.RUN, Action.MANAGE):
            assert not allowed(stranger, action, obj), (kind, action)
        assert not allowed(AnonymousUser(), Action.READ, obj)
    assert public in scope(Project.objects.all(), stranger)
    assert not scope(Secret.objects.all(), stranger).filter(project=public).exists()
    assert not scope(Project.objects.all(), AnonymousUser()).exists()


def test_lookups_hide_what_cannot_be_read_and_refuse_what_cannot_be_done(
    world: dict[str, Any],
) -> None:
    run = _objects(world["project"], world["owner"])["run"]
    assert get_object(Run.objects.all(), world["editor"], Action.RUN, pk=run.pk) == run
    with pytest.raises(PermissionDenied):
        get_object(Run.objects.all(), world["viewer"], Action.RUN, pk=run.pk)
    with pytest.raises(Http404):
        get_object(Run.objects.all(), world["stranger"], Action.READ, pk=run.pk)
    with pytest.raises(Http404):
        get_object(Run.objects.all(), AnonymousUser(), Action.READ, pk=run.pk)
    with pytest.raises(Http404):
        get_object(Run.objects.all(), world["owner"], Action.READ, pk="not a number")


def test_an_inactive_member_loses_every_right(world: dict[str, Any]) -> None:
    editor = world["editor"]
    editor.is_active = False
    editor.save()
    assert not allowed(editor, Action.READ, world["project"])
    assert not scope(Project.objects.all(), editor).exists()


def test_tokens_are_their_owners_alone(world: dict[str, Any]) -> None:
    DeviceToken.objects.create(world["owner"], name="laptop")
    DeviceToken.objects.create(world["stranger"], name="ci")
    assert [t.name for t in own_tokens(world["owner"])] == ["laptop"]
    assert not own_tokens(AnonymousUser()).exists()


def test_a_model_without_an_access_rule_is_refused() -> None:
    with pytest.raises(TypeError):
        scope(DeviceToken.objects.all(), AnonymousUser())
