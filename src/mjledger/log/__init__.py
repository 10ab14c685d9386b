"""The log layer: the contract in Python — one event class per line type (:mod:`.events`), the
strict codec between JSON lines and events (:mod:`.codec`), and the JSON Schema (:mod:`.schema`)."""
