"""Contracts in contracting, reached through the API as brokers reach them."""

from tests.helpers import decide, in_qualification, past_stand_still, sign


def signed(api, api2, clock, **overrides):
    """A tender whose award's contract was signed (its bids placed by broker2)."""
    tender = in_qualification(api, clock, bidder_api=api2, **overrides)
    award = tender.read()["awards"][0]
    assert decide(api, tender, award["id"], "active").status_code == 200
    past_stand_still(tender, clock)
    assert sign(api, tender, award["id"]).status_code == 200
    return tender


def feed(reader, clock, **params) -> list[dict]:
    """Every item of the contracts' feed, followed page by page (once settled)."""
    clock.advance(minutes=1)
    items, params = [], {"limit": 1, **params}
    page = reader.get("/contracts", params).json()
    while page["data"]:
        items += page["data"]
        offset = page["next_page"]["offset"]
        page = reader.get("/contracts", {**params, "offset": offset}).json()
    return items


class InContracting:
    """A signed contract and its credentials (taken with the tender owner's token)."""

    def __init__(self, api, api2, clock, **overrides):
        self.api, self.clock = api, clock
        self.tender = signed(api, api2, clock, **overrides)
        self.id = self.tender.read()["contracts"][0]["id"]
        self.path = f"/contracts/{self.id}"
        taken = api.patch(f"{self.path}/credentials", token=self.tender.token)
        assert taken.status_code == 200, taken.content
        self.token = taken.json()["access"]["token"]

    def read(self) -> dict:
        return self.api.get(self.path).json()["data"]

    def in_tender(self) -> dict:
        return self.tender.read()["contracts"][0]

    def patch(self, data, token=None):
        return self.api.patch(self.path, data, token=token or self.token)

    def add_change(self, **fields):
        change = {"rationale": "Зменшення обсягу", "rationaleTypes": ["volumeCuts"], **fields}
        return self.api.post(f"{self.path}/changes", change, token=self.token)

    def patch_change(self, change_id, data, token=None):
        return self.api.patch(f"{self.path}/changes/{change_id}", data, token=token or self.token)
