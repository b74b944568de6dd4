"""Aiming a generated case at the world (tests/fuzz/world.py), so that it gets past the lookup
and reaches the rule behind it.

Most cases are aimed: their path's ids become those of a real object (one in the tender status
where the operation can succeed, when there is one), their token one that may change it, and a
positive case's body that of a change the object can take, with some of the generated fields
laid over it. The rest go as generated, so lookups and refusals of unknown ids are still tried.
Every choice comes from a generator seeded by the case as generated: a case is aimed the same
way each time Hypothesis replays it."""

import random
import re

from schemathesis import GenerationMode

from tests.fuzz.world import CONTENT, QUESTION, Thing, World
from tests.helpers import ANSWER, CLAIM, bid_data, tender_data

AIMED = 0.85  # of cases get real ids and tokens
KEPT_FIELDS = 0.25  # of a positive case's generated fields laid over the aimed body
BINDING = {"url", "hash"}  # a document's link to its content: kept as aimed

# The tender statuses an operation can succeed in, by a part of its path.
WHERE = [
    (re.compile(r"/(lots|questions)"), {"active.enquiries"}),
    (re.compile(r"/tenders/\{tender_id\}/complaints"), {"active.enquiries", "active.tendering"}),
    (re.compile(r"/bids"), {"active.tendering"}),
    (re.compile(r"/awards"), {"active.qualification"}),
    (re.compile(r"/contracts"), {"active.awarded"}),
    (re.compile(r"/cancellations"), {"active.enquiries"}),
    (re.compile(r"^/api/2\.3/tenders/\{tender_id\}(/documents.*)?$"), {"active.enquiries"}),
]


# The statuses of the object itself an operation can succeed on.
OF_STATUS = [
    (re.compile(r"/complaints/\{complaint_id\}/documents"), {"draft"}),
    (re.compile(r"/awards/\{(award_id|id)\}$"), {"pending"}),
    (re.compile(r"/contracts/\{(contract_id|id)\}"), {"pending"}),
    (re.compile(r"/cancellations/\{(cancellation_id|id)\}"), {"pending"}),
]


class Aim:
    def __init__(self, world: World):
        self.world = world

    def __call__(self, case) -> None:
        generated = (case.method, case.path, case.path_parameters, case.query, case.body)
        rng = random.Random(repr(generated))
        positive = case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE
        if case.path_parameters and rng.random() > AIMED:
            return
        thing = self.aim_path(case, rng)
        if thing is None and case.path_parameters:
            return
        token = self.aim_token(case, thing, rng)
        if positive and rng.random() < AIMED:
            self.aim_body(case, thing, token, rng)

    def aim_path(self, case, rng) -> Thing | None:
        if not case.path_parameters:
            return None
        # The object the path is of (a collection's is the object it belongs to).
        owner = case.path[: case.path.rindex("}") + 1]
        pattern = re.compile(re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", owner))
        current = owner.format(**case.path_parameters)
        if current in self.world.things:  # a link of the stateful run led here
            return self.world.things[current]
        things = self.world.choices(pattern)
        if not things:
            return None
        fitting = [thing for thing in things if case.method == "GET" or fits(case.path, thing)]
        thing = rng.choice(fitting if fitting and rng.random() < AIMED else things)
        case.path_parameters = pattern.fullmatch(thing.path).groupdict()
        if thing.query:
            case.query = {**(case.query or {}), **thing.query}
        if case.query and "download" in case.query and rng.random() < 0.5:
            del case.query["download"]  # the document itself, not a made-up version of it
        return thing

    def aim_token(self, case, thing: Thing | None, rng) -> str | None:
        names = {parameter.name for parameter in case.operation.iter_parameters()}
        if thing is None or "acc_token" not in names:
            return None
        if case.method == "POST" and case.path.endswith("/awards/{award_id}/complaints"):
            tokens = thing.bidder_tokens
        else:
            tokens = self.world.tokens_of(thing.path)
        if not tokens:
            return None
        token = tokens[0] if rng.random() < 0.75 else rng.choice(tokens)
        case.query = {**(case.query or {}), "acc_token": token}
        if case.headers and "X-Access-Token" in case.headers:
            case.headers["X-Access-Token"] = token
        return token

    def aim_body(self, case, thing: Thing | None, token: str | None, rng) -> None:
        if case.path.startswith("/ds/upload/"):  # the content registered
            case.body = {"file": CONTENT}
            return
        if case.media_type != "application/json" or not isinstance(case.body, dict):
            return
        change = changes(case.method, case.path, thing, token, self.world, rng)
        if change is None:
            return
        generated = case.body.get("data")
        kept = {}
        if isinstance(generated, dict):
            kept = {
                name: value
                for name, value in generated.items()
                if name not in BINDING and rng.random() < KEPT_FIELDS
            }
        case.body = {**case.body, "data": {**change, **kept}}


def fits(path: str, thing: Thing) -> bool:
    """Whether the operation at `path` can succeed on `thing`, as far as statuses tell."""
    for part, statuses in WHERE:
        if part.search(path) and thing.tender_status not in statuses:
            return False
    for part, statuses in OF_STATUS:
        if part.search(path) and thing.status not in statuses:
            return False
    return True


def changes(method, path, thing: Thing | None, token, world: World, rng) -> dict | None:
    """A change the object at `thing` can take (a new one, for a collection), or None."""
    last = path.rsplit("/", 1)[-1]
    collection = not last.startswith("{")
    kind = (path.rsplit("/", 2)[-1] if collection else path.rsplit("/", 2)[-2]).strip("/")
    own_token = thing is not None and thing.tokens[:1] == [token]
    if kind == "documents" or "/documents/" in path:
        if method == "PATCH":
            return {"description": "Уточнено", "documentType": "notice"}
        return rng.choice(world.documents)
    if path.startswith("/api/2.3/contracts/"):  # (contracting: a signed contract)
        if kind == "changes":
            if collection:
                return {"rationale": "Зниження ціни", "rationaleTypes": ["priceReduction"]}
            return rng.choice([{"rationale": "Уточнено"}, {"contractNumber": "2"}])
        return rng.choice([{"title": "Договір № 1"}, {"amountPaid": {"amount": 300}}])
    if path == "/api/2.3/tenders":
        return tender_data()
    if kind == "tenders" or last == "{tender_id}":
        return rng.choice([{"title": "Уточнена назва"}, {"value": {"amount": 490}}])
    if kind == "lots":
        if collection:
            return {"title": "лот 3", "value": {"amount": 100}, "minimalStep": {"amount": 5}}
        return {"title": "Уточнений лот", "value": {"amount": 250}}
    if kind == "questions":
        return QUESTION if collection else {"answer": "Так, можна"}
    if kind == "bids":
        if collection:
            return bid_data(rng.choice([300, 350]), identifier=f"{rng.randrange(10**8):08d}")
        return rng.choice([{"value": {"amount": 330}}, {"status": "active"}])
    if kind == "awards":
        return {"status": rng.choice(["active", "unsuccessful"])}
    if kind == "contracts":
        return rng.choice([{"status": "active"}, {"value": {"amount": 380}}])
    if kind == "cancellations":
        return {"reason": "Зникла потреба"} if collection else {"status": "active"}
    if kind == "complaints":
        if collection:
            return {**CLAIM, **rng.choice([{}, {"status": "claim"}])}
        return claim_change(thing, own_token, rng)
    return None


def claim_change(thing: Thing | None, by_its_author: bool, rng) -> dict:
    status = thing.status if thing else ""
    if by_its_author:
        return {
            "draft": {"status": "claim"},
            "claim": {"status": "cancelled", "cancellationReason": "Питання знято"},
            "answered": {"status": "resolved", "satisfied": rng.choice([True, False])},
        }.get(status, {"title": "Уточнена вимога"})
    return ANSWER if status == "claim" else {"status": "declined"}
