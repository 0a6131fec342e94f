"""vLLM recipes static-site generator."""
