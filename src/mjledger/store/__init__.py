"""The ledger store: the eventsourcing application (:mod:`.application`), how events are stored
(:mod:`.records`), the store's own events (:mod:`.events`) and the read models (:mod:`.views`).
The only layer that does I/O besides the command line."""
