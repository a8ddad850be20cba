"""This process as the client knows it: its one client and line engine, its identity and record,
its labels, and which frames are its program's."""
