"""A world for the fuzzer to walk in: real tenders in every status, reached through the API with
the clock moved (never by writing a status), with their bids, awards, claims, questions,
cancellations, contracts and documents, and what each may be changed with (its tokens).

Built once for the fuzzing module and kept in a transaction that each test nests in and rolls
back to, so every operation meets the same world. `World.things` maps each object's path to
what is known of it; the fuzzer's own 2xx answers add what they create (tests/fuzz/aim.py)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import parse_qsl, urlsplit

from django.test import Client

from core.schema import iso
from tests.docservice.helpers import DocService, document, md5
from tests.helpers import (
    ANSWER,
    BASE,
    CLAIM,
    FIRST,
    SECOND,
    Api,
    Clock,
    bid_on,
    close_tendering,
    create_tender,
    decide,
    lot,
    offer,
    place_bid,
    two_lots,
)

CONTENT = b"%PDF-1.4 fuzzing world\n"
QUESTION = {
    "title": "Уточнення щодо предмета закупівлі",
    "description": "Чи можна запропонувати еквівалент?",
    "author": CLAIM["author"],
}
# Collections whose members a tender's representation lists, each member an object of its own.
COLLECTIONS = (
    "documents",
    "lots",
    "questions",
    "complaints",
    "cancellations",
    "bids",
    "awards",
    "contracts",
)


@dataclass
class Thing:
    """An object of the API (or a document-service URL) the fuzzer may aim at."""

    path: str  # concrete, e.g. /api/2.3/tenders/<id>/awards/<id>
    tokens: list[str] = field(default_factory=list)  # what changes it, most specific first
    status: str = ""
    tender_status: str = ""
    query: dict = field(default_factory=dict)  # a signed document-service URL's
    bidder_tokens: list[str] = field(default_factory=list)  # an award's: who may claim


class World:
    def __init__(self):
        self.things: dict[str, Thing] = {}
        self.documents: list[dict] = []  # uploaded document-service files, ready to attach

    def copy(self) -> World:
        return copy.deepcopy(self)

    def add(self, path: str, token: str | None = None, **known) -> Thing:
        thing = self.things.setdefault(path, Thing(path))
        if token and token not in thing.tokens:
            thing.tokens.append(token)
        for name, value in known.items():
            setattr(thing, name, value)
        return thing

    def tokens_of(self, path: str) -> list[str]:
        """The thing's own tokens, then those of the things it is part of."""
        tokens = []
        while path.count("/") > 3:
            thing = self.things.get(path)
            tokens += [token for token in (thing.tokens if thing else []) if token not in tokens]
            path = path.rsplit("/", 1)[0]
        return tokens

    def learn_tender(self, tender_path: str, data: dict) -> None:
        """Everything a tender's representation lists, under the tender's path."""
        status = data["status"]
        self.add(tender_path, status=status, tender_status=status)
        bid_tokens = {}
        for collection in COLLECTIONS:
            for member in data.get(collection, []):
                path = f"{tender_path}/{collection}/{member['id']}"
                thing = self.add(path, status=member.get("status", ""), tender_status=status)
                if collection == "bids":
                    bid_tokens[member["id"]] = thing.tokens
                for paper in member.get("documents", []):
                    self.add(f"{path}/documents/{paper['id']}", tender_status=status)
                for claim in member.get("complaints", []):
                    claim_path = f"{path}/complaints/{claim['id']}"
                    self.add(claim_path, status=claim["status"], tender_status=status)
                    for paper in claim.get("documents", []):
                        self.add(f"{claim_path}/documents/{paper['id']}", tender_status=status)
        # A bidder claims against an award with its bid's token.
        for award in data.get("awards", []):
            thing = self.things[f"{tender_path}/awards/{award['id']}"]
            thing.bidder_tokens = bid_tokens.get(award.get("bid_id"), [])
        # What the tender's representation hides (bids while tendering, drafts) is still its.
        for path, thing in self.things.items():
            if path.startswith(tender_path + "/"):
                thing.tender_status = status

    def note(self, path: str, status: int, body) -> None:
        """What a 2xx answer (its JSON body) made at `path` (a collection) or changed there."""
        if not 200 <= status < 300 or not isinstance(body, dict):
            return
        data = body.get("data")
        if not isinstance(data, dict) or "id" not in data:
            return
        token = (body.get("access") or {}).get("token")
        if path.endswith("/" + data["id"]):
            self.add(path, token, status=data.get("status", ""))
        else:
            self.add(f"{path}/{data['id']}", token, status=data.get("status", ""))

    def choices(self, pattern) -> list[Thing]:
        return [thing for path, thing in self.things.items() if pattern.fullmatch(path)]


class Builder:
    """Builds the world on a clock that starts three weeks back and ends now."""

    def __init__(self, client: Client, key: str, clock: Clock):
        self.api = Api(client, key)
        self.ds = DocService(client, key)
        self.clock = clock
        self.world = World()
        self.tenders = []

    def build(self) -> World:
        end = self.clock.now()
        self.clock.move_to(end - timedelta(days=20))
        qualifying = self.tender()  # claims against a disqualification
        signing = self.tender()  # a contract to sign
        in_lots = self.tender(**two_lots())  # awards per lot, the first one's contract signed
        self.clock.move_to(end - timedelta(days=14, hours=2))
        auctioning = self.tender()  # in its auction when the world is done

        self.clock.move_to(end - timedelta(days=12))  # the first three take bids
        for tender in (qualifying, signing):
            for number, amount in enumerate((450, 400, 420)):
                place_bid(self.api, tender, amount, identifier=f"{number + 1:08d}")
        for number in range(3):
            bid_on(
                self.api,
                in_lots,
                offer(FIRST, 280 - number),
                offer(SECOND, 190 - number),
                identifier=f"{number + 1:08d}",
            )
        self.documents_on(f"{qualifying.path}/bids/{qualifying.bids[0][0]}", qualifying.bids[0][1])

        self.clock.advance(days=4)
        tendering = self.tender()  # takes bids when the world is done

        for tender in (qualifying, signing, in_lots):
            close_tendering(tender, self.clock)
        signing_award = signing.award(0)
        assert decide(self.api, signing, signing_award["id"], "active").status_code == 200
        lot_award = next(a for a in in_lots.read()["awards"] if a["lotID"] == FIRST)
        assert decide(self.api, in_lots, lot_award["id"], "active").status_code == 200

        self.clock.move_to(end - timedelta(hours=3))
        for number, amount in enumerate((440, 430)):
            place_bid(self.api, auctioning, amount, identifier=f"{number + 1:08d}")
        # The first lot's contract signed: in contracting (/contracts/{id}).
        lot_contract = next(
            c for c in in_lots.read()["contracts"] if c["awardID"] == lot_award["id"]
        )
        lot_signed = self.api.patch(
            f"{in_lots.path}/contracts/{lot_contract['id']}", {"status": "active"},
            token=in_lots.token,
        )  # fmt: skip
        assert lot_signed.status_code == 200, lot_signed.content
        in_contracting = f"/contracts/{lot_contract['id']}"
        taken = self.api.patch(f"{in_contracting}/credentials", token=in_lots.token)
        assert taken.status_code == 200, taken.content
        contract_token = taken.json()["access"]["token"]
        self.world.add(f"{BASE}{in_contracting}", contract_token, status="active")
        change = {"rationale": "Зниження ціни", "rationaleTypes": ["priceReduction"]}
        made = self.api.post(f"{in_contracting}/changes", change, token=contract_token)
        assert made.status_code == 201, made.content
        self.world.note(f"{BASE}{in_contracting}/changes", made.status_code, made.json())
        self.documents_on(in_contracting, contract_token)
        for number, amount in enumerate((480, 470, 460)):
            place_bid(self.api, tendering, amount, identifier=f"{number + 1:08d}")
        self.documents_on(f"{tendering.path}/bids/{tendering.bids[0][0]}", tendering.bids[0][1])
        disqualified = qualifying.award(0)
        assert decide(self.api, qualifying, disqualified["id"], "unsuccessful").status_code == 200
        claims = f"{BASE}{qualifying.path}/awards/{disqualified['id']}/complaints"
        bid_token = dict(qualifying.bids)[disqualified["bid_id"]]
        self.claims(claims, bid_token, qualifying.token)
        self.documents_on(f"{qualifying.path}/awards/{disqualified['id']}", qualifying.token)
        contract = signing.read()["contracts"][0]
        self.documents_on(f"{signing.path}/contracts/{contract['id']}", signing.token)
        # Its terms written before it is signed (number, term), as the portal's signing takes.
        terms = {"contractNumber": "Д-1/2026", "period": {
            "startDate": iso(end), "endDate": iso(end + timedelta(days=365))}}  # fmt: skip
        written = self.api.patch(
            f"{signing.path}/contracts/{contract['id']}", terms, token=signing.token
        )
        assert written.status_code == 200, written.content

        self.clock.move_to(end - timedelta(hours=1))
        enquiring = self.tender()  # questions, claims about its conditions, lots
        self.tender(**two_lots(lots=[*two_lots()["lots"], lot("3" * 32, 100)]))  # one itemless
        self.documents_on(enquiring.path, enquiring.token)
        for _ in range(3):
            response = self.api.post(f"{enquiring.path}/questions", QUESTION)
            assert response.status_code == 201, response.content
            self.world.note(
                f"{BASE}{enquiring.path}/questions", response.status_code, response.json()
            )
        asked = enquiring.read()["questions"][0]
        answered = self.api.patch(
            f"{enquiring.path}/questions/{asked['id']}", {"answer": "Так"}, token=enquiring.token
        )
        assert answered.status_code == 200, answered.content
        self.claims(f"{BASE}{enquiring.path}/complaints", None, enquiring.token)
        cancelling = self.tender()  # a cancellation pending
        cancelled = self.api.post(
            f"{cancelling.path}/cancellations", {"reason": "Зникла потреба"}, token=cancelling.token
        )
        assert cancelled.status_code == 201, cancelled.content
        self.documents_on(
            f"{cancelling.path}/cancellations/{cancelled.json()['data']['id']}", cancelling.token
        )

        self.clock.move_to(end)
        for tender in self.tenders:
            for bid_id, token in tender.bids:
                self.world.add(f"{BASE}{tender.path}/bids/{bid_id}", token)
            self.world.learn_tender(f"{BASE}{tender.path}", tender.read())
        self.signed_urls()
        return self.world

    def tender(self, **overrides):
        tender = create_tender(self.api, **overrides)
        self.tenders.append(tender)
        self.world.add(f"{BASE}{tender.path}", tender.token)
        return tender

    def claims(self, path: str, bid_token: str | None, owner_token: str) -> None:
        """A draft claim, one filed, one answered, one granted and its answer accepted (with a
        document on each)."""
        for outcome in ("draft", "claim", "answered", "accepted"):
            response = self.api.post(path, CLAIM, token=bid_token)
            assert response.status_code == 201, response.content
            self.world.note(path, response.status_code, response.json())
            claim = response.json()
            claim_path, claim_token = f"{path}/{claim['data']['id']}", claim["access"]["token"]
            self.documents_on(claim_path.removeprefix(BASE), claim_token)
            if outcome != "draft":
                filed = self.api.patch(claim_path, {"status": "claim"}, token=claim_token)
                assert filed.status_code == 200, filed.content
            if outcome in ("answered", "accepted"):
                answer = self.api.patch(claim_path, ANSWER, token=owner_token)
                assert answer.status_code == 200, answer.content
            if outcome == "accepted":
                accepted = self.api.patch(
                    claim_path, {"status": "resolved", "satisfied": True}, token=claim_token
                )
                assert accepted.status_code == 200, accepted.content

    def documents_on(self, path: str, token: str) -> None:
        response = self.api.post(f"{path}/documents", self.uploaded(), token=token)
        assert response.status_code == 201, response.content
        self.world.note(f"{BASE}{path}/documents", response.status_code, response.json())

    def uploaded(self) -> dict:
        """A file registered and uploaded to the document service, as a broker attaches it."""
        return document(self.ds, CONTENT, "Протокол.pdf")

    def register(self) -> dict:
        response = self.ds.register(md5(CONTENT))
        assert response.status_code == 201, response.content
        return response.json()

    def signed_urls(self) -> None:
        """Files to upload (registered, no content yet), files to read, and attachable ones."""
        for _ in range(8):
            self.world.documents.append(self.uploaded())
            for url in (self.world.documents[-1]["url"], self.register()["upload_url"]):
                path, query = _signed(url)
                self.world.add(path, query=query)


def _signed(url: str) -> tuple[str, dict]:
    parts = urlsplit(url)
    return parts.path, dict(parse_qsl(parts.query))
