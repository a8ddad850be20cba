"""The wire: server addresses and failover, JSON over HTTP, riding out the server's absence,
values' encoding, and the protocol's constants."""
