"""People of the cluster's test who saved a search for "папір" with alerts at once: the alert
runners' work during `make cluster-test` (run with the cluster's environment).

    python -m cluster.searchers COUNT
"""

import sys

import django


def main(count: int) -> None:
    django.setup()
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from portal.models import SavedSearch

    User = get_user_model()
    for number in range(1, count + 1):
        user = User.objects.create_user(
            f"searcher{number}", email=f"searcher{number}@cluster.localhost", password=None
        )
        User.confirm_email(user.confirmation_token())
        SavedSearch.keep(
            User.objects.get(pk=user.pk), query="q=папір", name="Папір",
            frequency=SavedSearch.Frequency.AT_ONCE, now=timezone.now(),
        )  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]))
