"""What of a claim each reader sees: a draft only its author, its filer once the tender's
status allows, an answer saved but not sent only the buyer."""

from core.actors import Viewer

from .table import S


class SeenByReaders:
    def shown_to(self, viewer: Viewer | None) -> bool:
        """A claim never submitted (a draft, or a draft withdrawn) is shown to its author alone
        (2.3 listed drafts to everyone); `viewer` None: the system."""
        submitted = self.status != S.DRAFT and self.date_submitted is not None
        return submitted or viewer is None or viewer.owns(self)

    @property
    def author_shown(self) -> bool:
        """Who filed a claim against the conditions is not shown until bids are opened (2.3);
        the portal shows the filer its own."""
        hidden_in = self.kind.author_hidden_in
        return not hidden_in or self.tender.status not in hidden_in

    def author_shown_to(self, viewer: Viewer | None) -> bool:
        """Its filer is shown to the public once shown at all, and to itself always (`viewer`
        None: the system)."""
        return self.author_shown or viewer is None or viewer.owns(self)

    def answer_shown_to(self, viewer: Viewer | None) -> bool:
        """An answer saved but not sent (resolution, its type, the action taken) is the tender
        owner's alone until it is sent, and stays so if it never is."""
        return self.date_answered is not None or viewer is None or viewer.owns(self.tender)

    def differs_by_reader(self) -> bool:
        """Does some reader see more of it than the public (a draft, or an answer saved but
        not sent)?"""
        public = Viewer()
        return not self.shown_to(public) or (
            not self.answer_shown_to(public)
            and bool(self.resolution or self.resolution_type or self.tenderer_action)
        )
