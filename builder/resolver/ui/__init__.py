"""The interactive builder's view model (site-features §6-§7)."""
