"""The static JSON API: every recipe document, rendering record, preset, output-form document
(``/<base>/vllm-config.json``) and catalogue, asked of the resolver once and kept both as bytes and as
objects (:class:`~builder.api.output.BuildOutput`) for the pages, with each record's lint findings.

Imports only the resolver, :mod:`builder.content`, :mod:`builder.checks` and itself."""
