"""Sign-in lockout: django-axes, counting failures in the cache per account name and per address
(LOGIN_FAILURE_LIMIT, LOGIN_LOCKOUT_MINUTES; the settings name this handler)."""

from axes.handlers.cache import AxesCacheHandler
from axes.helpers import get_client_username, get_credentials, make_cache_key_list

from portal.core.limits import cache_unavailable


def account_name(request, credentials) -> str:
    """The account name a sign-in names, marked as one: axes keys its counters by value alone,
    and a name typed as "203.0.113.7" must not count against that address."""
    name = (credentials or {}).get("username")
    if name is None and request is not None:
        name = request.POST.get("username", "")
    return _marked(name)


def _marked(name: str) -> str:
    return f"account:{name}"


class LockoutHandler(AxesCacheHandler):
    """Axes' cache handler, with two changes. A cache that does not answer lets sign-in through
    (never a 500). A successful sign-in forgets the failures of its account name only: the
    address keeps its count, so signing in to one's own account between guesses at others'
    passwords does not reset the address's count."""

    def get_failures(self, request, credentials=None) -> int:
        try:
            return super().get_failures(request, credentials)
        except Exception as error:
            cache_unavailable("the sign-in lockout", error)
            return 0

    def user_login_failed(self, sender, credentials, request=None, **kwargs):
        try:
            super().user_login_failed(sender, credentials, request, **kwargs)
        except Exception as error:
            cache_unavailable("the sign-in lockout", error)

    def reset_attempts(self, *, ip_address=None, username=None, ip_or_username=False) -> int:
        """axes' reset commands (`axes_reset_username NAME`) name the account plainly."""
        if username is not None:
            username = _marked(username)
        return super().reset_attempts(
            ip_address=ip_address, username=username, ip_or_username=ip_or_username
        )

    def user_logged_in(self, sender, request, user, **kwargs):
        name = get_client_username(request, get_credentials(user.get_username()))
        [key] = make_cache_key_list([{"username": name}])
        try:
            self.cache.delete(key)
        except Exception as error:
            cache_unavailable("the sign-in lockout", error)
