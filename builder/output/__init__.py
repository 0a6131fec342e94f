"""Writing the site: where it may go (the ``--out`` refusals), the staging folder swapped in
atomically, files streamed into it as they are rendered (written by forked writer processes), the
replaced site deleted in the background, forked children that render beside the main process, and
the checks that no two outputs overwrite each other.

Imports the packages below it (content, checks, api, site) and itself; nothing imports it but the
commands."""
