"""The record of an auction held, published with its tender when it ends: the same record twice,
as data (JSON, for brokers and auditors) and as a page a person reads (HTML, in Ukrainian, the
language of the registry's records). 2.3 knows no documentType for it (its auction worker
uploads its audit file untyped): both are published without one."""

import json

from django.template.loader import render_to_string
from django.utils import translation

from core.schema import iso


def protocol(course) -> list[tuple[str, bytes]]:
    """The protocol's files (name, content): every offer of every turn with its time, and the
    results, the best first, with each bid's sealed price and its reduction."""
    record = _record(course)
    lot_id = course.auction.lot_id
    name = f"auction-protocol-{lot_id}" if lot_id else "auction-protocol"
    readable = _readable(course)
    return [
        (f"{name}.json", json.dumps(record, ensure_ascii=False, indent=1).encode()),
        (f"{name}.html", readable.encode()),
    ]


def _record(course) -> dict:
    auction, tender = course.auction, course.tender
    # Bidders by number (and their bids' ids): a lot's protocol is published while another
    # lot's auction may still be held among the same bidders, unnamed until it ends.
    name = course.numbers
    return {
        "tenderID": tender.tender_id,
        "lotID": auction.lot_id or None,
        "auctionPeriod": {"startDate": iso(auction.start), "endDate": iso(course.ends)},
        "minimalStep": tender.expected_step(auction.line),
        "rounds": [
            {
                "round": n,
                "turns": [
                    {
                        "bidder": name[turn.bid_id],
                        "bid_id": turn.bid_id,
                        "startDate": iso(turn.starts),
                        "endDate": iso(turn.ends),
                        "offers": [
                            {
                                "amount": None if placed.amount is None else float(placed.amount),
                                "date": iso(placed.at),
                            }
                            for placed in course.offers_in(turn)
                        ],
                    }
                    for turn in turns
                ],
            }
            for n, turns in enumerate(course.rounds, start=1)
        ],
        "results": [
            {
                "bidder": name[result.bid_id],
                "bid_id": result.bid_id,
                "initialAmount": float(result.initial),
                "amount": float(result.amount),
                "date": iso(result.at),
            }
            for result in course.results()
        ],
    }


def _readable(course) -> str:
    auction, tender = course.auction, course.tender
    name = course.numbers
    with translation.override("uk"):
        return render_to_string(
            "auctions/protocol.html",
            {
                "tender": tender,
                "lot": tender.lot(auction.lot_id) if auction.lot_id else None,
                "start": auction.start,
                "ends": course.ends,
                "step": course.step,
                "results": [
                    {"number": name[result.bid_id], "result": result} for result in course.results()
                ],
                "rounds": [
                    [
                        {
                            "number": name[turn.bid_id],
                            "starts": turn.starts,
                            "ends": turn.ends,
                            "offers": course.offers_in(turn),
                        }
                        for turn in turns
                    ]
                    for turns in course.rounds
                ],
            },
        )
