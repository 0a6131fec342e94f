"""Read and validate a content root: YAML 1.2 with a line for every key, the pydantic schemas,
identifiers that become paths, links, overlays, cross-references, authoring lints and the shell
rules, into :class:`~builder.content.model.Content` and located
:class:`~builder.content.problems.Problem`\\ s (``path:line: field.path: message``).

Imports only the resolver and itself."""
