"""Lints of what the build publishes: every generated ``vllm serve`` argv against the pinned vLLM
release's CLI catalogue, and the memory model's fit and sharding rules per rendering.

Imports only the resolver, :mod:`builder.content` and itself."""
