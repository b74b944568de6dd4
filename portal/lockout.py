"""Sign-in lockout: django-axes, counting failures in the cache per account name and per address
(LOGIN_FAILURE_LIMIT, LOGIN_LOCKOUT_MINUTES; the settings name this handler).

An attempt is counted before its password is hashed, not after: each attempt takes its place in
the counts first (one atomic increment per count), and only an attempt whose place is within the
limit has its password checked. Attempts sent at the same moment therefore cannot buy more
password hashes than the limit, however many workers take them. A successful sign-in gives its
place back."""

import contextlib

from axes.handlers.cache import AxesCacheHandler
from axes.helpers import (
    get_cache_timeout,
    get_client_cache_keys,
    get_client_username,
    get_credentials,
    get_failure_limit,
    make_cache_key_list,
)
from axes.signals import user_locked_out

from core.limits import cache_unavailable, count_knock


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
    """Axes' cache handler, counting each attempt before its password is checked (above). A
    cache that does not answer lets sign-in through (never a 500). A successful sign-in
    forgets the failures of its account name only: the address keeps its count, so signing in
    to one's own account between guesses at others' passwords does not reset it."""

    def is_locked(self, request, credentials=None) -> bool:
        """Take this attempt's place in every count; locked if any count is past the limit.
        A locked attempt gives its places back (it checks no password, so it is no failure:
        a person retrying a locked account neither lengthens the lockout nor locks its own
        address). Axes asks this once per attempt, before the password backends run."""
        try:
            keys = get_client_cache_keys(request, credentials)
            timeout = get_cache_timeout(request)
            places = [count_knock(key, timeout) for key in keys]
            locked = max(places, default=0) > get_failure_limit(request, credentials)
            for key in keys:
                if locked:
                    self._give_back(key)
                else:  # (the lockout lasts from the last attempt counted)
                    self.cache.touch(key, timeout=timeout)
        except Exception as error:
            cache_unavailable("the sign-in lockout", error)
            return False
        request.axes_places = places
        return locked

    def get_failures(self, request, credentials=None) -> int:
        try:
            return super().get_failures(request, credentials)
        except Exception as error:
            cache_unavailable("the sign-in lockout", error)
            return 0

    def user_login_failed(self, sender, credentials, request=None, **kwargs):
        """The failure was counted when the attempt took its place: nothing is added here.
        The attempt that reaches the limit is answered with the lockout page."""
        if request is None or not hasattr(request, "axes_places"):
            return
        if max(request.axes_places, default=0) >= get_failure_limit(request, credentials):
            request.axes_locked_out = True
            request.axes_credentials = credentials
            user_locked_out.send(
                "axes",
                request=request,
                username=get_client_username(request, credentials),
                ip_address=request.axes_ip_address,
            )

    def reset_attempts(self, *, ip_address=None, username=None, ip_or_username=False) -> int:
        """axes' reset commands (`axes_reset_username NAME`) name the account plainly."""
        if username is not None:
            username = _marked(username)
        return super().reset_attempts(
            ip_address=ip_address, username=username, ip_or_username=ip_or_username
        )

    def user_logged_in(self, sender, request, user, **kwargs):
        name = get_client_username(request, get_credentials(user.get_username()))
        [account_key] = make_cache_key_list([{"username": name}])
        try:
            self.cache.delete(account_key)
            if hasattr(request, "axes_places"):
                for key in get_client_cache_keys(request, get_credentials(user.get_username())):
                    if key != account_key:
                        self._give_back(key)
        except Exception as error:
            cache_unavailable("the sign-in lockout", error)

    def _give_back(self, key: str) -> None:
        with contextlib.suppress(ValueError):  # (the count has expired meanwhile)
            self.cache.decr(key)
