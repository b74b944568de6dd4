"""The portal's forms of the tender's screens, a module for each as tenders/views has one:
new_tender, owner (the owner's decisions), bids, questions; `party` says who the signed-in
user speaks for."""
