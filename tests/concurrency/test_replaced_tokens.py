"""A token replaced while a request made with it waits for the lock acts no more: who acts is
checked again on the rows the change holds, not only as the request arrived (PostgreSQL)."""

import threading

import pytest
from django.db import connections, transaction

from tenders.models import Tender
from tests.contracting.helpers import InContracting
from tests.helpers import Clock
from tests.served import waiting_for_locks

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


class Queue:
    """Calls that wait, in the order started, for the tender's row lock the test holds, each in
    a thread of its own; `release()` lets them through in that order."""

    def __init__(self, tender_id: str):
        self.locked, self.released = threading.Event(), threading.Event()
        self.results, self.threads = {}, []
        self.holder = self._thread(self._hold, tender_id)
        assert self.locked.wait(10)

    def _thread(self, target, *args) -> threading.Thread:
        thread = threading.Thread(target=target, args=args)
        thread.start()
        return thread

    def _hold(self, tender_id):
        try:
            with transaction.atomic():
                Tender.objects.select_for_update().get(pk=tender_id)
                self.locked.set()
                self.released.wait(30)
        finally:
            connections.close_all()

    def _call(self, name, call):
        try:
            self.results[name] = call()
        finally:
            connections.close_all()

    def join(self, name: str, call) -> None:
        self.threads.append(self._thread(self._call, name, call))
        waiting_for_locks(len(self.threads))

    def release(self) -> dict:
        self.released.set()
        for thread in [self.holder, *self.threads]:
            thread.join(30)
        return self.results


@pytest.mark.parametrize("round_", range(3))
def test_a_contract_token_replaced_before_its_request_got_the_lock_acts_no_more(
    api, api2, time_machine, fresh_api, round_
):
    contract = InContracting(api, api2, Clock(time_machine))
    change = {"rationale": "Зменшення обсягу", "rationaleTypes": ["volumeCuts"]}
    queue = Queue(contract.tender.id)
    # The owner replaces the token; a request with the old one arrives meanwhile, behind it.
    queue.join(
        "credentials",
        lambda: fresh_api().patch(f"{contract.path}/credentials", token=contract.tender.token),
    )
    queue.join(
        "old token",
        lambda: fresh_api().post(f"{contract.path}/changes", change, token=contract.token),
    )
    results = queue.release()

    assert results["credentials"].status_code == 200
    refused = results["old token"]
    assert refused.status_code == 403, refused.content
    assert refused.json()["errors"][0]["name"] == "permission"
    assert contract.read().get("changes", []) == []
    new_token = results["credentials"].json()["access"]["token"]
    assert api.post(f"{contract.path}/changes", change, token=new_token).status_code == 201
