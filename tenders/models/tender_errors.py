"""The refusals particular to registering and publishing tenders."""

from core.errors import Refused


class NotProcuringEntity(Refused):
    """A portal account registers tenders only for a procuring entity (2.3 has no accounts)."""

    code = "not_procuring_entity"

    def __init__(self):
        super().__init__("Only users of a procuring entity can publish tenders")


class StaleDraft(Refused):
    """A draft whose enquiry period is over (2.3 published it, and the tender moved on at once);
    a draft cannot be edited, so it is cancelled and written anew."""

    http_status = 422
    code = "stale_draft"

    def __init__(self):
        super().__init__(
            "enquiryPeriod should end in the future", location="body", name="enquiryPeriod"
        )
