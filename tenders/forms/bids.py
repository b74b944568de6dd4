"""Portal forms of bidding (tenders/views/bids.py): a bid and its price; the models decide."""

from django import forms
from django.utils.translation import gettext_lazy as _

from core.forms import OnceForm
from core.words import money
from tenders.models.bidding import LOW_PRICE_SHARE, is_price_in_doubt


class PricesChecked(forms.Form):
    """The prices of a bid form, each checked against the expected value of what it is
    offered for: one far below it is sent only once the bidder says it is right."""

    price_is_right = forms.BooleanField(label=_("The price is right"), required=False)

    # Shown with the price it is about only: set by clean().
    price_in_doubt = False

    def expected_values(self) -> dict:
        """The expected value of each price field's line (the tender's, or its lot's)."""
        tender = self.tender
        if not tender.lots:
            return {"amount": tender.expected_value(None)}
        return {f"lot_{lot['id']}": tender.expected_value(lot["id"]) for lot in tender.lots}

    def clean(self):
        cleaned = super().clean()
        for name in self.expected_values():
            if cleaned.get(name) is not None and cleaned[name] <= 0:
                # (nothing is sold for nothing: "the price is right" does not make it so)
                self.add_error(name, _("A price is above zero."))
        self.price_in_doubt = bool(cleaned.get("price_is_right"))
        if self.price_in_doubt:
            return cleaned
        for name, expected in self.expected_values().items():
            price = cleaned.get(name)
            if price is None or not is_price_in_doubt(price, expected.get("amount")):
                continue
            self.price_in_doubt = True
            self.add_error(
                name,
                _(
                    "This is less than %(share)s%% of the expected value, %(expected)s. If the "
                    "price is right, tick «The price is right» and send it again."
                )
                % {
                    "share": int(LOW_PRICE_SHARE * 100),
                    "expected": money(expected),
                },
            )
        return cleaned


class BidForm(PricesChecked, OnceForm):
    """A bid from the signed-in user's organization; the model checks the value and the
    period. The fields become the 2.3 bid's `value` (with lots: a price per lot, `lotValues`),
    its `parameters` (a choice per feature of the tender) and `tenderers[0].contactPoint`."""

    amount = forms.DecimalField(
        label=_("Price offered"), min_value=0, max_digits=15, decimal_places=2
    )
    contact_name = forms.CharField(label=_("Contact person"), max_length=200)
    email = forms.EmailField(label=_("Contact e-mail"))
    telephone = forms.CharField(label=_("Telephone (optional)"), max_length=50, required=False)
    locality = forms.CharField(label=_("Town or city"), max_length=200)

    def __init__(self, *args, tender, **kwargs):
        super().__init__(*args, **kwargs)
        self.tender = tender
        # A price per lot open for bids, named by the lot's id (a page read before a lot was
        # cancelled still names the lots it meant).
        self.lots = tender.open_lots()
        if tender.lots:
            del self.fields["amount"]
        prices = {
            f"lot_{lot['id']}": forms.DecimalField(
                label=_("Price for lot «%(title)s» (leave empty not to bid for it)")
                % {"title": lot["title"]},
                min_value=0,
                max_digits=15,
                decimal_places=2,
                required=False,
            )
            for lot in self.lots
        }
        # A choice per feature a bid may be weighed by (named by its place in the tender's
        # list, fixed once bids are taken): the tenderer's always; a lot's (or its items')
        # only when that lot is priced (clean).
        open_codes = tender.weighed_by(tender.awarding_lines())
        titles = {lot["id"]: lot["title"] for lot in tender.lots}
        self.features = {
            f"feature_{n}": feature
            for n, feature in enumerate(tender.data.get("features", []))
            if feature["code"] in open_codes
        }
        choices = {}
        for name, feature in self.features.items():
            label = feature["title"]
            if feature["featureOf"] == "lot":
                label = _("%(title)s (lot «%(lot)s»)") % {
                    "title": label,
                    "lot": titles.get(feature.get("relatedItem"), ""),
                }
            choices[name] = forms.TypedChoiceField(
                label=label,
                help_text=feature.get("description", ""),
                choices=[(str(v["value"]), v["title"]) for v in feature["enum"]],
                coerce=float,
                empty_value=None,
                required=not tender.lots or feature["featureOf"] == "tenderer",
            )
        self.fields = {**prices, **self.fields, **choices}

    def priced_lots(self) -> list[str]:
        return [
            lot["id"] for lot in self.lots if self.cleaned_data.get(f"lot_{lot['id']}") is not None
        ]

    def clean(self):
        cleaned = super().clean()
        titles = {f"lot_{lot['id']}": lot["title"] for lot in self.tender.lots}
        for name, value in self.data.items():
            if name in titles and name not in self.fields and value:
                raise forms.ValidationError(
                    _("Lot «%(title)s» is no longer open for bids: reload the page.")
                    % {"title": titles[name]}
                )
        if not self.lots:
            return cleaned
        priced = self.priced_lots()
        if not priced:
            raise forms.ValidationError(_("Offer a price for at least one lot."))
        needed = self.tender.weighed_by(priced)
        for name, feature in self.features.items():
            if feature["code"] in needed and cleaned.get(name) is None and name not in self.errors:
                self.add_error(name, _("Choose one for the lots you bid for."))
        return cleaned

    def as_bid(self, organization) -> dict:
        """The 2.3 bid: prices in the tender's currency and VAT terms, a value for each feature
        the bid is weighed by, the organization as the tenderer."""
        data = self.cleaned_data
        terms = self.tender.data.get("value", {})

        def price(amount) -> dict:
            return {
                "amount": float(amount),
                "currency": terms.get("currency", "UAH"),
                "valueAddedTaxIncluded": terms.get("valueAddedTaxIncluded", True),
            }

        contact = {"name": data["contact_name"], "email": data["email"]}
        if data["telephone"]:
            contact["telephone"] = data["telephone"]
        bid = {
            "tenderers": [
                {
                    "name": organization.name,
                    "identifier": organization.identifier_data,
                    "address": {"countryName": "Україна", "locality": data["locality"]},
                    "contactPoint": contact,
                }
            ]
        }
        if self.tender.lots:
            lines = self.priced_lots()
            bid["lotValues"] = [
                {"relatedLot": lot_id, "value": price(data[f"lot_{lot_id}"])} for lot_id in lines
            ]
        else:
            bid["value"] = price(data["amount"])
            lines = [None]
        weighed_by = self.tender.weighed_by(lines)
        parameters = [
            {"code": feature["code"], "value": data[name]}
            for name, feature in self.features.items()
            if feature["code"] in weighed_by
        ]
        if parameters:
            bid["parameters"] = parameters
        return bid


class BidPriceForm(PricesChecked, OnceForm):
    """New prices for a bid while bids are taken: its price, or its price for each lot it
    is for. The model decides whether they may change (and checks them as it did the first)."""

    def __init__(self, *args, bid, **kwargs):
        super().__init__(*args, **kwargs)
        self.bid = bid
        self.tender = tender = bid.tender
        titles = {lot["id"]: lot["title"] for lot in tender.lots}
        prices = {}
        if tender.lots:
            for offer in bid.lot_values:
                prices[f"lot_{offer['relatedLot']}"] = forms.DecimalField(
                    label=_("New price for lot «%(title)s»")
                    % {"title": titles.get(offer["relatedLot"], "")},
                    initial=offer["value"]["amount"],
                    min_value=0,
                    max_digits=15,
                    decimal_places=2,
                )
        else:
            prices["amount"] = forms.DecimalField(
                label=_("New price"),
                initial=(bid.value or {}).get("amount"),
                min_value=0,
                max_digits=15,
                decimal_places=2,
            )
        self.fields = {**prices, **self.fields}

    def as_patch(self) -> dict:
        """The 2.3 PATCH of the bid: its value, or its lot values, at the new prices."""
        data = self.cleaned_data
        if self.tender.lots:
            return {
                "lotValues": [
                    {
                        "relatedLot": offer["relatedLot"],
                        "value": {
                            **offer["value"],
                            "amount": float(data[f"lot_{offer['relatedLot']}"]),
                        },
                    }
                    for offer in self.bid.lot_values
                ]
            }
        return {"value": {**self.bid.value, "amount": float(data["amount"])}}
