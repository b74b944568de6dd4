"""What the tenders app tells the apps above it.

`tender_changed(sender=Tender, tender_ids=[...])`: tenders changed, sent once per transaction
(naming every tender it changed: a chronograph's pass changes many), after the whole change is
written and before it commits (core.writes.before_commit), so that a receiver reads the
tenders as that change leaves them and whatever it writes commits with the change or not at
all. Open data keeps each published change as an OCDS release this way."""

from django.dispatch import Signal

tender_changed = Signal()
