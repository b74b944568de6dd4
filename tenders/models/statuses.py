from django.db import models
from django.utils.translation import gettext_lazy as _


class TenderStatus(models.TextChoices):
    DRAFT = "draft", _("draft")
    ENQUIRIES = "active.enquiries", _("enquiries")
    TENDERING = "active.tendering", _("tendering")
    AUCTION = "active.auction", _("auction")
    QUALIFICATION = "active.qualification", _("qualification")
    AWARDED = "active.awarded", _("awarded")
    COMPLETE = "complete", _("complete")
    UNSUCCESSFUL = "unsuccessful", _("unsuccessful")
    CANCELLED = "cancelled", _("cancelled")

    @classmethod
    def terminal(cls) -> frozenset["TenderStatus"]:
        return frozenset({cls.COMPLETE, cls.UNSUCCESSFUL, cls.CANCELLED})

    @classmethod
    def sealed(cls) -> frozenset["TenderStatus"]:
        """Bids are sealed (2.3 shows none, nor their number) until the auction is over."""
        return frozenset({cls.DRAFT, cls.ENQUIRIES, cls.TENDERING, cls.AUCTION})

    @classmethod
    def bidders_unnamed(cls) -> frozenset["TenderStatus"]:
        """Who asked a question or filed a claim against the conditions is not shown while
        bidders are not named (2.3: enquiries, tendering and the auction): a name beside either
        would say who is bidding."""
        return frozenset({cls.ENQUIRIES, cls.TENDERING, cls.AUCTION})

    @classmethod
    def auction_time(cls) -> frozenset["TenderStatus"]:
        """Time plans a tender's auctions (as tendering starts), seals them (as it closes) and
        holds them, in these statuses."""
        return frozenset({cls.ENQUIRIES, cls.TENDERING, cls.AUCTION})

    @classmethod
    def deciding(cls) -> frozenset["TenderStatus"]:
        """Awards are decided, and contested, in these statuses."""
        return frozenset({cls.QUALIFICATION, cls.AWARDED})


class LotStatus(models.TextChoices):
    ACTIVE = "active", _("active")
    CANCELLED = "cancelled", _("cancelled")
    UNSUCCESSFUL = "unsuccessful", _("unsuccessful")
    COMPLETE = "complete", _("complete")


class BidStatus(models.TextChoices):
    DRAFT = "draft", _("draft")
    ACTIVE = "active", _("active")
    DELETED = "deleted", _("withdrawn")


class AwardStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    ACTIVE = "active", _("active")
    UNSUCCESSFUL = "unsuccessful", _("unsuccessful")
    CANCELLED = "cancelled", _("cancelled")


class ContractStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    ACTIVE = "active", _("active")
    CANCELLED = "cancelled", _("cancelled")
    TERMINATED = "terminated", _("terminated")

    @classmethod
    def in_contracting(cls) -> frozenset["ContractStatus"]:
        """Signed: the contract lives on in contracting (2.3's /contracts)."""
        return frozenset({cls.ACTIVE, cls.TERMINATED})


class CancellationStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    ACTIVE = "active", _("active")
