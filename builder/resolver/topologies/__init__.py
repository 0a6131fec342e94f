"""Multi-process topologies: multi-node, prefill/decode, Mooncake kv-store."""
