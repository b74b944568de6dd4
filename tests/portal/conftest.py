import pytest

from tests.factories import portal_world


@pytest.fixture
def world(brokers, clock):
    return portal_world(brokers, clock)


@pytest.fixture
def as_user(client):
    """Sign `client` in as a user (or out, with None) and return it."""

    def sign_in(user):
        language = client.cookies.get("django_language")
        client.logout()  # (which forgets every cookie)
        if language is not None:
            client.cookies["django_language"] = language.value
        if user is not None:
            client.force_login(user)
        return client

    return sign_in
