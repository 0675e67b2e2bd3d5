"""tlint: a strict linter and semantic differ for distributed-training traces, logs and workloads."""

__version__ = "0.1.0"
