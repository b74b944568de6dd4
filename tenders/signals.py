"""What the tenders app tells the apps above it.

`tender_changed(sender=Tender, tender_ids=[...])`: open data is told of the last committed
change of each tender named (a change leaves its tender `untold`), their rows locked and not
changed since: by the background (`Tender.objects.tell_untold`), or by a tender's next change
before it changes anything, or by a read that must show it (`Tender.objects.tell_untold_of`).
A receiver reads the tenders as those changes left them; what it writes commits with the
telling. Open data keeps each published change as an OCDS release this way."""

from django.dispatch import Signal

tender_changed = Signal()
