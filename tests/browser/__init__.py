"""Browser tests of the interactive command builder."""
